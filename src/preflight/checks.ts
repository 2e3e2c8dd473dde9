/**
 * The preflight checks as a table: each one's id, what it looks at, when it is required (from the
 * configuration) and how it runs. They run in this order and share what they learn (the clock offset
 * that signs the later requests, whether the venue answered at all, the HFT refusal). Every request is
 * a read (VenueProbe refuses anything but GET); a check never retries and never writes.
 */

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/load.js";
import { envName } from "../config/schema.js";
import { JOURNAL_LOCK } from "../engine/journalGate.js";
import { expandJournalDir, VENUE_PLACEHOLDER } from "../journal/identity.js";
import { liveOwner } from "../journal/lock.js";
import { V5_RET } from "../rest/wire.js";
import { connectFields, NATS_AUTH_MODES, type NatsAuthMode } from "../streams/nats/auth.js";
import { parseCredential, type SocketCredential } from "../streams/nats/credentials.js";
import { privateSubjects } from "../streams/nats/hftPrivate.js";
import { type ProbeAnswer, retCodeOf, type VenueProbe, venueText } from "./probe.js";
import type { CheckStatus } from "./report.js";
import { tryNatsConnect, trySpotSocket } from "./streams.js";

export interface PreflightContext {
  readonly config: Config;
  readonly probe: VenueProbe;
  /** Socket.IO origin of the Spot streams. */
  readonly streamUrl: string;
  /** NATS WebSocket URL of the HFT streams; undefined when none is known. */
  readonly natsUrl: string | undefined;
  readonly timeoutMs: number;
  /** Set by the clock check: the venue answered. Later checks skip when it did not. */
  reachable: boolean;
  /** Set by the hft check: the key has no HFT access (the options check then says so, not "allowlist"). */
  hftRefused?: boolean;
}

export interface Outcome {
  status: CheckStatus;
  detail: string;
  fix?: string;
  data?: Record<string, unknown>;
}

export interface CheckDef {
  readonly id: string;
  readonly title: string;
  /** Required for this configuration; a check that is not may still run and report. */
  required(c: Config): boolean;
  /** Not run at all for this configuration (a surface not traded, a stream turned off). */
  skip?(c: Config): string | undefined;
  run(ctx: PreflightContext): Promise<Outcome>;
  /** Ids of docs/going-live.md's table of venue facts that a pass confirms. */
  readonly verifies: readonly string[];
}

const has = (c: Config, s: "spot" | "hft" | "futures"): boolean => c.venue.surfaces.includes(s);
/** Spot and Futures share the Spot host and its unsigned time endpoint. */
const spotHost = (c: Config): boolean => has(c, "spot") || has(c, "futures");

function errText(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").slice(0, 200);
}

/** A v5 answer read as: ok, refused by auth (HTTP 401), or refused with a retCode. */
function v5Outcome(status: number, body: unknown): { ok: boolean; why: string } {
  const code = retCodeOf(body);
  if (status === 200 && code === 0) return { ok: true, why: "" };
  const text = venueText(body);
  return {
    ok: false,
    why: `HTTP ${status}${code !== undefined ? `, retCode ${code}` : ""}${text ? `: ${text}` : ""}`,
  };
}

