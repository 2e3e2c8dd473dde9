/** Bodies of the loopback HTTP routes served on the gateway's port. */
import type { HttpReply } from "../gateway/engineApi.js";

/** 200 with a JSON body once reconciled and the venue answers; 503 with the same body before. */
export function healthReply(ready: boolean, detail: Record<string, unknown>): HttpReply {
  return {
    status: ready ? 200 : 503,
    contentType: "application/json",
    body: JSON.stringify({ status: ready ? "ok" : "starting", ...detail }),
  };
}

export function metricsReply(text: string): HttpReply {
  return { status: 200, contentType: "text/plain; version=0.0.4", body: text };
}
