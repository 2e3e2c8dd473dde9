/**
 * Sustained HFT load against `hftgate start` with its embedded simulator, as a user runs the quick
 * start: the gateway is a real child process (its own NATS backend, `sim.nats`), one strategy keeps
 * `inFlight` HFT creates unanswered at all times and cancels each on its Ack, until `orders` were
 * placed or `maxMs` passed; the last round's orders rest for two echo timeouts before their cancel
 * (acked while trusted, nothing else said about them: the echo check's own case). Then: what the strategy was told (Acks, Rejects by code), the HFT
 * stream's record from /metrics (silent trips, reconnects, echoes ahead of their answers), the
 * venue's signed listing (orders still open, orders per client id), whether the NATS listener still
 * takes a new connection and delivers, and how long the SIGTERM exit took. Used by
 * operations.echo.test.ts (a bounded run) and hftLoadSoak.ts (long runs, figures).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { wsconnect } from "@nats-io/nats-core";
import WebSocket from "ws";
import { OrderStatus } from "../../../src/protocol/schema.js";
import { GatewayProcess, trackGroup } from "./child.js";
import { ADMIN_TOKEN, TOKEN } from "./engineRig.js";
import { VenueReader } from "./listings.js";
import { Strategy } from "./strategy.js";
import { newKeys, secretHex, sleep } from "./venue.js";

export interface HftLoadOptions {
  /** `sim.nats` of the gateway: the built-in endpoint or a nats-server. */
  nats: "builtin" | "server";
  orders: number;
  inFlight: number;
  /** Stop placing after this long (the run is bounded in time, whatever the machine). */
  maxMs: number;
  /** `streams.hftNats.echoTimeoutMs` (short: a wrong silence shows within the run). */
  echoTimeoutMs?: number;
  /** Busy-loop processes kept running beside the gateway (a shared, crowded box). Default 0. */
  hogs?: number;
  /** `limits.enabled`: the account rate limiter (50 HFT orders/s) is not the subject; default off. */
  limits?: boolean;
  /** Keep the temp dir (journal, log) for a look afterwards. */
  keepDir?: boolean;
}

export interface HftLoadReport {
  nats: string;
  placed: number;
  acks: number;
  /** Rejects by code (402 = refused while reconciling with the venue). */
  rejects: Record<string, number>;
  refusedReconciling: number;
  unanswered: number;
  /** Acked orders whose cancel was never answered. */
  cancelsUnanswered: number;
  /** Orders of the last round, left resting for two echo timeouts before their cancel. */
  rested: number;
  runMs: number;
  /** From /metrics after the run. */
  silentTrips: number;
  streamReconnects: number;
  echoesAhead: number;
  /** "HFT private stream problem" / "venue stream down" lines in the gateway's log. */
  streamDownLines: number;
  connectionRefusedLines: number;
  /** Venue listing: HFT orders of the account, and those not Cancelled. */
  venueOrders: number;
  venueNotCancelled: number;
  /** Client ids with more than one order at the venue. */
  venueDuplicated: number;
  /** Acked orders the venue does not list. */
  venueMissing: number;
  /** A new connection to the NATS listener after the run received a public message. */
  natsAccepting: boolean;
  sigtermExitMs: number;
  dir: string;
}

const wsFactory = async (u: string) => ({
  socket: new WebSocket(u) as unknown as globalThis.WebSocket,
  encrypted: false,
});

/** The value of one metric line of a Prometheus text page (0 when absent). */
function metric(page: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, "m").exec(page);
  return m === null ? 0 : Number(m[1]);
}

/** The `url` field of the gateway's first JSON log line whose message starts with `msg`. */
function loggedUrl(output: string, msg: string): string {
  for (const line of output.split("\n")) {
    if (!line.startsWith("{")) continue;
    const rec = JSON.parse(line) as { msg?: string; url?: string };
    if (rec.msg?.startsWith(msg) && rec.url !== undefined) return rec.url;
  }
  throw new Error(`no log line "${msg}"`);
}

/** Does a fresh connection to the NATS listener (no credentials: the public reader) get a ticker? */
async function natsAccepting(url: string): Promise<boolean> {
  try {
    const nc = await wsconnect({ servers: url, wsFactory, reconnect: false, timeout: 5_000 } as Parameters<
      typeof wsconnect
    >[0]);
    try {
      const sub = nc.subscribe("v1.f.ex1.public.futures.ticker.>", { max: 1 });
      const got = (async () => {
        for await (const _ of sub) return true;
        return false;
      })();
      return await Promise.race([got, sleep(5_000).then(() => false)]);
    } finally {
      await nc.close().catch(() => {});
    }
  } catch {
    return false;
  }
}

