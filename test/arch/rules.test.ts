/**
 * The dependency rules of biome.jsonc (docs/architecture.md) still fire: the project's own config
 * linted over a small probe tree in a temp directory, one file per rule breaking it and one per rule
 * keeping it. (`npm run check` proves the real tree obeys them; this proves they can fail.)
 */
import { beforeAll, describe, expect, it } from "vitest";
import { byFile, type Finding, lintProbe } from "./lintProbe.js";

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

// The layer rules: each base layer, the venue sync and market data against the folders above them,
// the CLI's commands against everyone but the CLI, and the simulator still refused where a later
// override replaces an earlier one's patterns.
const LAYER_PROBE: Record<string, string> = {
  "src/engine/e.ts": "export const e = 1;\n",
  "src/gateway/g.ts": "export const g = 1;\n",
  "src/commands/c.ts": "export const c = 1;\n",
  "src/commands/index.ts": 'import { c } from "./c.js";\nexport const index = c;\n',
  "src/commands/start.ts": 'import { e } from "../engine/e.js";\nexport const start = e;\n',
  // the CLI may import the commands (not flagged) but not the simulator (flagged once)
  "src/cli.ts":
    'import { index } from "./commands/index.js";\nimport { s } from "../sim/index.js";\nexport const cli = index + s;\n',
  "src/orders/ok.ts": "export const ok = 1;\n",
  "src/venue/ok.ts":
    'import { ok } from "../orders/ok.js";\nimport { g } from "../gateway/g.js";\nexport const v = ok + g;\n',
  "src/venue/hft/ok.ts": 'import { ok } from "../../orders/ok.js";\nexport const h = ok;\n',
  "src/streams/ok.ts": 'import { g } from "../gateway/g.js";\nexport const s = g;\n',
  "sim/index.ts": "export const s = 1;\n",
  // each breaks one rule
  "src/clock/usesEngine.ts": 'import { e } from "../engine/e.js";\nexport const u = e;\n',
  "src/rest/usesGateway.ts": 'import { g } from "../gateway/g.js";\nexport const u = g;\n',
  "src/journal/usesCommands.ts": 'import { c } from "../commands/c.js";\nexport const u = c;\n',
  "src/domain/usesEngine.ts": 'import type { e } from "../engine/e.js";\nexport type U = typeof e;\n',
  "src/protocol/usesCommands.ts": 'import { c } from "../commands/c.js";\nexport const u = c;\n',
  "src/clock/usesSim.ts": 'import { s } from "../../sim/index.js";\nexport const u = s;\n',
  "src/venue/usesEngine.ts": 'import { e } from "../engine/e.js";\nexport const u = e;\n',
  "src/venue/hft/usesEngine.ts": 'import { e } from "../../engine/e.js";\nexport const u = e;\n',
  "src/venue/usesCommands.ts": 'import { c } from "../commands/c.js";\nexport const u = c;\n',
  "src/marketdata/usesEngine.ts": 'import { e } from "../engine/e.js";\nexport const u = e;\n',
  "src/marketdata/usesGateway.ts": 'import { g } from "../gateway/g.js";\nexport const u = g;\n',
  "src/marketdata/usesSim.ts": 'import { s } from "../../sim/index.js";\nexport const u = s;\n',
  "src/engine/embeddedVenue.ts":
    'import { s } from "../../sim/index.js";\nimport { c } from "../commands/c.js";\nexport const v = s + c;\n',
  "src/engine/usesCommands.ts": 'import { c } from "../commands/c.js";\nexport const u = c;\n',
  "src/gateway/usesCommands.ts": 'import { c } from "../commands/c.js";\nexport const u = c;\n',
};

let found: Finding[] = [];
let layerFound: Finding[] = [];

beforeAll(() => {
  found = lintProbe(PROBE);
  layerFound = lintProbe(LAYER_PROBE);
});

describe("dependency rules (biome.jsonc)", () => {
  it("fire on every probe that breaks one, and on nothing else", () => {
    expect(byFile(found)).toEqual([
      "sim/usesEngine.ts noRestrictedImports",
      "src/auth/layer.ts noRestrictedImports",
      "src/engine/usesSim.ts noRestrictedImports",
      "src/orders/cycleA.ts noImportCycles",
      "src/orders/cycleB.ts noImportCycles",
      "src/util/layer.ts noRestrictedImports",
      "test/e2e/inside.test.ts noRestrictedImports",
    ]);
  });

  it("keep each layer below the ones above it, and the CLI's commands to the CLI", () => {
    expect(byFile(layerFound)).toEqual([
      "src/cli.ts noRestrictedImports",
      "src/clock/usesEngine.ts noRestrictedImports",
      "src/clock/usesSim.ts noRestrictedImports",
      "src/domain/usesEngine.ts noRestrictedImports",
      "src/engine/embeddedVenue.ts noRestrictedImports",
      "src/engine/usesCommands.ts noRestrictedImports",
      "src/gateway/usesCommands.ts noRestrictedImports",
      "src/journal/usesCommands.ts noRestrictedImports",
      "src/marketdata/usesEngine.ts noRestrictedImports",
      "src/marketdata/usesGateway.ts noRestrictedImports",
      "src/marketdata/usesSim.ts noRestrictedImports",
      "src/protocol/usesCommands.ts noRestrictedImports",
      "src/rest/usesGateway.ts noRestrictedImports",
      "src/venue/hft/usesEngine.ts noRestrictedImports",
      "src/venue/usesCommands.ts noRestrictedImports",
      "src/venue/usesEngine.ts noRestrictedImports",
    ]);
    // the CLI and the embedded venue may import one of their two (commands, sim/index.ts), not the other
    expect(layerFound.filter((f) => f.path === "src/cli.ts")).toHaveLength(1);
    expect(layerFound.filter((f) => f.path === "src/engine/embeddedVenue.ts")).toHaveLength(1);
  });
});
