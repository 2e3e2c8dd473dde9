/**
 * The preflight checks as a table: each one's id, what it looks at, when it is required (from the
 * configuration) and how it runs. They run in this order and share what they learn (the clock offset
 * that signs the later requests, whether the venue answered at all, the HFT refusal). Every request is
 * a read (VenueProbe refuses anything but GET); a check never retries and never writes.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/load.js";
import { JOURNAL_LOCK } from "../engine/journalGate.js";
import { expandJournalDir, VENUE_PLACEHOLDER } from "../journal/identity.js";
import { liveOwner } from "../journal/lock.js";
import { type CheckDef, has, type Outcome, type PreflightContext } from "./context.js";
import { hftStream, spotStream } from "./streamChecks.js";
import { clock, futures, hft, instruments, key, options } from "./venueChecks.js";

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
