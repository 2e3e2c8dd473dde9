import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { e2eRunsCli, formatRows, summarizeE2eRuns } from "../../bench/lib/e2eRuns.js";

/** A result document as bench/run.ts writes it, with the e2e runs given. */
function doc(runs: { layout: string; vs?: Record<string, number> }[]): unknown {
  return {
    measuredAt: "2026-11-28T00:00:00.000Z",
    results: { e2e: { runs: runs.map((r) => ({ layout: r.layout, vs_bare_sync_same_driver: r.vs })) } },
  };
}
const ONE = "all on vCPU 0";
const OWN = "gateway on vCPU 1; strategy and exchange on vCPU 0";

describe("e2e runs summarized", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("gives each goal's lowest, median and highest over the runs and how many met it, by placement", () => {
    const docs = [
      doc([
        { layout: ONE, vs: { p50: 1.5, cancel_p50: 1.2 } },
        { layout: OWN, vs: { p50: 1.1, cpu_per_order: 1.2 } },
      ]),
      doc([{ layout: ONE, vs: { p50: 1.25, cancel_p50: 1.4 } }]),
      doc([{ layout: ONE, vs: { p50: 1.4, cancel_p50: 1.3 } }]),
      doc([{ layout: ONE, vs: { p50: 1.6 } }]),
      { results: { rest: {} } },
    ];
    const rows = summarizeE2eRuns(docs);
    // No run carries p99 figures: no row for them. The own-vCPU p50 is not a one-vCPU figure.
    expect(rows.map((r) => r.label)).toEqual([
      "create p50, one vCPU",
      "cancel p50, one vCPU",
      "CPU per order, own vCPU",
    ]);
    expect(rows[0]).toEqual({
      label: "create p50, one vCPU",
      runs: 4,
      min: 1.25,
      median: 1.45,
      max: 1.6,
      goal: 1.3,
      met: 1,
    });
    expect(rows[1]).toMatchObject({ runs: 3, min: 1.2, median: 1.3, max: 1.4, met: 2 });
    expect(rows[2]).toMatchObject({ runs: 1, median: 1.2, goal: 1.5, met: 1 });
    expect(formatRows(rows)[2]).toBe(
      "| create p50, one vCPU | 4 | 1.25× | 1.45× | 1.60× | ≤ 1.3× | 1 of 4 |",
    );
  });

  it("reads the runs' directories, leaves out one without results, and fails when none has a comparison", () => {
    const root = mkdtempSync(join(tmpdir(), "e2eruns-"));
    dirs.push(root);
    for (const [name, p50] of [
      ["a", 1.35],
      ["b", 1.29],
    ] as const) {
      mkdirSync(join(root, name));
      writeFileSync(
        join(root, name, "partial-e2e.json"),
        JSON.stringify(doc([{ layout: ONE, vs: { p50 } }])),
      );
    }
    mkdirSync(join(root, "empty"));
    const r = e2eRunsCli([join(root, "a"), join(root, "b"), join(root, "empty")]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("| create p50, one vCPU | 2 | 1.29× | 1.32× | 1.35× | ≤ 1.3× | 1 of 2 |");
    expect(r.err).toContain("empty: no partial-e2e.json or latest.json, left out");
    const none = e2eRunsCli([join(root, "empty")]);
    expect(none.code).toBe(2);
    expect(none.out).toBe("");
    expect(none.err).toContain("no e2e runs with a same-driver comparison in 1 directory");
  });
});
