/**
 * The serial list is complete: a test file that starts processes (node:child_process, directly or
 * through a test helper) or drives a real gateway through the e2e harness must be in
 * test/serialFiles.ts, so it never runs beside another such file on a two-core CI box.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSerial } from "../serialFiles.js";
import { ROOT, reachable, scan, sourcesUnder } from "./importGraph.js";

const HARNESS = new Set(["test/e2e/harness.ts"]);

function startsProcesses(file: string): boolean {
  if (HARNESS.has(file)) return true;
  return scan(readFileSync(join(ROOT, file), "utf8")).specifiers.some(
    (s) => s === "node:child_process" || s === "child_process",
  );
}

function needsSerial(file: string): boolean {
  for (const f of reachable(ROOT, [file]).reached) {
    if (f.startsWith("test/") && startsProcesses(f)) return true;
  }
  return false;
}

describe("serial test files", () => {
  it("tells a process-starting file from a pure one", () => {
    expect(needsSerial("test/chaos/killTruth.test.ts")).toBe(true);
    expect(needsSerial("test/arch/serialFiles.test.ts")).toBe(false);
  });

  it("every test file that starts processes or a real gateway is in the serial list", () => {
    const tests = sourcesUnder(ROOT, ["test"]).filter((f) => f.endsWith(".test.ts"));
    const missing = tests.filter((f) => !isSerial(f) && needsSerial(f));
    expect(missing).toEqual([]);
  });
});
