/** Bodies of the loopback HTTP routes served on the gateway's port. */
import type { HttpReply } from "../gateway/engineApi.js";

/**
 * 200 with a JSON body once reconciled and the venue answers; 503 with the same body before, and while
 * a `problem` stops the flow: `status` names it ("halted": the journal cannot write; "stopping": the
 * drain of a stop), `reason` says why.
 */
export function healthReply(
  ready: boolean,
  detail: Record<string, unknown>,
  problem?: { status: "halted" | "stopping"; reason: string },
): HttpReply {
  const ok = ready && problem === undefined;
  const head = problem ?? { status: ready ? "ok" : "starting" };
  return {
    status: ok ? 200 : 503,
    contentType: "application/json",
    body: JSON.stringify({ ...head, ...detail }),
  };
}

export function metricsReply(text: string): HttpReply {
  return { status: 200, contentType: "text/plain; version=0.0.4", body: text };
}

/** What stops the flow for /health: a journal that cannot write, then a stop in progress. */
export function flowStopped(
  journal: { readonly problem: string | undefined },
  engine: { readonly run: { readonly accepting: boolean } },
): { status: "halted" | "stopping"; reason: string } | undefined {
  if (journal.problem !== undefined) return { status: "halted", reason: journal.problem };
  if (!engine.run.accepting) return { status: "stopping", reason: "draining in-flight orders" };
  return undefined;
}
