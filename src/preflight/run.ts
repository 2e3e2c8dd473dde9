/**
 * `runPreflight(config)`: the checks of checks.ts against the configured venue, in order, each one
 * caught on its own (a check that throws fails, the next one still runs), then the report. Venue `sim`
 * starts the embedded simulator for the run (the same start-up step as the gateway's), so the checks
 * can be seen passing before a key exists; venue `exchange` reaches the real hosts with the keys.
 */
import pino from "pino";
import type { Config } from "../config/load.js";
import type { EmbeddedVenueOptions } from "../engine/embeddedVenue.js";
import { startVenue, type VenueStart } from "../engine/startVenue.js";
import type { EndpointId } from "../rest/catalogue.js";
import { CHECKS } from "./checks.js";
import type { PreflightContext } from "./context.js";
import { VenueProbe } from "./probe.js";
import { type CheckResult, type PreflightReport, shortKey, verdict } from "./report.js";

export interface PreflightOptions {
  /** Per request and per connection attempt (ms). Default 5,000. */
  timeoutMs?: number;
  /** Venue `sim` only: extra simulator options. */
  sim?: EmbeddedVenueOptions;
}

function errText(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").slice(0, 300);
}

export async function runPreflight(config: Config, o: PreflightOptions = {}): Promise<PreflightReport> {
  const timeoutMs = o.timeoutMs ?? 5_000;
  const cleanups: (() => Promise<void> | void)[] = [];
  const log = pino({ level: "silent" });
  let v: VenueStart;
  try {
    v = await startVenue(config, o.sim, log, cleanups);
  } catch (e) {
    await runCleanups(cleanups);
    const keys: CheckResult = {
      id: "keys",
      title: "the keys load",
      status: "fail",
      required: true,
      // StartupError words the key problem without the value (src/auth/keys.ts).
      detail: errText(e),
      fix: "set HFTGATE_SECRET_KEY to the secretKey that `hftgate keygen` printed (64 hex characters)",
      verifies: [],
    };
    return {
      venue: config.venue.kind,
      spotBaseUrl: config.venue.spotBaseUrl,
      hftBaseUrl: config.venue.hftBaseUrl,
      apiKey: "(none)",
      checks: [keys],
      ok: false,
      requests: [],
    };
  }
  const overrides: Partial<Record<EndpointId, string>> = {
    "hft.cancelOrder": config.venue.hftCancelPath,
    "hft.amendOrder": config.venue.hftAmendPath,
    "futures.cancelOrder": config.venue.futuresCancelPath,
  };
  const probe = new VenueProbe({
    keys: v.keys,
    spotBaseUrl: v.spotBase,
    hftBaseUrl: v.hftBase,
    timeoutMs,
    pathOverrides: overrides,
  });
  const ctx: PreflightContext = {
    config,
    probe,
    streamUrl: v.streamBase,
    natsUrl: v.hftNatsUrl,
    timeoutMs,
    reachable: false,
  };
  const checks: CheckResult[] = [];
  try {
    for (const def of CHECKS) {
      const base = { id: def.id, title: def.title, required: def.required(config), verifies: def.verifies };
      const skip = def.skip?.(config);
      if (skip !== undefined) {
        checks.push({ ...base, required: false, status: "skip", detail: skip });
        continue;
      }
      if (def.id !== "clock" && !ctx.reachable) {
        checks.push({ ...base, status: "skip", detail: "the venue did not answer (see clock)" });
        continue;
      }
      try {
        checks.push({ ...base, ...(await def.run(ctx)) });
      } catch (e) {
        checks.push({ ...base, status: "fail", detail: `check failed: ${errText(e)}` });
      }
    }
  } finally {
    await probe.close();
    await runCleanups(cleanups);
  }
  // A skipped required check (venue unreachable) is not a pass.
  const final = checks.map((c) =>
    c.required && c.status === "skip" && !ctx.reachable ? { ...c, status: "fail" as const } : c,
  );
  return {
    venue: config.venue.kind,
    spotBaseUrl: v.spotBase,
    hftBaseUrl: v.hftBase,
    apiKey: shortKey(v.keys.apiKey),
    checks: final,
    ok: verdict(final),
    requests: [...probe.sent],
  };
}

async function runCleanups(cleanups: (() => Promise<void> | void)[]): Promise<void> {
  for (const c of cleanups.reverse()) {
    try {
      await c();
    } catch {
      // stopping what preflight started: nothing to report
    }
  }
}
