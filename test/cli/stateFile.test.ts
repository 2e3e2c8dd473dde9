/**
 * `hftgate start` removes its state file at exit only if the file is its own (its pid): a state file
 * another gateway wrote (another pid), an unreadable one or a missing one is left alone.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeOwnStateFile } from "../../src/commands/start.js";

const dir = mkdtempSync(join(tmpdir(), "hftgate-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("state file removal at exit", () => {
  it("removes its own, leaves another process's, an unreadable and a missing one", () => {
    const own = join(dir, "own.json");
    writeFileSync(own, JSON.stringify({ url: "ws://x", pid: process.pid }));
    removeOwnStateFile(own);
    expect(existsSync(own)).toBe(false);

    const theirs = join(dir, "theirs.json");
    writeFileSync(theirs, JSON.stringify({ url: "ws://x", pid: process.pid + 1 }));
    removeOwnStateFile(theirs);
    expect(existsSync(theirs)).toBe(true);

    const garbled = join(dir, "garbled.json");
    writeFileSync(garbled, "{not json");
    removeOwnStateFile(garbled);
    expect(existsSync(garbled)).toBe(true);

    expect(() => removeOwnStateFile(join(dir, "missing.json"))).not.toThrow();
  });
});
