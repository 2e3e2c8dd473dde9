/**
 * The project's biome.jsonc over a probe tree in a temp directory, for the dependency-rule tests
 * (rules.test.ts, venueRules.test.ts): which files the import rules flag. Each probe is a few files
 * that break one rule or keep it, so a test shows the rules can fail.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ROOT } from "./importGraph.js";

const BIOME = join(ROOT, "node_modules", "@biomejs", "biome", "bin", "biome");

export interface Finding {
  readonly path: string;
  readonly rule: string;
}

/** Lints `probe` (path → source) with the project's biome.jsonc: the dependency rules that fired. */
export function lintProbe(probe: Readonly<Record<string, string>>): Finding[] {
  const dir = mkdtempSync(join(tmpdir(), "hftgate-rules-"));
  try {
    copyFileSync(join(ROOT, "biome.jsonc"), join(dir, "biome.jsonc"));
    for (const [path, text] of Object.entries(probe)) {
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
    return report.diagnostics
      .filter((d) => /noRestrictedImports|noImportCycles/.test(d.category))
      .map((d) => ({ path: d.location.path, rule: d.category.split("/").pop()! }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Findings as sorted, de-duplicated `path rule` lines. */
export function byFile(found: readonly Finding[]): string[] {
  return [...new Set(found.map((x) => `${x.path} ${x.rule}`))].sort();
}
