/**
 * The venue rules of biome.jsonc (docs/architecture.md) still fire: src/rest imports nothing from
 * src/venue or src/streams (its package entry point, src/rest/index.ts, aside), and src/venue nothing
 * from src/streams, at any folder depth (rules.test.ts probes the engine and CLI arrows). The
 * project's own config linted over a probe tree in a temp directory, one file per rule breaking it and
 * the imports the rules allow beside them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { byFile, type Finding, lintProbe } from "./lintProbe.js";

const PROBE: Record<string, string> = {
  // leaves and the arrows the rules allow
  "src/engine/e.ts": "export const e = 1;\n",
  "src/streams/s.ts": "export const s = 1;\n",
  "src/rest/r.ts": "export const r = 1;\n",
  "src/venue/v.ts": 'import { r } from "../rest/r.js";\nexport const v = r;\n',
  "src/venue/hft/cancel.ts":
    'import { r } from "../../rest/r.js";\nimport { v } from "../v.js";\nexport const c = r + v;\n',
  "src/rest/index.ts": 'import { c } from "../venue/hft/cancel.js";\nexport const pkg = c;\n',
  "src/engine/usesVenue.ts": 'import { c } from "../venue/hft/cancel.js";\nexport const u = c;\n',
  "src/streams/usesVenue.ts": 'import { v } from "../venue/v.js";\nexport const u = v;\n',
  // each breaks one rule
  "src/rest/client.ts": 'import { v } from "../venue/v.js";\nexport const b = v;\n',
  "src/rest/deep/wire.ts": 'import { c } from "../../venue/hft/cancel.js";\nexport const b = c;\n',
  "src/rest/usesStreams.ts": 'import { s } from "../streams/s.js";\nexport const b = s;\n',
  "src/rest/usesEngine.ts": 'import { e } from "../engine/e.js";\nexport const b = e;\n',
  "src/venue/feed.ts": 'import { s } from "../streams/s.js";\nexport const b = s;\n',
  "src/venue/spot/feed.ts": 'import { s } from "../../streams/s.js";\nexport const b = s;\n',
};

let found: Finding[] = [];

beforeAll(() => {
  found = lintProbe(PROBE);
});

describe("venue dependency rules (biome.jsonc)", () => {
  it("src/rest stays below src/venue, src/venue below the engine and the streams", () => {
    expect(byFile(found)).toEqual([
      "src/rest/client.ts noRestrictedImports",
      "src/rest/deep/wire.ts noRestrictedImports",
      // The venue-neutral rule repeats the base layers' (it replaces their override for src/rest).
      "src/rest/usesEngine.ts noRestrictedImports",
      "src/rest/usesStreams.ts noRestrictedImports",
      "src/venue/feed.ts noRestrictedImports",
      "src/venue/spot/feed.ts noRestrictedImports",
    ]);
  });
});
