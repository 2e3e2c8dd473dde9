/**
 * The simulator's control surface (faults, market, time, accounts, counters): what the admin
 * endpoint drives and `SimHandle` extends. Types only, so `admin.ts` and `handle.ts` share it
 * without importing each other.
 */
import type { SimAccount } from "./account.js";
import type { FaultRule, StreamFaults } from "./faults.js";
import type { SimNatsPublicCounters } from "./nats/public.js";
import type { NatsPublisherFaults, SimNatsCounters } from "./nats/streams.js";
import type { Counters } from "./server.js";
import type { StreamCounters } from "./streams.js";

export interface FaultControl {
  add(rule: FaultRule): void;
  clear(): void;
  rules(): FaultRule[];
  setStreams(s: Partial<StreamFaults>): void;
  streams(): StreamFaults;
  setClockSkew(ms: number): void;
  /** Drops every Socket.IO connection; returns how many. */
  disconnectStreams(mode?: "transport" | "server"): number;
  /** NATS streams: stop publishing while connections stay up (no-op without NATS). */
  pauseNats(paused: boolean): void;
  /**
   * NATS publisher faults (merged; no-op without NATS) and `credentialTtlMs`: socket credentials
   * expire after at most this long whatever lifetime was asked (0 = as asked). Bad values throw.
   */
  setNats(f: NatsPublisherFaults & { credentialTtlMs?: number }): void;
  /** Lands every create the `lateCreate` fault still holds, now; returns how many. */
  releaseLateCreates(): number;
}

export interface SimCounters {
  /** Requests received for `METHOD /path` (counted on arrival, before auth and faults). */
  requests(endpoint: string): number;
  readonly http: Counters;
  /** Orders actually created (a de-duplicated retry does not count). */
  ordersCreated(surface?: "spot" | "hft" | "futures"): number;
  /** Creates answered from the de-dup map (same client id). */
  deduplicated(surface?: "spot" | "hft" | "futures"): number;
  readonly streams: StreamCounters;
  /** Socket.IO connections subscribed to a pair's public order book (`BTC,INR`) on an exchange. */
  publicSubscribers(exchange: string, pair: string): number;
  /** HFT NATS streams (undefined without `nats`). */
  readonly nats: SimNatsCounters | undefined;
  /** HFT public market data subjects published (undefined without `nats`). */
  readonly natsPublic: SimNatsPublicCounters | undefined;
  /** `lateCreate` fault: creates held so far, landed so far, held now. */
  lateCreates(): { held: number; landed: number; waiting: number };
}

export interface SimControl {
  registerAccount(apiKeyHex: string): SimAccount;
  readonly faults: FaultControl;
  readonly market: { step(n?: number): void };
  /** Manual time mode: advance virtual time (runs expiry, confirmations, scheduled steps). */
  advance(ms: number): void;
  setSpotDelays(d: { cancelConfirmMs?: number; expiryConfirmMs?: number }): void;
  state(): Record<string, unknown>;
}