export async function runHftLoad(o: HftLoadOptions): Promise<HftLoadReport> {
  const dir = mkdtempSync(join(tmpdir(), "hftgate-hftload-"));
  const keys = newKeys();
  const cfgFile = join(dir, "config.json");
  const echoTimeoutMs = o.echoTimeoutMs ?? 1_000;
  const writeConfig = (port: number): void =>
    writeFileSync(
      cfgFile,
      JSON.stringify({
        sim: { nats: o.nats, seed: 7 },
        keys: { apiKey: keys.apiKey },
        gateway: { port, token: TOKEN, adminToken: ADMIN_TOKEN, badTokenDelayMs: 50 },
        journal: { enabled: true, dir: join(dir, "journal"), fsync: "interval", fsyncIntervalMs: 100 },
        engine: { stateFile: join(dir, "gateway.json") },
        limits: { enabled: o.limits ?? false },
        streams: { hftNats: { echoTimeoutMs } },
        shutdown: { timeoutMs: 3_000 },
        log: { level: "info", pretty: "false" },
      }),
    );
  const hogs = Array.from({ length: o.hogs ?? 0 }, () => {
    const p = spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore", detached: true });
    trackGroup(p);
    return p;
  });
  const gp = new GatewayProcess(cfgFile, { HFTGATE_SECRET_KEY: secretHex(keys) });
  let s: Strategy | undefined;
  try {
    await gp.startOnFreePort(writeConfig, 60_000);
    const simUrl = loggedUrl(gp.output, "embedded simulator started");
    const natsUrl = loggedUrl(gp.output, "HFT private streams: simulator publishing");
    s = await new Strategy(gp.url, TOKEN, "hft-load").connect();
    const strategy = s;
    const inst = (await s.client.instruments()).find((i) => i.surface === 2 && i.symbol === "ETHUSDT");
    if (inst === undefined) throw new Error("no ETHUSDT instrument");
    const tick = Number(inst.tickSize);
    // Resting buys 4 % under the last price: inside the risk band, never crossing.
    const last = Number(
      (
        (await (await fetch(`${simUrl}/v5/market/tickers?category=linear&symbol=ETHUSDT`)).json()) as {
          result: { list: Array<{ lastPrice: string }> };
        }
      ).result.list[0]!.lastPrice,
    );
    const base = Math.round((last * 0.96) / tick);

    const rejects: Record<string, number> = {};
    let placed = 0;
    let answered = 0;
    let acks = 0;
    const t0 = Date.now();
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const over = (): boolean => placed >= o.orders || Date.now() - t0 > o.maxMs;
    // The last round rests: acked while trusted, nothing else happens to it for two echo timeouts.
    const resting: number[] = [];
    const next = (): void => {
      if (over()) {
        if (answered >= placed) finish();
        return;
      }
      placed++;
      strategy.place(inst.instrumentId, "buy", base + (placed % 50), 5);
    };
    s.client.on("ack", (b) => {
      acks++;
      answered++;
      if (over()) resting.push(b.clOrdNo);
      else strategy.cancel(b.clOrdNo);
      next();
    });
    s.client.on("reject", (b) => {
      answered++;
      rejects[b.code] = (rejects[b.code] ?? 0) + 1;
      next();
    });
    s.client.on("unknown", () => {
      answered++;
      next();
    });
    // The cancels' outcomes: the order's last status as told (Cancelled, or whatever refused it).
    const done = new Set<number>();
    s.client.on("update", (b) => {
      if (b.status === OrderStatus.Cancelled) done.add(b.clOrdNo);
    });
    s.client.on("cancelReject", (b) => {
      done.add(b.clOrdNo);
    });
    for (let i = 0; i < o.inFlight; i++) next();
    await Promise.race([finished, sleep(o.maxMs + 15_000)]);
    const runMs = Date.now() - t0;
    await sleep(2 * echoTimeoutMs + 500);
    for (const n of resting) strategy.cancel(n);
    // Every cancel answered before the venue is read (bounded: the truth is read either way).
    const end = Date.now() + 15_000;
    while (Date.now() < end && done.size < acks) await sleep(100);

    const page = await (await fetch(`${gp.httpUrl}/metrics`)).text();
    // Every order of the run is listed (open and recently closed): room for all of them.
    const pages = Math.ceil(placed / 50) + 10;
    const reader = new VenueReader(simUrl, keys, { spot: 0.00001, hft: Number(inst.qtyStep) }, pages);
    let listing: Awaited<ReturnType<VenueReader["read"]>>;
    try {
      listing = await reader.read();
    } finally {
      await reader.close();
    }
    const hft = listing.orders.filter((x) => x.surface === "hft");
    const perClient = new Map<string, number>();
    for (const x of hft) perClient.set(x.clientId, (perClient.get(x.clientId) ?? 0) + 1);
    const listed = new Set(hft.map((x) => x.id));
    const acked = [...strategy.told.values()].filter((t) => t.acks > 0);
    const accepting = await natsAccepting(natsUrl);

    await strategy.close();
    s = undefined;
    const t1 = Date.now();
    await gp.stop();
    const sigtermExitMs = Date.now() - t1;
    return {
      nats: o.nats,
      placed,
      acks,
      rejects,
      refusedReconciling: rejects["402"] ?? 0,
      unanswered: placed - answered,
      cancelsUnanswered: acks - done.size,
      rested: resting.length,
      runMs,
      silentTrips: metric(page, "hftgate_hft_stream_silent_trips_total"),
      streamReconnects: metric(page, "hftgate_hft_stream_reconnects_total"),
      echoesAhead: metric(page, "hftgate_hft_stream_echoes_ahead_total"),
      streamDownLines: (gp.output.match(/"venue stream down"|HFT private stream problem/g) ?? []).length,
      connectionRefusedLines: (gp.output.match(/connection refused|ECONNREFUSED/gi) ?? []).length,
      venueOrders: hft.length,
      venueNotCancelled: hft.filter((x) => x.status !== "Cancelled").length,
      venueDuplicated: [...perClient.values()].filter((n) => n > 1).length,
      venueMissing: acked.filter((t) => !listed.has(t.exchangeId)).length,
      natsAccepting: accepting,
      sigtermExitMs,
      dir,
    };
  } finally {
    await s?.close().catch(() => {});
    await gp.stop();
    for (const h of hogs) {
      try {
        if (h.pid !== undefined) process.kill(-h.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    if (!o.keepDir) rmSync(dir, { recursive: true, force: true });
  }
}
