/**
 * The architecture documents name only files that exist and are used: every `src/…`, `sim/…` and
 * `test/…` path they mention, and every file in their file tables (a bare name in a table's first
 * column, resolved against the folder the table's header or section names, else the document's own),
 * exists; none of them is a module the import graph leaves unused (test/arch/entryPoints.ts).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { moduleReport } from "./entryPoints.js";
import { ROOT } from "./importGraph.js";

/** Each document, and the folder its file tables list when neither the table nor its section says. */
const DOCS: Readonly<Record<string, string | undefined>> = {
  "docs/architecture.md": undefined,
  "docs/engine.md": "src/engine",
  "docs/simulator.md": "sim",
};

interface Named {
  readonly doc: string;
  readonly line: number;
  readonly path: string;
}

// A path the repository holds: src/, sim/ or test/ at the start (not dist/src/, the build's copy).
const PATH = /(?<![\w-])(?<!dist\/)((?:src|sim|test)\/[\w./-]*)/g;
const FOLDER = /`((?:src|sim)(?:\/[\w-]+)*)\/?`/;

/** Every repository path a document mentions, backticked or not. */
function namedPaths(doc: string, text: string): Named[] {
  const out: Named[] = [];
  text.split("\n").forEach((l, i) => {
    for (const m of l.matchAll(PATH)) out.push({ doc, line: i + 1, path: m[1]!.replace(/\.+$/, "") });
  });
  return out;
}

/** Relative file names (`x.ts`, `nats/x.ts`) in the first column of tables whose first header cell says "file". */
function tableFiles(doc: string, text: string, home: string | undefined): Named[] {
  const out: Named[] = [];
  const lines = text.split("\n");
  let section: string | undefined;
  let folder: string | undefined | null = null; // null: not in a file table
  lines.forEach((l, i) => {
    if (/^#+ /.test(l)) section = FOLDER.exec(l)?.[1];
    if (!l.startsWith("|")) {
      folder = null;
      return;
    }
    const first = l.split("|")[1]!.trim();
    if (folder === null) {
      const isHeader = /^\|\s*:?-{3,}/.test(lines[i + 1] ?? "");
      if (isHeader && /\bfile\b/.test(first)) folder = FOLDER.exec(first)?.[1] ?? section ?? home;
      else if (isHeader) folder = "";
      if (isHeader && folder === undefined)
        out.push({ doc, line: i + 1, path: "(a file table with no folder)" });
      return;
    }
    if (folder === "" || folder === undefined || /^:?-{3,}/.test(first)) return;
    for (const m of first.matchAll(/`(?!(?:src|sim|test)\/)([\w./-]+\.ts)`/g))
      out.push({ doc, line: i + 1, path: `${folder}/${m[1]}` });
  });
  return out;
}

/** The repository file or folder a named path means (`….js` names the `.ts` it is built from). */
function exists(path: string): boolean {
  const p = join(ROOT, path);
  if (existsSync(p)) return path.endsWith("/") ? statSync(p).isDirectory() : true;
  return path.endsWith(".js") && existsSync(p.replace(/\.js$/, ".ts"));
}

const where = (n: Named): string => `${n.doc}:${n.line} ${n.path}`;

describe("docs name files that exist and are used", () => {
  const named: Named[] = [];
  for (const [doc, home] of Object.entries(DOCS)) {
    const text = readFileSync(join(ROOT, doc), "utf8");
    named.push(...namedPaths(doc, text), ...tableFiles(doc, text, home));
  }

  it("reads the documents' paths and file tables", () => {
    // A reader that found nothing would pass anything: each document names files of its own.
    for (const doc of Object.keys(DOCS)) expect(named.filter((n) => n.doc === doc).length).toBeGreaterThan(5);
  });

  it("every path and table file exists", () => {
    expect(named.filter((n) => !exists(n.path)).map(where), "named in the docs, not in the tree").toEqual([]);
  });

  it("no named file is an unused module", () => {
    const unused = new Set(moduleReport().unused);
    const dead = named.filter((n) => unused.has(n.path.replace(/\.js$/, ".ts"))).map(where);
    expect(dead, "named in the docs, but nothing imports it").toEqual([]);
  });
});

describe("the docs reader", () => {
  const doc = [
    "# A (`src/engine/`)",
    "See `src/venue/poller.ts`, dist/src/cli.js and src/cli.ts.",
    "",
    "| file | what |",
    "|---|---|",
    "| `a.ts`, `sub/b.ts`, `src/cli.ts` | x `c.ts` |",
    "",
    "## Other (`src/venue`)",
    "",
    "| `sim/` file | what |",
    "|---|---|",
    "| `d.ts` | y |",
    "",
    "| file | what |",
    "|---|---|",
    "| `e.ts` | z |",
    "",
    "| name | what |",
    "|---|---|",
    "| `f.ts` | not a file table |",
  ].join("\n");

  it("finds paths and table files, each against its folder", () => {
    expect(namedPaths("d", doc).map((n) => n.path)).toEqual([
      "src/engine/",
      "src/venue/poller.ts",
      "src/cli.ts",
      "src/cli.ts",
      "src/venue",
      "sim/",
    ]);
    expect(tableFiles("d", doc, undefined).map((n) => n.path)).toEqual([
      "src/engine/a.ts",
      "src/engine/sub/b.ts",
      "sim/d.ts",
      "src/venue/e.ts",
    ]);
  });
});
