/**
 * The dependency rules of biome.jsonc (docs/architecture.md) still fire: the project's own config
 * linted over a small probe tree in a temp directory, one file per rule breaking it and one per rule
 * keeping it. (`npm run check` proves the real tree obeys them; this proves they can fail.)
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const BIOME = join(ROOT, "node_modules", "@biomejs", "biome", "bin", "biome");

const PROBE: Record<string, string> = {
  // leaves the rules allow
  "src/engine/e.ts": "export const e = 1;\n",
  "src/gateway/g.ts": "export const g = 1;\n",
  "src/util/decimal.ts": "export const d = 1;\n",
  "src/orders/ok.ts": 'import { d } from "../util/decimal.js";\nexport const ok = d;\n',
  "sim/index.ts": 'import { d } from "../src/util/decimal.js";\nexport const s = d;\n',
  "sim/inner.ts": "export const inner = 1;\n",
  "src/engine/embeddedVenue.ts": 'import { s } from "../../sim/index.js";\nexport const v = s;\n',
  "test/e2e/ok.test.ts": 'import { s } from "../../sim/index.js";\nexport const t = s;\n',
  // each breaks one rule
  "src/util/layer.ts": 'import { e } from "../engine/e.js";\nexport const l = e;\n',
  "src/auth/layer.ts": 'import { g } from "../gateway/g.js";\nexport const l = g;\n',
  "src/engine/usesSim.ts": 'import { s } from "../../sim/index.js";\nexport const u = s;\n',
  "sim/usesEngine.ts": 'import { e } from "../src/engine/e.js";\nexport const u = e;\n',
  "test/e2e/inside.test.ts": 'import { inner } from "../../sim/inner.js";\nexport const t = inner;\n',
  "src/orders/cycleA.ts": 'import type { B } from "./cycleB.js";\nexport type A = { b?: B };\n',
  "src/orders/cycleB.ts": 'import type { A } from "./cycleA.js";\nexport type B = { a?: A };\n',
};

let dir = "";
let found: { path: string; rule: string }[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "hftgate-rules-"));
  copyFileSync(join(ROOT, "biome.jsonc"), join(dir, "biome.jsonc"));
  for (const [path, text] of Object.entries(PROBE)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const r = spawnSync(
    process.execPath,
    [BIOME, "lint", "--vcs-enabled=false", "--reporter=json", "--max-diagnostics=200", "."],
    { cwd: dir, encoding: "utf8" },
  );
  const report = JSON.parse(r.stdout) as {
    diagnostics: { category: string; location: { path: string } }[];
  };
  found = report.diagnostics
    .filter((d) => /noRestrictedImports|noImportCycles/.test(d.category))
    .map((d) => ({ path: d.location.path, rule: d.category.split("/").pop()! }));
});
afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

describe("dependency rules (biome.jsonc)", () => {
  it("fire on every probe that breaks one, and on nothing else", () => {
    const byFile = [...new Set(found.map((f) => `${f.path} ${f.rule}`))].sort();
    expect(byFile).toEqual([
      "sim/usesEngine.ts noRestrictedImports",
      "src/auth/layer.ts noRestrictedImports",
      "src/engine/usesSim.ts noRestrictedImports",
      "src/orders/cycleA.ts noImportCycles",
      "src/orders/cycleB.ts noImportCycles",
      "src/util/layer.ts noRestrictedImports",
      "test/e2e/inside.test.ts noRestrictedImports",
    ]);
  });
});
