/**
 * Shared pieces of the operations scenarios (test/chaos/operations.*.test.ts): a process rig with the
 * scenarios' knobs, resting prices nothing trades against, the journal read back (who placed which
 * client id, the notes), and /health.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { request } from "undici";
import { readJournal } from "../../../src/journal/index.js";
import type { JournalRecord } from "../../../src/journal/records.js";
import { type ProcessRig, startProcessRig } from "./processRig.js";
import type { SimProcess } from "./simProcess.js";
import type { newKeys } from "./venue.js";

/** Resting prices (ticks): nothing trades against them (no counterparty, no synthetic market). */
export const REST = { spot: 5_295_000, hft: 319_000 };
export const LOTS = { spot: 100, hft: 5 };

type Sections = Record<string, Record<string, unknown>>;

/** `hftgate start` against the simulator process, with `shutdown.timeoutMs` = `stopBudgetMs`. */
export function startOpsRig(
  sim: SimProcess,
  keys: ReturnType<typeof newKeys>,
  prefix: string,
  stopBudgetMs: number,
  extra: (base: Sections) => Sections = () => ({}),
): Promise<ProcessRig> {
  return startProcessRig(
    { baseUrl: sim.baseUrl, keys },
    {
      prefix,
      config: (base) => ({
        ...base,
        shutdown: { timeoutMs: stopBudgetMs },
        risk: { maxOpenOrdersPerInstrument: 5_000, maxOpenOrdersPerSession: 5_000 },
        log: { level: "info", pretty: "false" },
        ...extra(base),
      }),
    },
  );
}

function records(dir: string): JournalRecord[] {
  const out: JournalRecord[] = [];
  for (const f of readdirSync(dir).sort())
    if (f.endsWith(".hgj") || f.endsWith(".ndjson")) out.push(...readJournal(join(dir, f)).records);
  return out;
}

/** Client id -> the session that placed it and its order number, from the journal's new-order commands. */
export function journalOwners(dir: string): Map<string, { session: string; clOrdNo: number }> {
  const out = new Map<string, { session: string; clOrdNo: number }>();
  for (const r of records(dir)) {
    if (r.k !== "cmd" || r.op !== "new" || !r.clientId) continue;
    const m = /(?:^|;)no=(\d+)/.exec(r.reason ?? "");
    if (m) out.set(r.clientId, { session: r.session, clOrdNo: Number(m[1]) });
  }
  return out;
}

/** Every note the journal holds, in order. */
export function journalNotes(dir: string): string[] {
  return records(dir).flatMap((r) => (r.k === "note" ? [r.text] : []));
}

export async function health(httpUrl: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await request(`${httpUrl}/health`);
  return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown> };
}

/** The gateway's log lines matching `re` (HFTGATE_OPS_DEBUG=1 prints them to stderr). */
export function debugLog(rig: ProcessRig, re: RegExp): void {
  if (process.env.HFTGATE_OPS_DEBUG !== "1") return;
  process.stderr.write(
    `${rig.gp.output
      .split("\n")
      .filter((l) => re.test(l))
      .join("\n")}\n`,
  );
}
