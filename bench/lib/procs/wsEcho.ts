/**
 * WebSocket echo floor: a uWebSockets.js server that sends every binary message straight back.
 * Ready info: { port, native }.
 */
import { createRequire } from "node:module";
import { WS_PATH } from "../../../src/protocol/schema.js";
import { failChild, serveChild } from "../child.js";

interface UwsLike {
  App(): {
    ws(
      path: string,
      o: {
        compression: number;
        idleTimeout: number;
        message: (ws: { send(m: ArrayBuffer, b: boolean): number }, m: ArrayBuffer, b: boolean) => void;
      },
    ): { listen(host: string, port: number, cb: (ls: unknown) => void): void };
  };
  DISABLED: number;
  us_socket_local_port(ls: unknown): number;
  us_listen_socket_close(ls: unknown): void;
}

const uws = createRequire(import.meta.url)("uWebSockets.js") as UwsLike;

try {
  uws
    .App()
    .ws(WS_PATH, {
      compression: uws.DISABLED,
      idleTimeout: 0,
      message: (ws, msg, isBinary) => {
        ws.send(msg, isBinary);
      },
    })
    .listen("127.0.0.1", 0, (ls) => {
      if (!ls) return failChild(new Error("uWebSockets.js echo could not listen"));
      serveChild({ port: uws.us_socket_local_port(ls) }, {}, async () => uws.us_listen_socket_close(ls));
    });
} catch (err) {
  failChild(err);
}
