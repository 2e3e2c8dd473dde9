/**
 * No big rooms where the order path lives: every source file under src/engine, src/gateway and
 * src/orders stays at or under MAX_LINES lines, so a reader can hold one file in their head; a file
 * that grows past it is split by concern (as src/engine/parts.ts was taken out of engine.ts, and the
 * order store's indexes, fills and orphan buffer out of src/orders/store.ts), not squeezed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sourcesUnder } from "./importGraph.js";

const MAX_LINES = 400;
const FOLDERS = ["src/engine", "src/gateway", "src/orders"];

/** Lines as `wc -l` counts them: newline characters (a last line without one is counted too). */
function lineCount(text: string): number {
  if (text === "") return 0;
  const n = text.split("\n").length - 1;
  return text.endsWith("\n") ? n : n + 1;
}

describe("file size", () => {
  it("counts lines as wc -l does", () => {
    expect(lineCount("")).toBe(0);
    expect(lineCount("a\n")).toBe(1);
    expect(lineCount("a\nb")).toBe(2);
    expect(lineCount(`${"x\n".repeat(MAX_LINES + 1)}`)).toBe(MAX_LINES + 1);
  });

  it(`no file in ${FOLDERS.join(" or ")} is over ${MAX_LINES} lines`, () => {
    const files = sourcesUnder(ROOT, FOLDERS);
    // A reader that found nothing would pass anything.
    expect(files.length).toBeGreaterThan(20);
    const big = files
      .map((f) => ({ f, n: lineCount(readFileSync(join(ROOT, f), "utf8")) }))
      .filter((x) => x.n > MAX_LINES)
      .map((x) => `${x.f}: ${x.n} lines`);
    expect(big, `split these by concern (limit ${MAX_LINES})`).toEqual([]);
  });
});
