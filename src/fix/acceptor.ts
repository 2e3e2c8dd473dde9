/**
 * The FIX acceptor: a TCP (or TLS) listener whose connections are FIX sessions of the gateway's one
 * session layer (`Gateway.addTransport`), plus the drop-copy hub on the gateway's frame tap.
 */
import type { KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import net from "node:net";
import tls from "node:tls";
import type { Instrument } from "../domain/types.js";
import type { FrameTap } from "../gateway/outbound.js";
import type { RunningTransport, TransportHandlers } from "../gateway/transport.js";
import { FixContext, type FixLogger } from "./context.js";
import { DropCopyHub } from "./dropCopy.js";
import { publicKeyOf } from "./logonSig.js";
import { FixSession } from "./session.js";

export interface FixAcceptorOptions {
  host: string;
  port: number;
  compId: string;
  /** "SENDERCOMPID:<hex Ed25519 public key>" per allowed session. */
  sessions: readonly string[];
  /** SenderCompIDs (among `sessions`) that are drop-copy sessions. */
  dropCopy: readonly string[];
  requirePassword: boolean;
  gatewayToken: string;
  maxSkewMs: number;
  badLogonDelayMs: number;
  maxBufferedBytes: number;
  storeDir: string;
  keep: number;
  tlsCert: string | null;
  tlsKey: string | null;
  instruments: () => readonly Instrument[];
  /** Side (1 buy, 2 sell) and instrument of another transport's order, for the drop copy. */
  orderOf?: (sessionId: number, clOrdNo: number) => { side: number; instrumentId: number } | undefined;
  log: FixLogger;
}

export interface FixAcceptor extends RunningTransport {
  /** Feeds the drop copy with other transports' frames (chain it into the gateway's tap). */
  readonly tap: FrameTap;
}

/** Parses the allowed sessions; throws with a clear message on a malformed entry (never the key). */
export function parseSessions(list: readonly string[]): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  for (const entry of list) {
    const i = entry.lastIndexOf(":");
    const id = i > 0 ? entry.slice(0, i) : "";
    const key = i > 0 ? publicKeyOf(entry.slice(i + 1)) : undefined;
    if (!/^[A-Za-z0-9_.-]{1,32}$/.test(id) || key === undefined) {
      throw new Error(
        `fix.sessions: each entry is <SenderCompID>:<64 hex digits of an Ed25519 public key> (CompID: 1-32 of A-Z a-z 0-9 _ . -); got one for "${id.slice(0, 32)}"`,
      );
    }
    keys.set(id, key);
  }
  return keys;
}

/** The transport starter for `Gateway.addTransport`. */
export function fixAcceptor(o: FixAcceptorOptions) {
  return <L>(h: TransportHandlers<L>): Promise<FixAcceptor> => {
    const keys = parseSessions(o.sessions);
    for (const d of o.dropCopy)
      if (!keys.has(d)) throw new Error(`fix.dropCopy: ${d} is not among fix.sessions`);
    const ctx = new FixContext({
      compId: o.compId,
      keys,
      dropCopy: new Set(o.dropCopy),
      token: o.requirePassword ? o.gatewayToken : undefined,
      gatewayToken: o.gatewayToken,
      maxSkewMs: o.maxSkewMs,
      badLogonDelayMs: o.badLogonDelayMs,
      maxBufferedBytes: o.maxBufferedBytes,
      storeDir: o.storeDir,
      keep: o.keep,
      instruments: o.instruments,
      log: o.log,
    });
    const hub = new DropCopyHub(ctx, o.orderOf);
    ctx.drop = hub;
    const socks = new Set<net.Socket>();
    const onConn = (sock: net.Socket) => {
      socks.add(sock);
      sock.once("close", () => socks.delete(sock));
      new FixSession(sock, ctx, h as TransportHandlers<unknown>);
    };
    const server =
      o.tlsCert !== null && o.tlsKey !== null
        ? tls.createServer({ cert: readFileSync(o.tlsCert), key: readFileSync(o.tlsKey) }, onConn)
        : net.createServer(onConn);
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(o.port, o.host, () => {
        const addr = server.address() as net.AddressInfo;
        o.log.info(
          { fixPort: addr.port, tls: o.tlsCert !== null, compId: o.compId },
          "FIX acceptor listening",
        );
        resolve({
          kind: "fix",
          port: addr.port,
          tap: (s, name, frame) => hub.tap(s, name, frame),
          close: () =>
            new Promise<void>((done) => {
              for (const s of socks) s.destroy();
              server.close(() => {
                ctx.closeStores();
                done();
              });
            }),
        });
      });
    });
  };
}
