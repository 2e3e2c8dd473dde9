/**
 * Result collector: each scenario records one row; the suite prints the table at the end (and, when
 * HFTGATE_CHAOS_RESULTS names a file, writes the rows there as JSON for docs/chaos.md).
 */
import { writeFileSync } from "node:fs";

export interface ScenarioRow {
  scenario: string;
  /** Orders the strategy placed. */
  orders: number;
  /** Faults that actually fired (request faults, stream faults, cuts, skew changes, kills, bad frames). */
  faults: number;
  lost: number;
  duplicated: number;
  /** Orders whose final status or filled qty differ between gateway and venue. */
  mismatched: number;
  note?: string;
}

const rows: ScenarioRow[] = [];

export function record(row: ScenarioRow): void {
  rows.push(row);
}

export function collected(): readonly ScenarioRow[] {
  return rows;
}

export function renderTable(list: readonly ScenarioRow[] = rows): string {
  const head = ["scenario", "orders", "faults injected", "lost", "duplicated", "mismatched"];
  const body = list.map((r) => [
    r.scenario,
    String(r.orders),
    String(r.faults),
    String(r.lost),
    String(r.duplicated),
    String(r.mismatched),
  ]);
  const total = [
    `total (${list.length} scenarios)`,
    String(list.reduce((a, r) => a + r.orders, 0)),
    String(list.reduce((a, r) => a + r.faults, 0)),
    String(list.reduce((a, r) => a + r.lost, 0)),
    String(list.reduce((a, r) => a + r.duplicated, 0)),
    String(list.reduce((a, r) => a + r.mismatched, 0)),
  ];
  const all = [head, ...body, total];
  const w = head.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    `| ${r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join(" | ")} |`;
  const sep = `|${w.map((n, i) => (i === 0 ? `${"-".repeat(n + 2)}` : `${"-".repeat(n + 1)}:`)).join("|")}|`;
  return [line(head), sep, ...body.map(line), line(total)].join("\n");
}

/** Prints the table (and writes the JSON rows when asked). Called from the suite's afterAll. */
export function report(): void {
  if (rows.length === 0) return;
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.scenario}: ${r.note}`);
  process.stdout.write(
    `\nchaos suite results\n${renderTable()}\n${notes.length ? `notes:\n${notes.join("\n")}\n` : ""}`,
  );
  const out = process.env.HFTGATE_CHAOS_RESULTS;
  if (out) writeFileSync(out, `${JSON.stringify(rows, null, 2)}\n`);
}
