/**
 * The table of assumed venue facts (src/preflight/assumptions.ts, printed in docs/going-live.md) is
 * complete and true: every `[assumed]` mark in README.md, docs/*.md, PROTOCOL.md and the code under
 * src/ and sim/ falls under a row, every row still has a mark, every `assumed` endpoint of the REST
 * catalogue is a row's, every knob a row names is in the config schema, every preflight check's
 * `verifies` names a row, and docs/going-live.md holds the table exactly as the code renders it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { KNOBS } from "../../src/config/schema.js";
import { ASSUMPTIONS, assumptionTable } from "../../src/preflight/assumptions.js";
import { CHECKS, verifiedBy } from "../../src/preflight/checks.js";
import { ENDPOINT_ROWS } from "../../src/rest/catalogue.js";

const ROOT = join(import.meta.dirname, "..", "..");
const GUIDE = "docs/going-live.md";

function files(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p, ext));
    else if (ext.test(e.name)) out.push(p);
  }
  return out;
}

/** Lines that speak about the convention itself ("marked [assumed]"), not about a venue fact. */
const CONVENTION = /\bmark(s|ed)?( it)?\b[^.]{0,40}\[assumed/i;

interface Mark {
  where: string;
  text: string;
}

/** Every `[assumed…]` mark with its line and the lines either side. */
function marks(): Mark[] {
  const sources = [
    "README.md",
    ...files("docs", /\.md$/).filter((f) => f !== GUIDE),
    "src/protocol/PROTOCOL.md",
    ...files("src", /\.ts$/),
    ...files("sim", /\.ts$/),
  ].filter((f) => f !== "src/preflight/assumptions.ts");
  const out: Mark[] = [];
  for (const f of sources) {
    const lines = readFileSync(join(ROOT, f), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (!/\[assumed/i.test(line) || CONVENTION.test(line)) return;
      out.push({
        where: `${relative(ROOT, join(ROOT, f))}:${i + 1}`,
        text: lines.slice(Math.max(0, i - 1), i + 2).join(" "),
      });
    });
  }
  return out;
}

describe("the table of assumed venue facts", () => {
  const all = marks();

  it("covers every [assumed] mark in the docs and the code", () => {
    expect(all.length).toBeGreaterThan(200);
    const uncovered = all.filter((m) => !ASSUMPTIONS.some((a) => a.marks.some((re) => re.test(m.text))));
    expect(uncovered.map((m) => `${m.where}: ${m.text.trim().slice(0, 160)}`)).toEqual([]);
  });

  it("has no row without a mark, and unique ids", () => {
    const stale = ASSUMPTIONS.filter((a) => !all.some((m) => a.marks.some((re) => re.test(m.text))));
    expect(stale.map((a) => a.id)).toEqual([]);
    expect(new Set(ASSUMPTIONS.map((a) => a.id)).size).toBe(ASSUMPTIONS.length);
  });

  it("covers every endpoint the REST catalogue flags as assumed", () => {
    const covered = new Set(ASSUMPTIONS.flatMap((a) => a.endpoints ?? []));
    const assumed = ENDPOINT_ROWS.filter((r) => r.assumed === true).map((r) => r.id);
    expect(assumed.length).toBeGreaterThan(0);
    expect(assumed.filter((id) => !covered.has(id))).toEqual([]);
    const known = new Set(ENDPOINT_ROWS.map((r) => r.id as string));
    expect([...covered].filter((id) => !known.has(id))).toEqual([]);
  });

  it("names only knobs of the config schema, and checks that verify a row", () => {
    const knobs = new Set(KNOBS.map((k) => k.path));
    const missing = ASSUMPTIONS.flatMap((a) =>
      a.knobs.filter((k) => !knobs.has(k)).map((k) => `${a.id}: ${k}`),
    );
    expect(missing).toEqual([]);
    const ids = new Set(ASSUMPTIONS.map((a) => a.id));
    const unknown = CHECKS.flatMap((c) => c.verifies.filter((v) => !ids.has(v)).map((v) => `${c.id}: ${v}`));
    expect(unknown).toEqual([]);
  });

  it("is printed in docs/going-live.md exactly as `hftgate preflight --assumptions` prints it", () => {
    const guide = readFileSync(join(ROOT, GUIDE), "utf8");
    expect(guide).toContain(assumptionTable(verifiedBy));
  });
});
