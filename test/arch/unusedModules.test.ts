/**
 * No unused module: every file under src/ and sim/ is reached by the import graph from a declared
 * entry point (package.json bin/main/exports, the CLI's command table, worker files loaded by path),
 * or is a folder's public surface (index.ts) that something imports. A probe tree first shows the
 * graph reader finds each kind of reference and ignores comments, so the check can fail.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { moduleReport } from "./entryPoints.js";
import { ROOT, reachable, scan, sourcesUnder, stripComments } from "./importGraph.js";

/**
 * Files known to be unused, each with why it stays for now. The check fails when a listed file is
 * used or gone, so an entry goes the moment it stops being true; keep this list empty otherwise.
 */
const KNOWN_UNUSED: Readonly<Record<string, string>> = {};

const PROBE: Record<string, string> = {
  "src/entry.ts": [
    '/** Mentions `import x from "./dead.js"` and import("./dead.js") in a comment only. */',
    'import { a } from "./a.js";',
    'import type { B } from "./b.js";',
    'export * from "./c.js";',
    "export {",
    "  d1,",
    "  type D2,",
    '} from "./d.js";',
    'import "./side.js";',
    "// import { dead } from './dead.js';",
    'const url = "http://example.invalid/"; export { u } from "./afterString.js";',
    'const re = /\\/\\//; export { q } from "./afterRegex.js";',
    "const ratio = 4 / 2 / 1; // a division, then a comment naming './dead.js'",
    'export const later = () => import("./lazy.js");',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the probe's source holds a template literal
    "export const named = (f: string) => import(`./${f}.js`);",
    'export const worker = new URL("worker.js", import.meta.url);',
    "export const all = [a, url, re, ratio];",
  ].join("\n"),
  "src/a.ts": "export const a = 1;\n",
  "src/b.ts": "export type B = number;\n",
  "src/c.ts": "export const c = 1;\n",
  "src/d.ts": "export const d1 = 1;\nexport type D2 = string;\n",
  "src/side.ts": "globalThis.toString();\n",
  "src/lazy.ts": 'import { deep } from "./nested/deep.js";\nexport const lazy = deep;\n',
  "src/nested/deep.ts": "export const deep = 1;\n",
  "src/worker.ts": "export {};\n",
  "src/dead.ts": "export const dead = 1;\n",
  "src/afterString.ts": "export const u = 1;\n",
  "src/afterRegex.ts": "export const q = 1;\n",
};

let probeDir = "";
afterAll(() => {
  if (probeDir !== "") rmSync(probeDir, { recursive: true, force: true });
});

describe("the import graph reader", () => {
  it("follows static, type-only, re-export, side-effect, dynamic and worker-path references, not comments", () => {
    probeDir = mkdtempSync(join(tmpdir(), "hftgate-graph-"));
    for (const [path, text] of Object.entries(PROBE)) {
      mkdirSync(dirname(join(probeDir, path)), { recursive: true });
      writeFileSync(join(probeDir, path), text);
    }
    const r = reachable(probeDir, ["src/entry.ts"]);
    const unused = sourcesUnder(probeDir, ["src"]).filter((f) => !r.reached.has(f));
    expect(unused).toEqual(["src/dead.ts"]);
    expect([...r.computed]).toEqual([["src/entry.ts", 1]]);
  });

  it("keeps strings, regexes and divisions and blanks only comments", () => {
    const src = 'const u = "a//b"; /* x\n y */ const r = /[/]"/g; // z\nconst q = a / b / c;';
    const blanked = `const u = "a//b"; ${" ".repeat(4)}\n${" ".repeat(5)} const r = /[/]"/g; \nconst q = a / b / c;`;
    expect(stripComments(src)).toBe(blanked);
    expect(scan("// import './x.js'\n/* import('./y.js') */\n").specifiers).toEqual([]);
  });
});

describe("no unused module in src/ and sim/", () => {
  const report = moduleReport();

  it("starts from entry points that exist", () => {
    expect(report.entries.map((e) => e.file)).toContain("src/cli.ts");
    const missing = report.entries.filter((e) => !existsSync(join(ROOT, e.file)));
    expect(missing, "declared entry points without a source file").toEqual([]);
  });

  it("every computed import(…)/require(…) is declared in COMPUTED_LOADS", () => {
    expect(report.undeclaredLoads, "computed loads the walk cannot follow: list them").toEqual([]);
    expect(report.staleLoads, "COMPUTED_LOADS entries with no computed load left").toEqual([]);
  });

  it("every file is reached from an entry point, apart from the known unused list", () => {
    const unexpected = report.unused.filter((f) => !Object.hasOwn(KNOWN_UNUSED, f));
    expect(unexpected, "unused modules: import them from where they belong or delete them").toEqual([]);
    expect(report.unusedSurfaces, "folder surfaces (index.ts) nothing imports").toEqual([]);
  });

  it("the known unused list is exact: each entry exists and is still unused", () => {
    const stale = Object.keys(KNOWN_UNUSED).filter(
      (f) => !existsSync(join(ROOT, f)) || !report.unused.includes(f),
    );
    expect(stale, "now used or gone: remove these from KNOWN_UNUSED").toEqual([]);
  });
});
