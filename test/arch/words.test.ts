/**
 * The repository speaks of the product alone: README.md, docs/*.md, every PROTOCOL.md under src/ and
 * the code (src, sim, bench, test, examples, the Python client) name no issue numbers, no files that
 * are not in the repository (the design and venue background notes, whose content is in docs/; the
 * build machines' paths), no work sessions and no unnamed "this machine" (a figure names the machine
 * it was taken on). The patterns are narrow on purpose: a strategy session ("this session's live
 * orders") is product.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./importGraph.js";

const WORDS: readonly { what: string; re: RegExp }[] = [
  { what: "an issue number", re: /\bissue\s+#?\d+/i },
  { what: "a file outside the repository", re: /\bdesign\.md\b|\bexchange-api(?:\.md)?\b/i },
  { what: "a work session's machine", re: /\bsessions?'s? machines?\b/i },
  {
    what: "a work session",
    re: /\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|earlier|previous|prior|this) sessions?'s? (?:changes|build|other work|runs)\b/i,
  },
  { what: "a work session", re: /\b(?:possible|done|measured) in this session\b/i },
  {
    what: "a work session as a heading",
    re: /^#+\s.*\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth) session\b/im,
  },
  { what: "an unnamed machine", re: /\bthis machine\b/i },
  { what: "a path of the build machines", re: /(?<![\w.])\/work\/[\w.-]+/ },
];

const SELF = relative(ROOT, import.meta.filename);
const CODE = /\.(?:ts|py)$/;
const SKIP = new Set(["node_modules", "dist", "var", ".git", "__pycache__", "results"]);

function walk(dir: string, keep: (f: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(join(ROOT, dir))) {
    if (SKIP.has(name)) continue;
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) walk(rel, keep, out);
    else if (keep(rel)) out.push(rel);
  }
  return out;
}

function files(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f));
  const protocol = walk("src", (f) => f.endsWith("PROTOCOL.md"));
  const code = ["src", "sim", "bench", "test", "examples", "clients"].flatMap((d) =>
    walk(d, (f) => CODE.test(f)),
  );
  return ["README.md", ...docs, ...protocol, ...code].filter((f) => f !== SELF);
}

/** Every "file:line: phrase (what)" that speaks of something other than the product. */
function findings(file: string, text: string): string[] {
  const out: string[] = [];
  for (const { what, re } of WORDS) {
    const g = new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`);
    for (const m of text.matchAll(g)) {
      const line = text.slice(0, m.index).split("\n").length;
      out.push(`${file}:${line}: "${m[0]}" (${what})`);
    }
  }
  return out;
}

describe("words that are not the product's", () => {
  it("README, docs, PROTOCOL.md and the code name no issue, outside file, work session or unnamed machine", () => {
    const all = files();
    expect(all.length).toBeGreaterThan(100);
    expect(all).toContain("docs/venue-api.md");
    expect(all.flatMap((f) => findings(f, readFileSync(join(ROOT, f), "utf8")))).toEqual([]);
  });

  it("catches each kind and spares a strategy session", () => {
    const bad = [
      "see issue 12",
      "as in design.md §2",
      "exchange-api §6.4",
      "On this session's machine",
      "the fourth session's changes",
      "earlier sessions' runs",
      "it was not possible in this session.",
      "### Fourth session: warm connections",
      "about 3x faster on this machine",
      "flock /work/heavy.lock npm run bench",
    ];
    for (const b of bad) expect(findings("x", b), b).toHaveLength(1);
    const fine = [
      "cancels this session's live orders",
      "highest client order number this session has used",
      "a second session shares the venue subscription",
      "the session's resume ring",
      "nats-io/nats.node#454",
    ];
    for (const f of fine) expect(findings("x", f), f).toEqual([]);
  });
});
