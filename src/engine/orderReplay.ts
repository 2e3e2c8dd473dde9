/**
 * Restart recovery, step one: replay earlier journal files through the order store to rebuild every
 * session's orders (same client ids, same owners by session name); at start-up one consumer of the
 * single journal read (startJournal.ts). Step two is the venue
 * reconciliation (`VenueSync.reconcile`), the same path a stream reconnect takes; orders whose last
 * request has no known outcome are resolved by client id there, before anything is re-sent.
 */
import type { Logger } from "pino";
import {
  chronological,
  type JournalConsumer,
  type JournalRecord,
  listJournals,
  REFUSED_LOCALLY,
  replayJournals,
  unresolvedRequests,
} from "../journal/index.js";
import {
  eventFromFuturesOrder,
  eventFromSpotOrder,
  eventFromV5Execution,
  eventFromV5Order,
  monoNs,
  NormalizeError,
  newEvent,
  Source,
  TERMINAL,
} from "../orders/index.js";
import { Ev } from "../orders/status.js";
import type { FuturesOrderRecord, SpotOrderRecord, V5Execution, V5OrderRecord } from "../rest/wire.js";
import { parseDec, stepsOf } from "../util/decimal.js";
import type { Engine } from "./engine.js";
import type { InstrumentBook } from "./instruments.js";

export interface ReplaySummary {
  files: number;
  records: number;
  orders: number;
  live: number;
  unresolved: number;
  skipped: number;
  tornBytes: number;
}

/** Heartbeat intervals a COD session gets to come back after a restart (the gateway's default allowance). */
const MISSED_HEARTBEATS = 3;

/** Journal files oldest first (src/journal/files.ts, with the other file listing). */
export { chronological };

/** `no=12;inst=hft:linear:BTCUSDT;pos=0` → fields (the engine writes this into the command's `reason`). */
export function parseOrderTag(
  tag: string | undefined,
): { no: number; inst: string; pos: number } | undefined {
  if (!tag) return undefined;
  const kv = new Map(tag.split(";").map((p) => p.split("=", 2) as [string, string]));
  const no = Number(kv.get("no"));
  const inst = kv.get("inst");
  const pos = Number(kv.get("pos") ?? 0);
  if (!Number.isSafeInteger(no) || no <= 0 || !inst || ![0, 1, 2].includes(pos)) return undefined;
  return { no, inst, pos };
}

function steps(text: string | undefined, step: string): number {
  if (!text) return 0;
  const n = stepsOf(parseDec(text), parseDec(step));
  return n === undefined ? -1 : Number(n);
}

/** What a read of the journal files came to (the reader's counts). */
export interface JournalReadCounts {
  files: number;
  records: number;
  tornBytes: number;
}

/** The order replay as one consumer of the start-up read (its records in journal order), then a summary. */
export interface OrderReplay extends JournalConsumer {
  finish(read: JournalReadCounts, log: Logger): { summary: ReplaySummary; replayedIds: string[] };
}

/** Reads the earlier files (all but `exclude`) into the engine on its own: one consumer, one pass. */
export function replayInto(
  engine: Engine,
  book: InstrumentBook,
  dir: string,
  exclude: string | undefined,
  log: Logger,
): { summary: ReplaySummary; replayedIds: string[] } {
  const files = chronological(listJournals(dir).filter((f) => f !== exclude));
  const r = orderReplay(engine, book);
  // In replay mode: no requests, no messages (only the store, risk and owners are rebuilt).
  const res = engine.run.replay(() => replayJournals(files, (rec) => r.add(rec)));
  return r.finish({ files: files.length, ...res }, log);
}

/**
 * Rebuilds the store, risk and owners from journal records fed in order (`add`, run inside the
 * engine's replay mode), then restores the trading state and sums up (`finish`).
 */
