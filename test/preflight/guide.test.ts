/**
 * docs/going-live.md stays true to the repository: every live template in config/ is shown verbatim,
 * loads, trades for real and keeps a per-venue journal; every `hftgate_*` metric it (or the table of
 * assumed facts) names is one the gateway exports; every link to another document reaches an existing
 * file and heading.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { ASSUMPTIONS } from "../../src/preflight/assumptions.js";

const ROOT = join(import.meta.dirname, "..", "..");
const GUIDE = readFileSync(join(ROOT, "docs/going-live.md"), "utf8");

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith(".ts")) out.push(readFileSync(join(ROOT, p), "utf8"));
  }
  return out;
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

describe("docs/going-live.md", () => {
  const templates = readdirSync(join(ROOT, "config")).filter((f) => f.endsWith(".example.json"));

  it("shows every live template verbatim; each trades for real with a per-venue journal", () => {
    expect(templates.length).toBeGreaterThanOrEqual(4);
    for (const f of templates) {
      const text = readFileSync(join(ROOT, "config", f), "utf8");
      expect(GUIDE, f).toContain(`\`config/${f}\``);
      expect(GUIDE, f).toContain(`\`\`\`json\n${text}\`\`\``);
      const c = loadConfig({ file: join(ROOT, "config", f), env: {} });
      expect(c.venue.kind, f).toBe("exchange");
      expect(c.journal.dir, f).toContain("{venue}");
      expect(c.keys.secretKey, f).toBeNull();
    }
  });

  it("names only metrics the gateway exports", () => {
    const src = sources("src").join("\n");
    const named = new Set(
      [GUIDE, ...ASSUMPTIONS.map((a) => a.verify)].flatMap((t) => t.match(/hftgate_[a-z_]+/g) ?? []),
    );
    expect(named.size).toBeGreaterThan(5);
    expect([...named].filter((m) => !src.includes(`"${m}"`))).toEqual([]);
  });

  it("links only to files and headings that exist", () => {
    const links = [...GUIDE.matchAll(/\]\(([^)#]+\.md)(#[^)]+)?\)/g)];
    expect(links.length).toBeGreaterThan(2);
    for (const [, file, anchor] of links) {
      const target = readFileSync(join(ROOT, "docs", file!), "utf8");
      if (anchor === undefined) continue;
      const heads = [...target.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!));
      expect(heads, `${file}${anchor}`).toContain(anchor.slice(1));
    }
  });
});
