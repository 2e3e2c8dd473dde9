/**
 * The bus admin's side of the control plane (control.ts): every account's trading state, and a halt
 * (or any trading state, or the kill switch) for one account or all of them. Requests carry protocol
 * frames and are answered with `TradingState` frames, one per gateway that serves the target.
 */
import type { Msg, NatsConnection } from "@nats-io/nats-core";
import { decodeG2C, encodeC2G } from "../protocol/codec.js";
import { ALL, HEADER, subjects } from "./subjects.js";

export interface AccountState {
  account: string;
  /** TradingState enum: 1 active, 2 reducing, 3 halted (0 = the gateway answered with an Error). */
  state: number;
  text: string;
}

function parse(m: Msg): AccountState {
  const d = decodeG2C(m.data);
  const account = m.headers?.get(HEADER.account) ?? "";
  if (d.name === "TradingState") return { account, state: d.body.state, text: d.body.text };
  return { account, state: 0, text: d.name === "Error" ? d.body.text : "unreadable answer" };
}

/** Asks `target` (an account, or every gateway with "all"); collects answers for `waitMs`. */
async function ask(
  nc: NatsConnection,
  subject: string,
  data: Uint8Array,
  waitMs: number,
): Promise<AccountState[]> {
  const out: AccountState[] = [];
  try {
    const it = await nc.requestMany(subject, data, { maxWait: waitMs });
    for await (const m of it) {
      if (m.data.length === 0) break; // no responders
      out.push(parse(m));
    }
  } catch (err) {
    if (!/no responders/i.test(String(err))) throw err;
  }
  return out.sort((a, b) => a.account.localeCompare(b.account));
}

/** Trading state of every account on the bus (or of one). */
export function accountStates(nc: NatsConnection, target = ALL, waitMs = 500): Promise<AccountState[]> {
  return ask(nc, subjects.ctl(target, "status"), new Uint8Array(0), waitMs);
}

/** Sets the trading state (1 active, 2 reducing, 3 halted) of one account or all. */
export function setAccountState(
  nc: NatsConnection,
  target: string,
  state: number,
  reason: string,
  waitMs = 1000,
): Promise<AccountState[]> {
  const frame = new Uint8Array(encodeC2G("SetTradingState", { state, reason }));
  return ask(nc, subjects.ctl(target, "cmd"), frame, waitMs);
}

/** The kill switch of one account or all: halt and cancel every live order. */
export function killAccount(
  nc: NatsConnection,
  target: string,
  reason: string,
  waitMs = 1000,
): Promise<AccountState[]> {
  return ask(nc, subjects.ctl(target, "cmd"), new Uint8Array(encodeC2G("Kill", { reason })), waitMs);
}
