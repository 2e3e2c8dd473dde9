/**
 * The product's declared entry points (package.json `bin`/`main`/`exports`, the CLI's command table)
 * and what the import graph from them leaves unused under src/ and sim/.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS } from "../../src/commands/index.js";
import { ROOT, reachable, resolveSpecifier, scan, sourceOfDist, sourcesUnder } from "./importGraph.js";

/**
 * Every `import(…)` / `require(…)` in src/ and sim/ whose argument is computed, with what it loads:
 * the walk cannot follow those, so each must say where its targets are counted. A new one fails the
 * check until it is listed here.
 */
export const COMPUTED_LOADS: Readonly<Record<string, string>> = {
  "src/commands/index.ts": "a command module of the COMMANDS table, each walked as an entry point",
  "src/commands/bench.ts": "bench/run.js, the benchmark runner outside src/ (named by its path literal)",
  "src/gateway/native.ts": "uWebSockets.js's native binary, not a module of the project",
};

export interface EntryPoint {
  readonly file: string;
  readonly why: string;
}

/** What starts the product: package.json's targets, and the CLI's command modules loaded by name. */
export function entryPoints(root: string = ROOT): EntryPoint[] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    bin?: Record<string, string>;
    main?: string;
    exports?: Record<string, string | Record<string, string>>;
  };
  const out: EntryPoint[] = [];
  for (const [name, target] of Object.entries(pkg.bin ?? {}))
    out.push({ file: sourceOfDist(target), why: `package.json bin ${name}` });
  if (pkg.main !== undefined) out.push({ file: sourceOfDist(pkg.main), why: "package.json main" });
  for (const [path, target] of Object.entries(pkg.exports ?? {})) {
    const js = typeof target === "string" ? target : target.default;
    if (js?.endsWith(".js")) out.push({ file: sourceOfDist(js), why: `package.json exports ${path}` });
  }
  for (const [name, file] of Object.entries(COMMANDS))
    out.push({ file: `src/commands/${file}.ts`, why: `hftgate ${name} (src/commands/index.ts)` });
  return out;
}

export interface ModuleReport {
  readonly entries: EntryPoint[];
  /** Files under src/ and sim/ that no entry point reaches (folder surfaces, index.ts, apart). */
  readonly unused: string[];
  /**
   * Folder surfaces (`index.ts`) that nothing imports: not the product, the tests, the benchmarks or
   * the examples. (A surface may serve only tests and benchmarks; it keeps nothing else alive.)
   */
  readonly unusedSurfaces: string[];
  /** Reached files with a computed load that COMPUTED_LOADS does not list. */
  readonly undeclaredLoads: string[];
  /** COMPUTED_LOADS entries whose file has no computed load any more. */
  readonly staleLoads: string[];
}

const isSurface = (f: string): boolean => f.endsWith("/index.ts");

export function moduleReport(root: string = ROOT): ModuleReport {
  const entries = entryPoints(root);
  const product = reachable(
    root,
    entries.map((e) => e.file),
  );
  const all = sourcesUnder(root, ["src", "sim"]);
  const importedAnywhere = new Set<string>();
  for (const f of [...all, ...sourcesUnder(root, ["test", "bench", "examples"])])
    for (const spec of scan(readFileSync(join(root, f), "utf8")).specifiers) {
      const t = resolveSpecifier(root, f, spec);
      if (t !== undefined && t !== f) importedAnywhere.add(t);
    }
  const computedIn = [...product.computed.keys()].filter((f) => /^(src|sim)\//.test(f));
  return {
    entries,
    unused: all.filter((f) => !isSurface(f) && !product.reached.has(f)),
    unusedSurfaces: all.filter((f) => isSurface(f) && !product.reached.has(f) && !importedAnywhere.has(f)),
    undeclaredLoads: computedIn.filter((f) => !Object.hasOwn(COMPUTED_LOADS, f)).sort(),
    staleLoads: Object.keys(COMPUTED_LOADS)
      .filter((f) => !product.computed.has(f))
      .sort(),
  };
}