async function clock(ctx: PreflightContext): Promise<Outcome> {
  const c = ctx.config;
  const samples = Math.max(3, c.clock.samples);
  let best: { rtt: number; offset: number } | undefined;
  let hftOffset: number | undefined;
  try {
    for (let i = 0; i < samples; i++) {
      const t0 = Date.now();
      const r = spotHost(c) ? await ctx.probe.get("spot.time") : await hftTime(ctx);
      const t1 = Date.now();
      const server = serverTimeOf(r.body);
      if (r.status !== 200 || server === undefined)
        return {
          status: "fail",
          detail: `the time endpoint answered HTTP ${r.status} without a time`,
          fix: "check venue.spotBaseUrl / venue.hftBaseUrl",
        };
      const sample = { rtt: t1 - t0, offset: server - (t0 + t1) / 2 };
      if (best === undefined || sample.rtt < best.rtt) best = sample;
    }
    if (has(c, "hft") && spotHost(c)) {
      const t0 = Date.now();
      const r = await hftTime(ctx);
      const t1 = Date.now();
      const server = serverTimeOf(r.body);
      if (server !== undefined) hftOffset = Math.round(server - (t0 + t1) / 2);
    }
  } catch (e) {
    return {
      status: "fail",
      detail: `venue not reachable: ${errText(e)}`,
      fix: "check venue.spotBaseUrl / venue.hftBaseUrl, DNS, outbound HTTPS and the venue's IP allowlist",
    };
  }
  ctx.reachable = true;
  const offset = Math.round(best!.offset);
  const rtt = Math.round(best!.rtt);
  ctx.probe.offsetMs = best!.offset;
  const data = {
    offsetMs: offset,
    rttMs: rtt,
    samples,
    ...(hftOffset !== undefined ? { hftOffsetMs: hftOffset } : {}),
  };
  const detail = `offset ${offset >= 0 ? "+" : ""}${offset} ms, round trip ${rtt} ms (best of ${samples})${
    hftOffset !== undefined ? `, HFT time ${hftOffset >= 0 ? "+" : ""}${hftOffset} ms` : ""
  }`;
  const worst = Math.max(Math.abs(offset), Math.abs(hftOffset ?? 0));
  const fixClock = "synchronise the host clock (chrony or systemd-timesyncd against a nearby NTP server)";
  if (worst > c.clock.refuseMs)
    return {
      status: "fail",
      detail: `${detail}: beyond clock.refuseMs (${c.clock.refuseMs} ms), the gateway would refuse to sign`,
      fix: fixClock,
      data,
    };
  if (worst > c.clock.warnMs)
    return {
      status: "warn",
      detail: `${detail}: beyond clock.warnMs (${c.clock.warnMs} ms); the gateway corrects it, the venue recommends 5 s`,
      fix: fixClock,
      data,
    };
  if (rtt > 1_000)
    return {
      status: "warn",
      detail: `${detail}: slow round trip`,
      fix: "run the gateway closer to the venue",
      data,
    };
  return { status: "pass", detail, data };
}

/**
 * `/v5/market/time` unsigned (a signature needs the offset this measures), signed when the venue wants
 * one (the catalogue signs HFT market data [assumed]).
 */
async function hftTime(ctx: PreflightContext): Promise<ProbeAnswer> {
  const r = await ctx.probe.get("hft.marketTime", [], false);
  return r.status === 401 || r.status === 400 ? ctx.probe.get("hft.marketTime") : r;
}

/** `serverTime` (Spot), or the v5 `timeNano` / `timeSecond` / envelope `time`. */
function serverTimeOf(body: unknown): number | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.serverTime === "number") return b.serverTime;
  const r = (b.result ?? {}) as Record<string, unknown>;
  if (typeof r.timeNano === "string") return Math.floor(Number(r.timeNano) / 1e6);
  if (typeof r.timeSecond === "string") return Number(r.timeSecond) * 1000;
  return typeof b.time === "number" ? b.time : undefined;
}

const REGISTER =
  "register this public key (hftgate keygen's apiKey) with CoinSwitch, or set the matching secret in HFTGATE_SECRET_KEY";

async function key(ctx: PreflightContext): Promise<Outcome> {
  const c = ctx.config;
  const r = spotHost(c)
    ? await ctx.probe.get("spot.validateKeys")
    : await ctx.probe.get("hft.positions", [["category", "linear"]]);
  const data = { status: r.status };
  if (r.status === 401)
    return {
      status: "fail",
      detail: `the venue refused the signature (HTTP 401: ${venueText(r.body) || "no text"})`,
      fix: REGISTER,
      data,
    };
  if (r.status >= 400)
    return {
      status: "fail",
      detail: `signed GET answered HTTP ${r.status}: ${venueText(r.body)}`,
      fix: "check the venue URL and the IP allowlist of the key",
      data,
    };
  return {
    status: "pass",
    detail: `a signed GET was accepted (API key ${ctx.probe.apiKey.slice(0, 8)}…)`,
    data,
  };
}

