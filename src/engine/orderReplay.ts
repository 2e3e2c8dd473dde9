/**
 * The order replay: journal records, fed in order from the start-up read (startJournal.ts), rebuild
 * every session's orders in the store (same client ids, same owners by session name), the risk
 * gate's open orders and the trading state. Venue answers and records are read back by the venue
 * surfaces themselves (`parseCreate`, `parseCancel`, the reader of a record's `journalTag`) and reach
 * the store through the venue ingest (`replayed`), as the command path and the venue sync's do live. Runs in the engine's replay mode: no request,
 * no message. Orders whose last request has no known outcome are resolved by client id afterwards
 * (restart.ts), before anything is re-sent.
 */
import type { Logger } from "pino";
import type { Surface } from "../domain/types.js";
import {
  type JournalConsumer,
  type JournalRecord,
  REFUSED_LOCALLY,
  unresolvedRequests,
} from "../journal/index.js";
import { monoNs, type Order, ownExtra, TERMINAL } from "../orders/index.js";
import { Ev } from "../orders/status.js";
import { envelopePayload } from "../rest/client.js";
import { parseDec, stepsOf } from "../util/decimal.js";
import { readerOfTag } from "../venue/ingest.js";
import type { RecordNormalizer, Surfaces } from "../venue/surface.js";
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

/**
 * Rebuilds the store, risk and owners from journal records fed in order (`add`, run inside the
 * engine's replay mode), then restores the trading state and sums up (`finish`).
 */
export function orderReplay(engine: Engine, book: InstrumentBook, surfaces: Surfaces): OrderReplay {
  const store = engine.store;
  const all: JournalRecord[] = [];
  let skipped = 0;
  let lastState: "active" | "reducing" | "halted" | undefined;
  /** The state a venue-health trigger set returns to this by itself (`reducing heal=active`). */
  let healsTo: "active" | "reducing" | undefined;
  /** One venue record of a known order, through the one way into the store (a malformed one is skipped). */
  const applyRecord = (o: Order, reader: RecordNormalizer, rec: unknown): void => {
    if (engine.ingest.replayed(o, reader, rec) === "malformed") skipped++;
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
          const m = /^(active|reducing|halted)(?: heal=(active|reducing))?$/.exec(r.reason ?? "");
          if (m) {
            lastState = m[1] as "active" | "reducing" | "halted";
            healsTo = m[2] as "active" | "reducing" | undefined;
          }
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
        else if (r.op === "amend") ownExtra(o).amendSentNs = sentAt(r.ts);
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
            const s = surfaces[o.surface];
            const answer = s.parseCreate(answerPayload(r.body, r.raw, o.surface));
            if (answer.exchangeId !== "") {
              store.ackCreate(id, answer.exchangeId);
              // An answer that is the order record (Spot, Futures): what it says (an immediate fill) was delivered.
              if (answer.record !== undefined) applyRecord(o, s, answer.record);
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
          if (!unknown && r.status < 300) {
            const s = surfaces[o.surface];
            const rec = s.parseCancel(answerPayload(r.body, r.raw, o.surface));
            if (rec !== undefined) applyRecord(o, s, rec);
          }
        }
        return;
      }
      case "evt": {
        const o = store.byClientId(id);
        // `evt.source` is `<journalTag>-<how>` (spot-stream, hft-poll, hftx-query, futures-poll).
        const reader = readerOfTag(surfaces, r.source);
        if (!o || !reader || !r.body) return;
        const rec = parsed(r.body);
        if (rec === undefined) skipped++;
        else applyRecord(o, reader, rec);
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
      engine.restoreTradingState(lastState, healsTo);
      log.warn({ state: lastState, healsTo }, "trading state restored from the journal");
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

/**
 * A 2xx answer's payload as the REST client handed it to the order path: a raw body (the venue's
 * text) is read through its envelope as the client reads it (`envelopePayload`; a v5 answer only when
 * `retCode` is 0); an older record's body is that payload already.
 */
export function answerPayload(body: string | undefined, raw: number | undefined, surface: Surface): unknown {
  const json = parsed(body);
  if (raw !== 1 || json === null || typeof json !== "object") return json;
  const o = json as Record<string, unknown>;
  if (surface === "hft" && o.retCode !== 0) return undefined;
  return envelopePayload(o, surface === "hft");
}

/** A journaled body as JSON; undefined when absent or not JSON (an answer without an order id). */
function parsed(body: string | undefined): unknown {
  if (!body) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** A journal wall-clock time as this process's monotonic ns (at least 1: "sent" stays distinct from 0). */
function sentAt(tsMs: number): number {
  const ageNs = Math.max(0, Date.now() - tsMs) * 1e6;
  return Math.max(1, monoNs() - ageNs);
}
