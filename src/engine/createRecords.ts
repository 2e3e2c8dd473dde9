/**
 * The create turn's records, one of each per create path, filled in for every order: the risk gate's
 * intent, the store's new-order request and the journal's command record. Each reader (the risk gate,
 * the store, the journal) takes what it keeps by copy within the call, never the record itself, so
 * one object of each serves every order and a create makes none of them.
 */
import type { CommandInput } from "../journal/records.js";
import type { NewOrderRequest } from "../orders/index.js";
import type { OrderIntent } from "../risk/riskGate.js";

/** A record type with its fields writable. */
type Scratch<T> = { -readonly [K in keyof T]: T[K] };

export class CreateRecords {
  readonly intent: Scratch<OrderIntent> = {
    sessionId: 0,
    instrumentId: 0,
    side: "buy",
    type: "limit",
    priceTicks: 0,
    qtyLots: 0,
  };
  readonly newOrder: NewOrderRequest = {
    sessionId: 0,
    clientOrderNo: 0,
    instrumentId: 0,
    symbol: "",
    surface: "hft",
    side: "buy",
    type: "limit",
    tif: "GTC",
    positionIdx: 0,
    priceTicks: 0,
    qtyLots: 0,
  };
  readonly command: Scratch<Required<CommandInput>> = {
    session: "",
    op: "new",
    clientId: "",
    symbol: "",
    side: "",
    type: "",
    price: "",
    qty: "",
    tif: "",
    reason: "",
  };
}