async function instruments(ctx: PreflightContext): Promise<Outcome> {
  const c = ctx.config;
  const counts: Record<string, number> = {};
  const problems: string[] = [];
  const count = (rows: unknown): number =>
    Array.isArray(rows)
      ? rows.length
      : rows !== null && typeof rows === "object"
        ? Object.keys(rows).length
        : 0;
  if (has(c, "spot")) {
    for (const ex of c.venue.spotExchanges) {
      const r = await ctx.probe.get("spot.tradeInfo", [["exchange", ex]]);
      const data = (r.body as { data?: Record<string, unknown> } | undefined)?.data;
      counts[`spot:${ex}`] = count(data?.[ex]);
      if (r.status !== 200) problems.push(`Spot ${ex}: HTTP ${r.status} ${venueText(r.body)}`);
    }
  }
  if (has(c, "hft")) {
    for (const cat of c.venue.hftCategories) {
      const r = await ctx.probe.get("hft.instruments", [["category", cat]]);
      const o = v5Outcome(r.status, r.body);
      counts[`hft:${cat}`] = count((r.body as { result?: { list?: unknown } } | undefined)?.result?.list);
      if (!o.ok) problems.push(`HFT ${cat}: ${o.why}`);
    }
  }
  if (has(c, "futures")) {
    const r = await ctx.probe.get("futures.instruments", [["exchange", "EXCHANGE_2"]]);
    counts.futures = count((r.body as { data?: unknown } | undefined)?.data);
    if (r.status !== 200) problems.push(`Futures: HTTP ${r.status} ${venueText(r.body)}`);
  }
  const summary = Object.entries(counts)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  const empty = Object.entries(counts)
    .filter(([, n]) => n === 0)
    .map(([k]) => k);
  if (problems.length > 0)
    return {
      status: "fail",
      detail: problems.join("; "),
      fix: "check venue.spotExchanges / venue.hftCategories and the key's access",
      data: counts,
    };
  if (empty.length > 0)
    return {
      status: "fail",
      detail: `no instruments for ${empty.join(", ")} (${summary})`,
      fix: "remove the empty exchange or category from the configuration",
      data: counts,
    };
  return { status: "pass", detail: summary, data: counts };
}

const HFT_FIX =
  "HFT needs an HFT account for the key (the venue opens it at the first funds transfer to HFT) and the host's IP on the key's allowlist; or remove hft from venue.surfaces";

async function hft(ctx: PreflightContext): Promise<Outcome> {
  const r = await ctx.probe.get("hft.realtime", [
    ["category", "linear"],
    ["limit", "1"],
  ]);
  const o = v5Outcome(r.status, r.body);
  if (o.ok) return { status: "pass", detail: "a signed HFT read (open orders, linear) was accepted" };
  ctx.hftRefused = true;
  return { status: "fail", detail: `HFT refused the key (${o.why})`, fix: HFT_FIX };
}

async function options(ctx: PreflightContext): Promise<Outcome> {
  const wanted = ctx.config.venue.hftCategories.includes("option");
  if (ctx.hftRefused)
    return {
      status: wanted ? "fail" : "skip",
      detail: "not tried: HFT refused the key (see hft)",
      fix: HFT_FIX,
    };
  const r = await ctx.probe.get("hft.realtime", [
    ["category", "option"],
    ["limit", "1"],
  ]);
  const o = v5Outcome(r.status, r.body);
  if (o.ok)
    return {
      status: "pass",
      detail: "the key is on the options allowlist (a signed options read was accepted)",
    };
  // The code the gateway reads as "not allowlisted" (src/rest/errors.ts isNotAllowlisted).
  const listed = retCodeOf(r.body) === V5_RET.NOT_ALLOWLISTED;
  const why = `${listed ? "not on the options allowlist" : "options read refused"} (${o.why})`;
  return wanted
    ? {
        status: "fail",
        detail: why,
        fix: "ask CoinSwitch (api@coinswitch.co) to allowlist the key for options, or remove option from venue.hftCategories",
      }
    : { status: "skip", detail: `${why}; venue.hftCategories has no option, nothing to do` };
}

async function futures(ctx: PreflightContext): Promise<Outcome> {
  const r = await ctx.probe.get("futures.openOrders", [
    ["exchange", "EXCHANGE_2"],
    ["limit", "1"],
  ]);
  if (r.status === 200) return { status: "pass", detail: "a signed Futures read (open orders) was accepted" };
  return {
    status: "fail",
    detail: `Futures refused the key or the path (HTTP ${r.status}: ${venueText(r.body)})`,
    fix: "enable Futures for the key at CoinSwitch, or remove futures from venue.surfaces",
  };
}

