/**
 * What every FIX connection shares: the acceptor's settings (CompIDs, keys, drop-copy names), the
 * instruments by Symbol(55) and SecurityExchange(207), their grids, the open sessions and stores.
 */
import type { KeyObject } from "node:crypto";
import type { Instrument } from "../domain/types.js";
import type { FixEncoder } from "./codec.js";
import { gridOf } from "./decimal.js";
import { FixStore, type InstrumentGrids } from "./store.js";

export interface FixLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** A logged-on FIX session as the reports and the drop copy use it (session.ts). */
export interface FixPeer {
  readonly compId: string;
  readonly store: FixStore | undefined;
  readonly enc: FixEncoder;
  readonly gatewaySessionId: number;
  sendApp(type: string, e: FixEncoder, binSeq: number): Buffer | undefined;
  write(msg: Buffer): void;
}

/** The drop-copy fan-out (dropCopy.ts) as sessions see it. */
export interface DropCopyAttach {
  attach(s: FixPeer): void;
  detach(s: FixPeer): void;
  /** A trading session sent report `type` with this body. */
  copy(fromCompId: string, type: string, body: Buffer): void;
}

export interface FixContextOptions {
  compId: string;
  /** SenderCompID → the client's Ed25519 public key. */
  keys: ReadonlyMap<string, KeyObject>;
  dropCopy: ReadonlySet<string>;
  /** When set, Password(554) must equal it (the gateway's token). */
  token: string | undefined;
  /** The token the FIX sessions log on to the gateway with. */
  gatewayToken: string;
  maxSkewMs: number;
  badLogonDelayMs: number;
  maxBufferedBytes: number;
  storeDir: string;
  /** Messages kept per session for resend. */
  keep: number;
  instruments: () => readonly Instrument[];
  log: FixLogger;
}

export class FixContext {
  readonly compId: string;
  readonly keys: ReadonlyMap<string, KeyObject>;
  readonly dropCopy: ReadonlySet<string>;
  readonly token: string | undefined;
  readonly gatewayToken: string;
  readonly maxSkewMs: number;
  readonly badLogonDelayMs: number;
  readonly maxBufferedBytes: number;
  readonly log: FixLogger;
  /** Logged-on (or logging-on) sessions by SenderCompID. */
  readonly sessions = new Map<string, FixPeer>();
  drop: DropCopyAttach | undefined;
  private readonly stores = new Map<string, FixStore>();
  private instArr: readonly Instrument[] | undefined;
  private bySymbol = new Map<string, Instrument>();
  private byId = new Map<number, Instrument>();
  private readonly gridCache = new Map<number, InstrumentGrids | undefined>();

  constructor(private readonly o: FixContextOptions) {
    this.compId = o.compId;
    this.keys = o.keys;
    this.dropCopy = o.dropCopy;
    this.token = o.token;
    this.gatewayToken = o.gatewayToken;
    this.maxSkewMs = o.maxSkewMs;
    this.badLogonDelayMs = o.badLogonDelayMs;
    this.maxBufferedBytes = o.maxBufferedBytes;
    this.log = o.log;
  }

  /** The session's store, opened once (it outlives its connections). */
  store(compId: string): FixStore {
    let s = this.stores.get(compId);
    if (s === undefined) {
      s = FixStore.open(this.o.storeDir, compId, this.o.keep, (i) => this.grids(i));
      this.stores.set(compId, s);
    }
    return s;
  }

  closeStores(): void {
    for (const s of this.stores.values()) s.close();
    this.stores.clear();
  }

  private refresh(): void {
    const arr = this.o.instruments();
    if (arr === this.instArr) return;
    this.instArr = arr;
    this.bySymbol = new Map();
    this.byId = new Map();
    this.gridCache.clear();
    for (const i of arr) {
      this.byId.set(i.id, i);
      const k = `${i.symbol}|${i.venue}`;
      if (!this.bySymbol.has(k)) this.bySymbol.set(k, i);
      if (!this.bySymbol.has(i.symbol)) this.bySymbol.set(i.symbol, i);
    }
  }

  /** Symbol(55), with SecurityExchange(207) to pick the Spot exchange or HFT category. */
  instrument(symbol: string, exchange: string | undefined): Instrument | undefined {
    this.refresh();
    const i = this.bySymbol.get(exchange === undefined ? symbol : `${symbol}|${exchange}`);
    return i?.active ? i : undefined;
  }

  instrumentById(id: number): Instrument | undefined {
    this.refresh();
    return this.byId.get(id);
  }

  grids(id: number): InstrumentGrids | undefined {
    this.refresh();
    if (this.gridCache.has(id)) return this.gridCache.get(id);
    const i = this.byId.get(id);
    const px = i && gridOf(i.tickSize);
    const qty = i && gridOf(i.qtyStep);
    const g = px && qty ? { px, qty, pxStep: Number(i.tickSize), qtyStep: Number(i.qtyStep) } : undefined;
    this.gridCache.set(id, g);
    return g;
  }
}
