/**
 * Orphan adoption: venue orders open at the venue that the store has no order for (placed behind
 * the gateway's back with the same keys, or sent in a journal tail a power cut took) become orders of
 * the reserved orphan owner. From then on they are known like any order: counted by risk, listed to
 * admin sessions (Query, /admin/state, `hftgate top`), cancelled by Kill and an admin's CancelAll,
 * followed by the poller and the streams by exchange id. Never ignored: each one is logged and
 * journaled, and the restart reports them all (`RestartSummary.orphans`).
 */
import type { Logger } from "pino";
import type { Surface } from "../domain/types.js";
import type { Journal } from "../journal/writer.js";
import { monoNs, NormalizeError, newEvent, Source, STATUS_NAMES } from "../orders/index.js";
import type { UnheldListing } from "../venue/orphans.js";
import { ORPHAN_ID_PREFIX, type VenueSurface } from "../venue/surface.js";
import type { Engine } from "./engine.js";
import type { InstrumentBook, InstrumentEntry } from "./instruments.js";
import { ORPHAN_OWNER } from "./owners.js";

/** One venue order adopted as an orphan. */
export interface AdoptedOrphan {
  surface: Surface;
  exchangeId: string;
  /** The venue's client id of it ("" when it has none). */
  venueClientId: string;
  /** Its number under the orphan owner (what an admin Query shows as `clOrdNo`). */
  clOrdNo: number;
  symbol: string;
  side: string;
  price: string;
  qty: string;
  filled: string;
  status: string;
}

/** An open venue order the gateway could not adopt, with why (it is still reported, never ignored). */
export interface NotAdopted {
  surface: Surface;
  exchangeId: string;
  venueClientId: string;
  reason: string;
}

export interface OrphanSummary {
  /** Venue orders found open and unknown to the gateway: adopted + notAdopted. */
  count: number;
  adopted: AdoptedOrphan[];
  notAdopted: NotAdopted[];
  /** Surfaces whose open list could not be read: their orphans, if any, are not known yet. */
  unlisted: { surface: Surface; err: string }[];
}

export interface AdoptDeps {
  engine: Engine;
  book: InstrumentBook;
  journal: Journal | undefined;
  log: Logger;
}

/** Adopts every order of the listing the store has no order for; returns what was found. */
export function adoptOrphans(d: AdoptDeps, listing: UnheldListing): OrphanSummary {
  const out: OrphanSummary = { count: 0, adopted: [], notAdopted: [], unlisted: listing.failed };
  for (const u of listing.rows) {
    const s = u.surface;
    const exchangeId = s.exchangeIdOf(u.rec);
    const venueClientId = s.clientIdOf(u.rec);
    out.count++;
    const why =
      u.stale !== undefined
        ? `the gateway holds it as ${STATUS_NAMES[u.stale.status]} (client id ${u.stale.clientId})`
        : adopt(d, s, u.rec, exchangeId, venueClientId, out.adopted);
    if (why !== undefined) out.notAdopted.push({ surface: s.kind, exchangeId, venueClientId, reason: why });
  }
  const j = d.journal;
  for (const a of out.adopted)
    j?.note({
      text: `orphan adopted: ${a.surface} ${a.exchangeId} client id "${a.venueClientId}" ${a.symbol} ${a.side} ${a.qty} @ ${a.price} as #${a.clOrdNo}`,
    });
  for (const n of out.notAdopted)
    j?.note({ text: `orphan not adopted: ${n.surface} ${n.exchangeId}: ${n.reason}` });
  if (out.count > 0)
    d.log.warn(
      {
        count: out.count,
        adopted: out.adopted.map((a) => `${a.surface}:${a.exchangeId}`),
        notAdopted: out.notAdopted.map((n) => `${n.surface}:${n.exchangeId} (${n.reason})`),
      },
      "venue orders the gateway did not know: adopted as orphans (admin Query, hftgate top; Kill or an admin CancelAll cancels them)",
    );
  return out;
}

/** Creates the orphan in the store (acked, then the record applied); undefined when adopted, else why not. */
function adopt(
  d: AdoptDeps,
  s: VenueSurface,
  rec: unknown,
  exchangeId: string,
  venueClientId: string,
  adopted: AdoptedOrphan[],
): string | undefined {
  const { engine, book } = d;
  if (exchangeId === "") return "the record carries no exchange order id";
  const place = s.placeOf(rec);
  const e = findInstrument(book, s.kind, place.symbol, place.venue);
  if (e === undefined) return `instrument ${place.venue}:${place.symbol} is not loaded`;
  let terms: ReturnType<VenueSurface["termsOf"]>;
  try {
    terms = s.termsOf(rec, e.grid);
  } catch (err) {
    if (err instanceof NormalizeError) return `unreadable record: ${err.message}`;
    throw err;
  }
  if (terms.qtyLots <= 0 || (terms.type === "limit" && terms.priceTicks <= 0))
    return "the record has no quantity or no limit price";
  const clientId = ORPHAN_ID_PREFIX + exchangeId;
  const store = engine.store;
  if (store.byClientId(clientId) !== undefined) return "adopted already";
  // Readable as a whole first: a record the store would refuse must not leave half an order behind.
  try {
    s.normalize(rec, e.grid, Source.Query, monoNs(), newEvent());
  } catch (err) {
    if (err instanceof NormalizeError) return `unreadable record: ${err.message}`;
    throw err;
  }
  const clOrdNo = engine.owners.nextOrphanNo();
  // In replay mode: the store, risk and owners learn it; nobody is sent a message for it.
  const o = engine.run.replay(() => {
    const created = store.create(
      {
        sessionId: ORPHAN_OWNER,
        clientOrderNo: clOrdNo,
        instrumentId: e.inst.id,
        symbol: e.inst.symbol,
        surface: e.inst.surface,
        ...terms,
      },
      monoNs(),
      clientId,
    );
    engine.riskOpen(created);
    store.markSent(clientId);
    store.ackCreate(clientId, exchangeId);
    // What the venue says of it now (a part fill), through the one way into the store.
    engine.ingest.apply(created, s, rec, Source.Query);
    return created;
  });
  adopted.push({
    surface: s.kind,
    exchangeId,
    venueClientId,
    clOrdNo,
    symbol: e.inst.symbol,
    side: terms.side,
    price: terms.type === "market" ? "market" : e.price.format(terms.priceTicks),
    qty: e.qty.format(terms.qtyLots),
    filled: e.qty.format(o.filledLots),
    status: STATUS_NAMES[o.status]!,
  });
  return undefined;
}

/**
 * The record's instrument: by surface, venue and symbol; else ignoring case, and any venue when the
 * record names none (a Spot record without `exchange`).
 */
function findInstrument(
  book: InstrumentBook,
  surface: Surface,
  symbol: string,
  venue: string,
): InstrumentEntry | undefined {
  const exact = book.find(surface, venue, symbol);
  if (exact !== undefined) return exact;
  const sym = symbol.toUpperCase();
  const ven = venue.toLowerCase();
  for (const i of book.all())
    if (
      i.surface === surface &&
      i.symbol.toUpperCase() === sym &&
      (ven === "" || i.venue.toLowerCase() === ven)
    )
      return book.byId(i.id);
  return undefined;
}
