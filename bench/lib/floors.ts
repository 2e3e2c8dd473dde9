/**
 * Floors the end-to-end figures are compared with, measured in the same run: a raw-socket HTTP round
 * trip with pre-built request bytes, a WebSocket echo round trip, and the exchange's reference-client
 * pattern (global fetch, a fresh Ed25519 signature per call).
 */
import { type KeyObject, sign as nodeSign } from "node:crypto";
import { connect, type Socket } from "node:net";
import type { RecordableHistogram } from "node:perf_hooks";
import WebSocket from "ws";
import { WS_PATH } from "../../src/protocol/schema.js";
import { recordNs } from "./stats.js";

/** One request/response at a time; `once()` resolves when the whole response has arrived. */
export interface RoundTripper {
  once(): Promise<void>;
  close(): void;
}

/** Raw-socket HTTP floor: pre-built request bytes on one keep-alive socket (content-length framing). */
export async function openRawHttp(port: number, request: Buffer): Promise<RoundTripper> {
  const sock: Socket = connect(port, "127.0.0.1");
  sock.setNoDelay(true);
  await new Promise<void>((r, j) => {
    sock.once("connect", () => r());
    sock.once("error", j);
  });
  let expect = 0;
  let got = 0;
  let done: (() => void) | undefined;
  sock.on("data", (d: Buffer) => {
    if (expect === 0) {
      const s = d.toString("latin1");
      const h = s.indexOf("\r\n\r\n");
      const m = /content-length: *(\d+)/i.exec(s);
      expect = h + 4 + Number(m![1]);
    }
    got += d.length;
    if (got >= expect && done !== undefined) {
      got -= expect;
      expect = 0;
      const f = done;
      done = undefined;
      f();
    }
  });
  return {
    once: () =>
      new Promise<void>((r) => {
        done = r;
        sock.write(request);
      }),
    close: () => sock.destroy(),
  };
}

/** Pre-built HTTP/1.1 request bytes. `headers` is a flat [name, value, ...] list. */
export function rawRequest(
  method: string,
  path: string,
  port: number,
  headers: readonly string[],
  body: string,
): Buffer {
  let raw = `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: keep-alive\r\n`;
  for (let i = 0; i < headers.length; i += 2) raw += `${headers[i]}: ${headers[i + 1]}\r\n`;
  raw += `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  return Buffer.from(raw, "latin1");
}

/** WebSocket echo floor on the `ws` client (the transport GatewayClient uses). */
export async function openWsEcho(port: number, frame: Buffer): Promise<RoundTripper> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${WS_PATH}`, { perMessageDeflate: false });
  ws.binaryType = "nodebuffer";
  await new Promise<void>((r, j) => {
    ws.once("open", () => r());
    ws.once("error", j);
  });
  let done: (() => void) | undefined;
  ws.on("message", () => {
    const f = done;
    done = undefined;
    f?.();
  });
  return {
    once: () =>
      new Promise<void>((r) => {
        done = r;
        ws.send(frame);
      }),
    close: () => ws.terminate(),
  };
}

/**
 * The exchange's reference-client pattern: global `fetch`, the signature computed on every call over
 * METHOD + path + epoch with node:crypto, JSON body serialised per call.
 */
export function referenceClient(
  baseUrl: string,
  path: string,
  apiKey: string,
  privateKey: KeyObject,
  body: Record<string, unknown>,
): RoundTripper {
  const url = `${baseUrl}${path}`;
  return {
    once: async () => {
      const epoch = String(Date.now());
      const sig = nodeSign(null, Buffer.from(`POST${path}${epoch}`), privateKey).toString("hex");
      const r = await fetch(url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-AUTH-APIKEY": apiKey,
          "X-AUTH-SIGNATURE": sig,
          "X-AUTH-EPOCH": epoch,
        },
        body: JSON.stringify(body),
      });
      await r.json();
    },
    close: () => {},
  };
}

/** `n` sequential round trips, each recorded into `h` when given (untimed warm-up otherwise). */
export async function timeBlock(rt: RoundTripper, n: number, h?: RecordableHistogram): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await rt.once();
    if (h) recordNs(h, process.hrtime.bigint() - t0);
  }
}