async function spotStream(ctx: PreflightContext): Promise<Outcome> {
  const t = await trySpotSocket(ctx.streamUrl, ctx.probe.apiKey, ctx.timeoutMs);
  switch (t.outcome) {
    case "subscribed":
      return { status: "pass", detail: "order-updates subscription with the API key acknowledged" };
    case "silent":
      return {
        status: "warn",
        detail: "connected and subscribed; the venue sent no acknowledgement (it documents none)",
        fix: "after start, watch the spot.orders stream on /health: it must be up",
      };
    case "refused":
      return { status: "fail", detail: `subscription refused: ${t.message}`, fix: REGISTER };
    case "unreachable":
      return {
        status: "fail",
        detail: `Socket.IO connect failed: ${t.message}`,
        fix: "check venue.streamUrl and outbound WebSocket",
      };
  }
}

async function hftStream(ctx: PreflightContext): Promise<Outcome> {
  const c = ctx.config;
  const url = ctx.natsUrl;
  if (url === undefined)
    return {
      status: "fail",
      detail: "no NATS URL for the HFT streams",
      fix: "set streams.hftNats.url, or streams.hftNats.enabled=false (HFT then polls)",
    };
  let cred: SocketCredential;
  try {
    const r = await ctx.probe.get("hft.socketSignature", [["expires_in_seconds", "300"]]);
    const body = r.body as Record<string, unknown> | undefined;
    const code = retCodeOf(body);
    if (r.status !== 200 || (code !== undefined && code !== 0))
      return {
        status: "fail",
        detail: `GET /dma/api/v1/socket/signature refused (${v5Outcome(r.status, body).why})`,
        fix: HFT_FIX,
      };
    // The credential answer is a bare object [docs]; an envelope is read too.
    cred = parseCredential(code === 0 ? body?.result : body);
  } catch (e) {
    return {
      status: "fail",
      detail: `no socket credential (GET /dma/api/v1/socket/signature): ${errText(e)}`,
      fix: HFT_FIX,
    };
  }
  const accepted: NatsAuthMode[] = [];
  const tried: Record<string, string> = {};
  const configured = c.streams.hftNats.auth;
  const order = [configured, ...NATS_AUTH_MODES.filter((m) => m !== configured)];
  // The account's own subject when its id is configured, else the wildcard the gateway learns it on.
  const subject = privateSubjects(c.streams.hftNats.subAccountId)[0]!;
  for (const mode of order) {
    const t = await tryNatsConnect(url, connectFields(mode, cred), ctx.timeoutMs, subject);
    tried[mode] = t.outcome;
    if (t.outcome === "accepted") accepted.push(mode);
    if (t.outcome === "unreachable")
      return {
        status: "fail",
        detail: `NATS at ${url} not reachable: ${t.message}`,
        fix: "check streams.hftNats.url and outbound WebSocket",
        data: { tried },
      };
  }
  const pub = await tryNatsConnect(url, {}, ctx.timeoutMs);
  const data = { accepted, tried, publicWithoutCredential: pub.outcome === "accepted" };
  const pubNote =
    pub.outcome === "accepted"
      ? "; public subjects open without a credential"
      : "; a connection without a credential was refused (public market data needs one)";
  if (accepted.includes(configured))
    return {
      status: "pass",
      detail: `credential accepted with streams.hftNats.auth=${configured}${pubNote}`,
      data,
    };
  if (accepted.length > 0)
    return {
      status: "fail",
      detail: `the server refused streams.hftNats.auth=${configured} and accepted ${accepted.join(", ")}${pubNote}`,
      fix: `set streams.hftNats.auth=${accepted[0]} (${envName("streams.hftNats.auth")}=${accepted[0]})`,
      data,
    };
  const denied = order.filter((m) => tried[m] === "denied");
  if (denied.length > 0)
    return {
      status: "fail",
      detail: `connected under ${denied.join(", ")}, but the private subject ${subject} was refused: an anonymous connection (the mapping is not the venue's) or a subscription the venue does not allow`,
      fix:
        c.streams.hftNats.subAccountId === ""
          ? "set streams.hftNats.subAccountId to the account's HFT sub-account id (the wildcard may be refused) and run preflight again"
          : "the venue presents the credential another way: set streams.hftNats.enabled=false (HFT polls) and report it",
      data,
    };
  return {
    status: "fail",
    detail: `the server refused the credential under every mapping (${NATS_AUTH_MODES.join(", ")})`,
    fix: "check the key's HFT access; if it has it, the venue presents the credential another way: set streams.hftNats.enabled=false (HFT polls) and report it",
    data,
  };
}

