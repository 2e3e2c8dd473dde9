/**
 * The repository's import graph as the unused-module check reads it: a small scanner of TypeScript
 * sources (comments stripped, strings kept) that finds `import … from "…"`, `export … from "…"`,
 * side-effect imports, `import("…")`, `require("…")`, and any other string literal naming a sibling
 * `….js` file (worker entry files loaded by path, e.g. the pre-signer's). TypeScript 7 has no
 * compiler API to ask, and a regex over comment-free code is enough for the project's own style.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";

/** Code with its comments blanked (newlines kept), strings, template literals and regexes untouched. */
export function stripComments(src: string): string {
  let out = "";
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    const d = src[i + 1];
    if (c === "/" && d === "/") {
      while (i < n && src[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && d === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end < 0 ? n : end + 2;
      out += src.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
      continue;
    }
    let j = i + 1;
    if (c === '"' || c === "'" || c === "`") {
      while (j < n && src[j] !== c) j += src[j] === "\\" ? 2 : 1;
    } else if (c === "/" && opensRegex(out)) {
      let cls = false;
      while (j < n && src[j] !== "\n" && (cls || src[j] !== "/")) {
        if (src[j] === "\\") j++;
        else if (src[j] === "[") cls = true;
        else if (src[j] === "]") cls = false;
        j++;
      }
    } else j = i;
    out += src.slice(i, j + 1);
    i = j + 1;
  }
  return out;
}

/** Whether a `/` after this code starts a regex literal (not a division): what precedes it decides. */
function opensRegex(before: string): boolean {
  const tail = /(?:([\w$]+)|(\S))\s*$/.exec(before.slice(-40));
  if (tail === null) return true;
  if (tail[1] !== undefined) return /^(return|typeof|case|in|of|void|yield|await)$/.test(tail[1]);
  return !")]".includes(tail[2]!);
}

const STATIC = /\b(?:import|export)\s+(?:type\s+)?(?:[^;'"`]*?\sfrom\s*)?["']([^"']+)["']/g;
const CALL = /\b(?:import|require)\s*\(\s*/g;
const LITERAL_CALL = /^(["'`])([^"'`$]+)\1\s*\)/;
const JS_LITERAL = /["'`]([\w./-]+\.js)["'`]/g;

export interface Scan {
  /** Specifiers and path literals, as written. */
  readonly specifiers: string[];
  /** Number of `import(…)` / `require(…)` calls whose argument is not a plain string. */
  readonly computed: number;
}

/** What one source file refers to. */
export function scan(src: string): Scan {
  const code = stripComments(src);
  const specifiers: string[] = [];
  let computed = 0;
  for (const m of code.matchAll(STATIC)) specifiers.push(m[1]!);
  for (const m of code.matchAll(CALL)) {
    const lit = LITERAL_CALL.exec(code.slice(m.index + m[0].length));
    if (lit === null) computed++;
    else specifiers.push(lit[2]!);
  }
  for (const m of code.matchAll(JS_LITERAL)) specifiers.push(m[1]!);
  return { specifiers, computed };
}

/** Repository-relative posix path of the `.ts` file a relative `.js` specifier names, if it exists. */
export function resolveSpecifier(root: string, from: string, spec: string): string | undefined {
  if (!spec.endsWith(".js")) return undefined;
  const base = spec.startsWith(".") ? spec : `./${spec}`;
  const target = posix.normalize(posix.join(posix.dirname(from), base)).replace(/\.js$/, ".ts");
  if (target.startsWith("..")) return undefined;
  const abs = join(root, ...target.split("/"));
  return existsSync(abs) && statSync(abs).isFile() ? target : undefined;
}

/** Every `.ts` source (not `.d.ts`) under the given folders, repository-relative posix paths, sorted. */
export function sourcesUnder(root: string, folders: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
        found.push(relative(root, p).split(sep).join("/"));
    }
  };
  for (const f of folders) if (existsSync(join(root, f))) walk(join(root, f));
  return found.sort();
}

export interface Reach {
  /** Every file reached from the entry points (inside or outside the checked folders). */
  readonly reached: Set<string>;
  /** Files with a computed `import(…)` / `require(…)`, and how many. */
  readonly computed: Map<string, number>;
}

/** Walks the graph from the entry points (repository-relative `.ts` paths). */
export function reachable(root: string, entries: readonly string[]): Reach {
  const reached = new Set<string>();
  const computed = new Map<string, number>();
  const todo = [...entries];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    const s = scan(readFileSync(join(root, file), "utf8"));
    if (s.computed > 0) computed.set(file, s.computed);
    for (const spec of s.specifiers) {
      const t = resolveSpecifier(root, file, spec);
      if (t !== undefined && !reached.has(t)) todo.push(t);
    }
  }
  return { reached, computed };
}

/** The `.ts` source a package.json target (`dist/src/cli.js`, `./dist/src/index.js`) is built from. */
export function sourceOfDist(target: string): string {
  return posix
    .normalize(target)
    .replace(/^dist\//, "")
    .replace(/\.js$/, ".ts");
}

/** Repository root of this checkout. */
export const ROOT = dirname(dirname(import.meta.dirname));