export function orderReplay(engine: Engine, book: InstrumentBook): OrderReplay {
  const store = engine.store;
  const ev = newEvent();
  const all: JournalRecord[] = [];
  let skipped = 0;
  let lastState: "active" | "reducing" | "halted" | undefined;
  /** A Spot or Futures create / cancel answer body (an order record) applied as the engine applied it. */
  const applyAnswerRecord = (body: string | undefined, futures: boolean): void => {
    if (!body) return;
    try {
      const rec = JSON.parse(body) as SpotOrderRecord | FuturesOrderRecord;
      const o = rec.client_order_id
        ? store.byClientId(rec.client_order_id)
        : store.byExchangeId(rec.order_id);
      const e = o ? book.byId(o.instrumentId) : undefined;
      if (!e || typeof rec.status !== "string") return;
      if (futures) eventFromFuturesOrder(rec as FuturesOrderRecord, e.grid, Source.Query, monoNs(), ev);
      else eventFromSpotOrder(rec as SpotOrderRecord, e.grid, Source.Query, monoNs(), ev);
      store.apply(ev);
    } catch (err) {
      if (!(err instanceof NormalizeError) && !(err instanceof SyntaxError)) throw err;
      skipped++;
    }
  };
  /** An Amend's intent (`amend`: the order's target, as the engine recorded it) or its end (`amendDone`). */
  const replayAmend = (op: string, id: string, price?: string, qty?: string, tag?: string): void => {
    const o = store.byClientId(id);
    const e = o ? book.byId(o.instrumentId) : undefined;
    if (!o || !e) return;
    if (op === "amendDone") {
      store.endReplace(o);
      return;
    }
    const replaceBy = Number(/(?:^|;)new=(\d+)/.exec(tag ?? "")?.[1] ?? 0);
    const px = steps(price, e.inst.tickSize);
    const lots = steps(qty, e.inst.qtyStep);
    if (px < 0 || lots < 0) {
      skipped++;
      return;
    }
    if (replaceBy > 0) engine.noteOrderNo(o.sessionId, replaceBy);
    store.requestAmend(id, px, lots, replaceBy);
  };
  const apply = (r: JournalRecord): void => {
    all.push(r);
    const id = r.clientId ?? "";
    switch (r.k) {
      case "cmd": {
        if (r.op === "logon") {
          // cod=<policy>;hb=<ms>: the latest logon of each session name decides.
          const m = /^cod=(\d+);hb=(\d+)$/.exec(r.reason ?? "");
          if (m)
            engine.noteRestartCod(
              String(r.session),
              m[1] === "1" ? Number(m[2]) * MISSED_HEARTBEATS : undefined,
            );
          return;
        }
        if (r.op === "state") {
          if (r.reason === "active" || r.reason === "reducing" || r.reason === "halted") lastState = r.reason;
          return;
        }
        if (r.op === "amend" || r.op === "amendDone") {
          replayAmend(r.op, id, r.price, r.qty, r.reason);
          return;
        }
        if (r.op !== "new" || !id) return;
        const tag = parseOrderTag(r.reason);
        const e = tag ? book.byKey(tag.inst) : undefined;
        // The number was used even if the order cannot be rebuilt: never accept it again.
        if (tag) engine.noteOrderNo(engine.ownerOf(r.session), tag.no);
        if (!tag || !e || store.byClientId(id)) {
          skipped++;
          return;
        }
        const price = r.type === "market" ? 0 : steps(r.price, e.inst.tickSize);
        const qty = steps(r.qty, e.inst.qtyStep);
        if (price < 0 || qty <= 0) {
          skipped++;
          return;
        }
        try {
          const created = store.create(
            {
              sessionId: engine.ownerOf(r.session),
              clientOrderNo: tag.no,
              instrumentId: e.inst.id,
              symbol: e.inst.symbol,
              surface: e.inst.surface,
              side: r.side === "sell" ? "sell" : "buy",
              type: r.type === "market" ? "market" : "limit",
              tif: r.tif === "IOC" || r.tif === "FOK" ? r.tif : "GTC",
              positionIdx: tag.pos as 0 | 1 | 2,
              priceTicks: price,
              qtyLots: qty,
            },
            monoNs(),
            id,
          );
          engine.riskOpen(created);
        } catch {
          skipped++;
        }
        return;
      }
      case "req": {
        const o = store.byClientId(id);
        if (!o) return;
        // Sent when the journal says (not now): its deadline may have passed during the restart.
        if (r.op === "create") store.markSent(id, sentAt(r.ts));
        else if (r.op === "cancel") store.requestCancel(id);
        else if (r.op === "amend") o.amendSentNs = sentAt(r.ts);
        return;
      }
      case "res": {
        const o = store.byClientId(id);
        if (!o) return;
        const unknown = r.status === 0 || r.status >= 500;
        if (r.status === REFUSED_LOCALLY) {
          // The gateway refused it itself (nothing reached the venue) and told the strategy so.
          if (r.op === "create") store.rejectCreate(id, (r.body ?? "refused locally").slice(0, 64));
          else if (r.op === "cancel") store.cancelOutcome(id, Ev.CancelRejected);
        } else if (r.op === "create") {
          if (unknown) store.createUnknown(id);
          else if (r.status >= 200 && r.status < 300) {
            const exId = exchangeIdOf(r.body);
            if (exId) {
              store.ackCreate(id, exId);
              // A Spot / Futures answer is the order record: what it says (an immediate fill) was delivered.
              if (o.surface !== "hft") applyAnswerRecord(r.body, o.surface === "futures");
            } else store.createUnknown(id);
          } else if (r.status !== 429) store.rejectCreate(id, (r.body ?? "").slice(0, 64));
          else store.rejectCreate(id, "429");
        } else if (r.op === "amend") {
          // 2xx (or a resolution that saw the target): taken; no answer / 5xx: still open (the
          // resolver asks the venue after the restart); anything else: refused.
          store.amendOutcome(
            id,
            unknown ? Ev.AmendOutcomeUnknown : r.status < 300 ? Ev.AmendAcked : Ev.AmendRejected,
          );
        } else if (r.op === "cancel") {
          store.cancelOutcome(
            id,
            unknown ? Ev.CancelOutcomeUnknown : r.status < 300 ? Ev.CancelAcked : Ev.CancelRejected,
          );
          if (!unknown && r.status < 300 && o.surface !== "hft")
            applyAnswerRecord(r.body, o.surface === "futures");
        }
        return;
      }
      case "evt": {
        const o = store.byClientId(id);
        const e = o ? book.byId(o.instrumentId) : undefined;
        if (!o || !e || !r.body) return;
        try {
          const body = JSON.parse(r.body) as unknown;
          if (r.source.startsWith("spot"))
            eventFromSpotOrder(body as SpotOrderRecord, e.grid, Source.Query, monoNs(), ev);
          else if (r.source.startsWith("futures"))
            eventFromFuturesOrder(body as FuturesOrderRecord, e.grid, Source.Query, monoNs(), ev);
          // Executions (`hftx-*`): their ids must be remembered, or the restart's reconciliation
          // delivers the same fills again (issue 17, cause 3). Checked before the `hft` prefix.
          else if (r.source.startsWith("hftx"))
            eventFromV5Execution(body as V5Execution, e.grid, Source.Query, monoNs(), ev);
          else if (r.source.startsWith("hft"))
            eventFromV5Order(body as V5OrderRecord, e.grid, Source.Query, monoNs(), ev);
          else return;
          store.apply(ev);
        } catch (err) {
          if (!(err instanceof NormalizeError) && !(err instanceof SyntaxError)) throw err;
          skipped++;
        }
        return;
      }
      case "note":
        return;
    }
  };
  const finish = (read: JournalReadCounts, log: Logger) => {
    // A cancel-replace begun and not concluded before the restart is abandoned (its cancel is resolved).
    const abandoned = engine.amends.replaces.abandon();
    if (abandoned > 0) log.warn({ orders: abandoned }, "cancel-replace abandoned at restart");
    if (lastState !== undefined && lastState !== "active") {
      engine.restoreTradingState(lastState);
      log.warn({ state: lastState }, "trading state restored from the journal");
    }
    const unresolved = unresolvedRequests(all);
    let orders = 0;
    const replayedIds: string[] = [];
    for (const r of all)
      if (r.k === "cmd" && r.op === "new" && r.clientId && store.byClientId(r.clientId)) orders++;
    for (const o of store.liveSet()) if (!TERMINAL[o.status]) replayedIds.push(o.clientId);
    const summary: ReplaySummary = {
      files: read.files,
      records: read.records,
      orders,
      live: replayedIds.length,
      unresolved: unresolved.length,
      skipped,
      tornBytes: read.tornBytes,
    };
    if (read.files > 0) log.info(summary, "journal replayed");
    return { summary, replayedIds };
  };
  return { add: apply, finish };
}

function exchangeIdOf(body: string | undefined): string {
  if (!body) return "";
  try {
    const b = JSON.parse(body) as { orderId?: unknown; order_id?: unknown };
    if (typeof b.orderId === "string") return b.orderId;
    if (typeof b.order_id === "string") return b.order_id;
  } catch {
    // not JSON: no id
  }
  return "";
}

/** A journal wall-clock time as this process's monotonic ns (at least 1: "sent" stays distinct from 0). */
function sentAt(tsMs: number): number {
  const ageNs = Math.max(0, Date.now() - tsMs) * 1e6;
  return Math.max(1, monoNs() - ageNs);
}
