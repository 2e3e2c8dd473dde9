/**
 * The admin control plane on the bus (docs/bus.md §5): every gateway answers requests on
 * `hftgate.ctl.<account>.{status,cmd}` and `hftgate.ctl.all.{status,cmd}`. `status` (empty body) is
 * answered with a protocol `TradingState` frame (text = account name); `cmd` carries a protocol
 * `Kill` or `SetTradingState` frame and is answered with the resulting `TradingState`. Who may publish
 * there is decided by the NATS server's permissions (only the bus admin user), not by a token here.
 */
import { headers, type Msg, type NatsConnection, type Subscription } from "@nats-io/nats-core";
import type { GatewayEngine, SessionInfo } from "../gateway/engineApi.js";
import { monoNs } from "../protocol/clock.js";
import { decodeC2G, encodeG2C } from "../protocol/codec.js";
import { CODES, TradingStateValue } from "../protocol/schema.js";
import { ALL, HEADER, subjects } from "./subjects.js";

/** The identity bus commands act under (journaled as the session name of the command). */
const BUS_ADMIN: SessionInfo = {
  sessionId: 0,
  name: "bus-admin",
  codPolicy: 0,
  options: 0,
  connected: false,
  admin: true,
};

export function serveControl(
  nc: NatsConnection,
  account: string,
  engine: GatewayEngine,
  log: { warn(o: object, m: string): void },
): Subscription[] {
  const hdr = () => {
    const h = headers();
    h.set(HEADER.account, account);
    return h;
  };
  const state = () => engine.tradingState?.() ?? TradingStateValue.Active;
  const reply = (m: Msg, text: string) => {
    const frame = encodeG2C(
      "TradingState",
      { sessionId: 0, seq: 0, recvNs: 0, sendNs: monoNs() },
      { state: state(), instrumentId: 0, text: text.slice(0, 64) },
    );
    m.respond(new Uint8Array(frame), { headers: hdr() });
  };
  const error = (m: Msg, code: keyof typeof CODES, type: number) => {
    const c = CODES[code];
    const frame = encodeG2C(
      "Error",
      { sessionId: 0, seq: 0, recvNs: 0, sendNs: monoNs() },
      { code: c.code, offendingType: type, text: c.text },
    );
    m.respond(new Uint8Array(frame), { headers: hdr() });
  };
  const onStatus = (m: Msg) => reply(m, account);
  const onCmd = (m: Msg) => {
    const d = decodeC2G(m.data);
    if (d.name === undefined) return error(m, d.error, d.type);
    try {
      if (d.name === "Kill" && engine.onKill) engine.onKill(BUS_ADMIN, d.body, monoNs());
      else if (d.name === "SetTradingState" && engine.onSetTradingState)
        engine.onSetTradingState(BUS_ADMIN, d.body, monoNs());
      else return error(m, "UnknownType", d.type);
    } catch (err) {
      log.warn({ err: String(err) }, "bus control command failed");
      return error(m, "Internal", d.type);
    }
    reply(m, d.body.reason || account);
  };
  const sub = (subject: string, fn: (m: Msg) => void) =>
    nc.subscribe(subject, {
      callback: (err, m) => {
        if (err === null && m.reply) fn(m);
      },
    });
  return [
    sub(subjects.ctl(account, "status"), onStatus),
    sub(subjects.ctl(ALL, "status"), onStatus),
    sub(subjects.ctl(account, "cmd"), onCmd),
    sub(subjects.ctl(ALL, "cmd"), onCmd),
  ];
}
