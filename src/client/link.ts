/**
 * How a `GatewayClient` reaches the gateway: one connection carrying protocol frames both ways.
 * `wsTransport` is the default (the gateway's WebSocket port); `natsTransport` (natsLink.ts) is the
 * bus. The session rules above the link are the same for both.
 */
import WebSocket from "ws";

export interface LinkEvents {
  /** The link can carry frames (the client sends its Logon now). */
  open(): void;
  message(frame: Uint8Array): void;
  error(err: Error): void;
  /** The link ended (once). */
  close(code: number, reason: string): void;
}

export interface ClientLink {
  readonly open: boolean;
  /** Sends one frame; the caller may reuse the buffer after this returns. */
  send(frame: Uint8Array): void;
  /** Raw bytes or text (tests and tools only). */
  sendRaw(frame: Uint8Array | string): void;
  /** Drops the link without a Logout (the gateway sees a disconnect); `close` follows. */
  terminate(): void;
}

export type ClientTransport = (ev: LinkEvents) => ClientLink;

/** The gateway's WebSocket (`ws://host:port/v1/ws`). */
export function wsTransport(url: string): ClientTransport {
  return (ev) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.binaryType = "nodebuffer";
    ws.on("open", () => ev.open());
    ws.on("message", (data: Buffer) => ev.message(data));
    ws.on("error", (err) => ev.error(err));
    ws.on("close", (code, reason) => ev.close(code, reason.toString()));
    return {
      get open() {
        return ws.readyState === WebSocket.OPEN;
      },
      // Copy: the codec reuses its buffer and ws may hold the reference until the socket drains.
      send: (frame) => ws.send(Buffer.from(frame)),
      sendRaw: (frame) => ws.send(frame),
      terminate: () => ws.terminate(),
    };
  };
}
