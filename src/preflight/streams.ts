/**
 * The two stream trials of preflight, each one connection opened and closed: the Spot order-updates
 * Socket.IO subscription with the API key, and the HFT NATS CONNECT of a socket credential under one
 * auth mapping. Neither keeps anything, retries or subscribes to more than it needs to learn the answer.
 */
import { type Authenticator, wsconnect } from "@nats-io/nats-core";
import { Manager } from "socket.io-client";
import WebSocket from "ws";
import { SPOT_ORDER_STREAM } from "../streams/spotPrivate.js";

export type SocketTrial =
  | { readonly outcome: "subscribed" }
  /** Connected and subscribed-sent; the venue acknowledged nothing within the wait. */
  | { readonly outcome: "silent" }
  | { readonly outcome: "refused"; readonly message: string }
  | { readonly outcome: "unreachable"; readonly message: string };

/** Connects to the order-updates namespace and subscribes with the key, asking for an acknowledgement. */
export function trySpotSocket(baseUrl: string, apiKey: string, timeoutMs: number): Promise<SocketTrial> {
  const manager = new Manager(baseUrl, {
    path: SPOT_ORDER_STREAM.path,
    transports: ["websocket"],
    reconnection: false,
    timeout: timeoutMs,
  });
  const socket = manager.socket(SPOT_ORDER_STREAM.namespace);
  return new Promise<SocketTrial>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const done = (t: SocketTrial): void => {
      if (timer !== undefined) clearTimeout(timer);
      socket.disconnect();
      manager.engine?.close();
      resolve(t);
    };
    socket.on("connect_error", (e: Error) => done({ outcome: "unreachable", message: e.message }));
    socket.on("connect", () => {
      // The venue's reply to a subscribe is not documented: an acknowledgement, when it sends one, decides.
      socket.emit(SPOT_ORDER_STREAM.event, { event: "subscribe", apikey: apiKey }, (r: unknown) => {
        const a = (r ?? {}) as { subscribed?: unknown; message?: unknown };
        if (a.subscribed === false)
          done({
            outcome: "refused",
            message: typeof a.message === "string" ? a.message : "subscribe refused",
          });
        else done({ outcome: "subscribed" });
      });
      timer = setTimeout(() => done({ outcome: "silent" }), Math.min(timeoutMs, 2_000));
    });
    socket.connect();
  });
}

export type NatsTrial =
  | { readonly outcome: "accepted" }
  /** Connected, but the subscription to the private subject was refused. */
  | { readonly outcome: "denied"; readonly message: string }
  | { readonly outcome: "refused"; readonly message: string }
  | { readonly outcome: "unreachable"; readonly message: string };

const wsFactory = async (u: string) => ({
  socket: new WebSocket(u) as unknown as globalThis.WebSocket,
  encrypted: u.startsWith("wss://"),
});

/**
 * One CONNECT with these auth fields; accepted when the server keeps the connection and, with
 * `subject`, lets it subscribe there (a server that maps an unrecognised CONNECT to an anonymous
 * public user accepts the connection but refuses the private subject).
 */
export async function tryNatsConnect(
  url: string,
  fields: Record<string, unknown>,
  timeoutMs: number,
  subject?: string,
): Promise<NatsTrial> {
  try {
    const nc = await wsconnect({
      servers: url,
      wsFactory,
      name: "hftgate-preflight",
      reconnect: false,
      timeout: timeoutMs,
      authenticator: (() => fields) as unknown as Authenticator,
    });
    let denied: string | undefined;
    if (subject !== undefined)
      nc.subscribe(subject, {
        callback: (err) => {
          if (err !== null) denied ??= err.message;
        },
      });
    // A round trip: the server has read the CONNECT (and the SUB, whose refusal comes before the PONG).
    await nc.flush();
    await new Promise((r) => setTimeout(r, 20));
    await nc.close().catch(() => {});
    return denied === undefined ? { outcome: "accepted" } : { outcome: "denied", message: denied };
  } catch (e) {
    const m = e instanceof Error ? e.message : String(e);
    // As the stream itself tells a refusal (natsStream.ts): the client's error name, or its words.
    const refused =
      (e instanceof Error && e.name === "AuthorizationError") || /authoriz|authenticat/i.test(m);
    return refused ? { outcome: "refused", message: m } : { outcome: "unreachable", message: m };
  }
}
