/**
 * src/rest and src/auth are venue-neutral: what a venue's requests are called, where they live and
 * what its answers' codes mean is in src/venue/{spot,hft,futures}/ and the endpoint catalogue only.
 * Their code (comments aside) names no venue path or host, no catalogue endpoint id and no v5 name;
 * they may name a surface (`"hft"`, the domain's `Surface`), as the catalogue's rows carry one.
 *
 * Outside the check, each with why: the catalogue (the table itself), the wire records (the venues'
 * record types: the order model below src/venue and the simulator read them, so they sit at the
 * bottom beside the catalogue) and src/rest/index.ts (the `hftgate/rest` package entry, which
 * re-exports the venue folders' requests).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sourcesUnder, stripComments } from "./importGraph.js";

const OUTSIDE: Readonly<Record<string, string>> = {
  "src/rest/catalogue.ts": "the endpoint catalogue: the table of every venue's endpoints",
  "src/rest/wire.ts": "the venues' record types, shared with src/orders and the simulator",
  "src/rest/index.ts": "the hftgate/rest package entry: re-exports src/venue's requests",
};

/** What names a venue: its paths and hosts, a catalogue endpoint id, a v5 constant or type. */
const VENUE_NAMES: readonly [string, RegExp][] = [
  ["venue path", /\/(?:v5|trade\/api|dma\/api)\//],
  ["venue host", /coinswitch\.co/],
  ["endpoint id", /["'`](?:spot|hft|futures)\.[A-Za-z]\w*["'`]/],
  ["v5 name", /\b(?:V5_?\w*|v5[A-Z]\w*)/],
];

/** Each venue name in a file's code (comments blanked), as `file:line kind: text`. */
function venueNames(file: string, text: string): string[] {
  const out: string[] = [];
  stripComments(text)
    .split("\n")
    .forEach((line, i) => {
      for (const [kind, re] of VENUE_NAMES) {
        const m = re.exec(line);
        if (m !== null) out.push(`${file}:${i + 1} ${kind}: ${m[0]}`);
      }
    });
  return out;
}

describe("src/rest and src/auth are venue-neutral", () => {
  it("finds each kind of venue name in code, not in comments", () => {
    const probe = [
      "// POST /v5/order/create and https://dma.coinswitch.co in a comment",
      'const a = "POST/v5/order/cancel";',
      'const b = new URL("https://coinswitch.co");',
      'const c = catalogue["hft.marketTime"];',
      "if (code === V5_RET.RATE_LIMIT) throw v5Error();",
      'const d = ep.surface === "hft" ? 1 : 0; // a surface is the domain\'s',
    ].join("\n");
    expect(venueNames("p.ts", probe)).toEqual([
      "p.ts:2 venue path: /v5/",
      "p.ts:3 venue host: coinswitch.co",
      'p.ts:4 endpoint id: "hft.marketTime"',
      "p.ts:5 v5 name: V5_RET",
    ]);
  });

  it("no venue path, host, endpoint id or v5 name outside the catalogue", () => {
    const files = sourcesUnder(ROOT, ["src/rest", "src/auth"]);
    expect(files).toContain("src/rest/client.ts");
    const checked = files.filter((f) => !Object.hasOwn(OUTSIDE, f));
    const found = checked.flatMap((f) => venueNames(f, readFileSync(join(ROOT, f), "utf8")));
    expect(found, "venue knowledge belongs in src/venue/<venue>/ or the catalogue").toEqual([]);
  });

  it("the files outside the check exist", () => {
    const files = new Set(sourcesUnder(ROOT, ["src/rest"]));
    expect(Object.keys(OUTSIDE).filter((f) => !files.has(f))).toEqual([]);
  });
});