async function rateLimits(ctx: PreflightContext): Promise<Outcome> {
  const seen = [...ctx.probe.rateHeaders].sort();
  if (seen.length > 0)
    return { status: "pass", detail: `rate-limit headers seen: ${seen.join(", ")}`, data: { headers: seen } };
  return {
    status: "warn",
    detail: "no rate-limit headers on any answer: the gateway's limiter runs on its own table",
    fix: "nothing to change; the buckets are in docs/reliability.md (limits)",
    data: { headers: seen },
  };
}

async function journal(ctx: PreflightContext): Promise<Outcome> {
  const c = ctx.config;
  if (!c.journal.enabled)
    return {
      status: "warn",
      detail: "journal.enabled is false: a restart cannot tell strategies what happened",
      fix: "journal.enabled=true",
    };
  const dir = expandJournalDir(c.journal.dir, c.venue.kind, c.venue.spotBaseUrl);
  const owner = liveOwner(join(dir, JOURNAL_LOCK));
  const running =
    owner !== undefined
      ? `; a gateway runs on it (pid ${owner.pid}${owner.port !== undefined ? `, port ${owner.port}` : ""})`
      : "";
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f !== JOURNAL_LOCK).length : 0;
  const detail = `${dir} (${files > 0 ? `${files} entries` : "empty or new"})${running}`;
  const data = { dir, entries: files, running: owner !== undefined };
  if (!c.journal.dir.includes(VENUE_PLACEHOLDER))
    return {
      status: "warn",
      detail: `${detail}; journal.dir has no {venue}`,
      fix: "use var/journal/{venue}, so the simulator's and each venue's journals never share a directory (a foreign journal refuses the start)",
      data,
    };
  return { status: "pass", detail, data };
}

const streamsOn = (c: Config): boolean => c.streams.enabled;

export const CHECKS: readonly CheckDef[] = [
  {
    id: "clock",
    title: "clock offset and round trip",
    required: () => true,
    run: clock,
    verifies: ["clock-drift", "hft-time"],
  },
  { id: "key", title: "the key signs and is accepted", required: () => true, run: key, verifies: [] },
  {
    id: "instruments",
    title: "instruments load",
    required: () => true,
    run: instruments,
    verifies: ["hft-market-signed", "v5-records", "spot-records", "futures-api"],
  },
  {
    id: "hft",
    title: "HFT entitlement",
    required: (c) => has(c, "hft"),
    skip: (c) => (has(c, "hft") ? undefined : "hft is not in venue.surfaces"),
    run: hft,
    verifies: ["hft-entitlement"],
  },
  {
    id: "options",
    title: "options allowlist",
    required: (c) => has(c, "hft") && c.venue.hftCategories.includes("option"),
    skip: (c) => (has(c, "hft") ? undefined : "hft is not in venue.surfaces"),
    run: options,
    verifies: ["options-allowlist"],
  },
  {
    id: "futures",
    title: "Futures entitlement",
    required: (c) => has(c, "futures"),
    skip: (c) => (has(c, "futures") ? undefined : "futures is not in venue.surfaces"),
    run: futures,
    verifies: ["futures-api"],
  },
  {
    id: "spotStream",
    title: "Spot Socket.IO auth",
    required: (c) => has(c, "spot") && streamsOn(c),
    skip: (c) =>
      !has(c, "spot")
        ? "spot is not in venue.surfaces"
        : !streamsOn(c)
          ? "streams.enabled is false"
          : undefined,
    run: spotStream,
    verifies: ["spot-streams"],
  },
  {
    id: "hftStream",
    title: "HFT NATS credential and auth mapping",
    required: (c) => has(c, "hft") && streamsOn(c) && c.streams.hftNats.enabled,
    skip: (c) =>
      !has(c, "hft")
        ? "hft is not in venue.surfaces"
        : !streamsOn(c) || !c.streams.hftNats.enabled
          ? "streams.hftNats.enabled is false (HFT polls)"
          : undefined,
    run: hftStream,
    verifies: ["nats-auth", "nats-credential", "nats-public"],
  },
  {
    id: "journal",
    title: "the journal directory of this venue",
    required: () => false,
    run: journal,
    verifies: [],
  },
  {
    id: "rateLimits",
    title: "rate-limit headers seen",
    required: () => false,
    run: rateLimits,
    verifies: [],
  },
];

/** The checks whose pass confirms a venue fact (an id of assumptions.ts). */
export function verifiedBy(id: string): string[] {
  return CHECKS.filter((c) => c.verifies.includes(id)).map((c) => c.id);
}
