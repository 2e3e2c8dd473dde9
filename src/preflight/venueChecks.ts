/**
 * The preflight checks of the REST surfaces: the clock (offset, round trip), the key, the instruments,
 * and the entitlements per surface (HFT, the options allowlist, Futures). Reads only.
 */
import { V5_RET } from "../venue/hft/retCodes.js";
import {
  errText,
  HFT_FIX,
  has,
  type Outcome,
  type PreflightContext,
  REGISTER,
  spotHost,
  v5Outcome,
} from "./context.js";
import { type ProbeAnswer, retCodeOf, venueText } from "./probe.js";

export async function clock(ctx: PreflightContext): Promise<Outcome> {
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

export async function key(ctx: PreflightContext): Promise<Outcome> {
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

export async function instruments(ctx: PreflightContext): Promise<Outcome> {
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

export async function hft(ctx: PreflightContext): Promise<Outcome> {
  const r = await ctx.probe.get("hft.realtime", [
    ["category", "linear"],
    ["limit", "1"],
  ]);
  const o = v5Outcome(r.status, r.body);
  if (o.ok) return { status: "pass", detail: "a signed HFT read (open orders, linear) was accepted" };
  ctx.hftRefused = true;
  return { status: "fail", detail: `HFT refused the key (${o.why})`, fix: HFT_FIX };
}

export async function options(ctx: PreflightContext): Promise<Outcome> {
  const wanted = ctx.config.venue.hftCategories.includes("option");
  if (ctx.hftRefused) {
    const detail = "not tried: HFT refused the key (see hft)";
    return wanted ? { status: "fail", detail, fix: HFT_FIX } : { status: "skip", detail };
  }
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

export async function futures(ctx: PreflightContext): Promise<Outcome> {
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
