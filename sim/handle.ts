/**
 * `startSimulator(options)`: wires exchange, HTTP front, Socket.IO streams and the optional admin
 * endpoint, and returns the handle tests, the gateway and the benchmarks use.
 */
import type http from "node:http";
import type { AddressInfo } from "node:net";
import type { SimAccount } from "./account.js";
import { createAdmin } from "./admin.js";
import { Verifier } from "./auth.js";
import { type DeepPartial, resolveOptions, type SimOptions } from "./config.js";
import { Exchange } from "./exchange.js";
import { Faults, validateRule } from "./faults.js";
import { FixedWindowLimiter } from "./fixedWindowLimiter.js";
import { SimNatsPublic } from "./nats/public.js";
import { SimNats } from "./nats/streams.js";
import { createFront } from "./server.js";
import { SimClock } from "./simClock.js";
import type { FaultControl, SimControl, SimCounters } from "./simControl.js";
import { Streams } from "./streams.js";

export interface SimHandle extends SimControl {
  /** `http://127.0.0.1:PORT` (or https). Both surfaces and the Socket.IO streams live here. */
  readonly baseUrl: string;
  readonly port: number;
  /** Admin endpoint, only when `adminPort` was given. */
  readonly adminUrl: string | undefined;
  readonly counters: SimCounters;
  readonly options: SimOptions;
  readonly exchange: Exchange;
  /** Server time (incl. injected clock skew), as `/time` reports it. */
  serverTime(): number;
  stop(): Promise<void>;
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startSimulator(options?: DeepPartial<SimOptions>): Promise<SimHandle> {
  const opts = resolveOptions(options);
  for (const r of opts.faults.rules) validateRule(r);
  const clock = new SimClock(opts.timeMode === "manual");
  const faults = new Faults(opts.seed, opts.faults.rules, opts.faults.streams, opts.faults.clockSkewMs);
  const serverNow = (): number => Date.now() + faults.clockSkewMs;
  const verifier = new Verifier(opts.auth, serverNow);
  const exchange = new Exchange({ ...opts, apiKeys: [] }, clock);
  const limiter = new FixedWindowLimiter(opts.rateLimits.enabled, opts.rateLimits.buckets);
  const front = createFront({ opts, exchange, verifier, limiter, faults, serverNow });
  const streams = new Streams(front.server, exchange, faults, (k) => verifier.has(k));
  exchange.listener = streams;
  let nats: SimNats | undefined;
  let natsPublic: SimNatsPublic | undefined;
  if (opts.nats !== undefined) {
    nats = new SimNats(opts.nats, faults, opts.seed);
    await nats.start();
    const n = nats;
    const pub = new SimNatsPublic(exchange, (subject, payload) => n.publishPublic(subject, payload));
    natsPublic = pub;
    // The private subjects hear every HFT order change; the public depth follows the book it moved.
    exchange.hftListener = {
      order: (a, o) => {
        n.order(a, o);
        const b = exchange.book("hft", o.inst.venue, o.inst.symbol);
        if (b !== undefined) pub.bookChanged(b);
      },
      execution: (a, e) => n.execution(a, e),
    };
    exchange.listener = {
      spotOrder: (a, o) => streams.spotOrder(a, o),
      spotBalance: (a) => streams.spotBalance(a),
      trade: (b, t) => {
        streams.trade(b, t);
        pub.trade(b, t);
      },
      marketStep: () => {
        streams.marketStep();
        pub.marketStep();
      },
    };
    exchange.socketGrant = (a, key, sig, expires) => n.grant(a, key, sig, expires);
  }

  const registerAccount = (apiKeyHex: string): SimAccount => {
    const a = exchange.registerAccount(apiKeyHex);
    verifier.register(a);
    return a;
  };
  for (const k of opts.apiKeys) registerAccount(k);

  const faultControl: FaultControl = {
    add: (r) => faults.add(r),
    clear: () => faults.clear(),
    rules: () => faults.rules.map((r) => ({ ...r })),
    setStreams: (s) => {
      for (const [k, v] of Object.entries(s)) {
        if (typeof v !== "number" || !(v >= 0 && v <= 1))
          throw new Error(`${k} must be a probability in [0, 1]`);
      }
      Object.assign(faults.streams, s);
    },
    streams: () => ({ ...faults.streams }),
    setClockSkew: (ms) => {
      faults.clockSkewMs = ms;
    },
    disconnectStreams: (mode) => streams.disconnectAll(mode),
    releaseLateCreates: () => front.late.releaseAll(),
    pauseNats: (p) => {
      if (nats !== undefined) nats.paused = p;
    },
    setNats: (f) => {
      const ttl = f.credentialTtlMs;
      if (ttl !== undefined && !(Number.isInteger(ttl) && ttl >= 0))
        throw new Error("credentialTtlMs must be an integer >= 0");
      nats?.setFaults(f);
      if (ttl !== undefined) exchange.socketTtlCapMs = ttl;
    },
  };

  const counters: SimCounters = {
    requests: (endpoint) => front.counters.requests.get(endpoint) ?? 0,
    http: front.counters,
    ordersCreated: (s) => {
      const c = exchange.created;
      return s === undefined ? c.spot + c.hft + c.futures : c[s];
    },
    deduplicated: (s) => {
      const c = exchange.created;
      if (s === undefined) return c.dedupedSpot + c.dedupedHft + c.dedupedFutures;
      return s === "spot" ? c.dedupedSpot : s === "hft" ? c.dedupedHft : c.dedupedFutures;
    },
    streams: streams.counters,
    publicSubscribers: (exchange, pair) => streams.publicSubscribers(exchange, pair),
    nats: nats?.counters,
    natsPublic: natsPublic?.counters,
    lateCreates: () => ({
      held: front.late.heldTotal,
      landed: front.late.landedTotal,
      waiting: front.late.size,
    }),
  };

  const control: SimControl = {
    registerAccount,
    faults: faultControl,
    market: {
      step: (n = 1) => {
        for (let i = 0; i < n; i++) exchange.step();
      },
    },
    advance: (ms) => {
      if (!clock.manual) throw new Error("advance() needs timeMode: 'manual'");
      clock.advance(ms);
    },
    setSpotDelays: (d) => {
      if (d.cancelConfirmMs !== undefined) opts.spot.cancelConfirmMs = Math.max(0, d.cancelConfirmMs);
      if (d.expiryConfirmMs !== undefined) opts.spot.expiryConfirmMs = Math.max(0, d.expiryConfirmMs);
    },
    state: () => ({
      requests: Object.fromEntries(front.counters.requests),
      statuses: Object.fromEntries(front.counters.statuses),
      ordersCreated: { ...exchange.created },
      streams: { ...streams.counters },
      lateCreates: counters.lateCreates(),
      faults: faults.rules,
      faultHits: Object.fromEntries(faults.hits),
      streamFaults: faults.streams,
      clockSkewMs: faults.clockSkewMs,
      spot: { cancelConfirmMs: opts.spot.cancelConfirmMs, expiryConfirmMs: opts.spot.expiryConfirmMs },
      accounts: [...exchange.accounts.keys()],
    }),
  };

  const port = await listen(front.server, opts.port, opts.host);
  const scheme = opts.tls !== undefined ? "https" : "http";
  let admin: http.Server | undefined;
  let adminUrl: string | undefined;
  if (opts.adminPort !== undefined) {
    admin = createAdmin(control);
    const ap = await listen(admin, opts.adminPort, "127.0.0.1");
    adminUrl = `http://127.0.0.1:${ap}`;
  }

  let stopped = false;
  return {
    ...control,
    baseUrl: `${scheme}://${opts.host}:${port}`,
    port,
    adminUrl,
    counters,
    options: opts,
    exchange,
    serverTime: serverNow,
    async stop() {
      if (stopped) return;
      stopped = true;
      clock.stop();
      front.late.discard();
      for (const r of front.hanging) r.destroy();
      front.server.closeAllConnections();
      await streams.close();
      await nats?.close();
      if (admin !== undefined) {
        admin.closeAllConnections();
        await new Promise<void>((resolve) => admin!.close(() => resolve()));
      }
    },
  };
}
