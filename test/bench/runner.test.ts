/**
 * Where `npm run bench` writes: a plain run into var/bench/ (untracked), never the recorded
 * bench/results/; and it ends with the headline table and the file it wrote.
 * (A suite name that matches nothing runs no benchmark, so this stays a quick check of the runner.)
 */
import { spawnSync } from "node:child_process";
import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const runner = join(root, "dist", "bench", "run.js");
const name = `nosuchsuite${process.pid}`;
afterAll(() => {
  rmSync(join(root, "var", "bench", `partial-${name}.json`), { force: true });
});

const run = (...args: string[]) =>
  spawnSync(process.execPath, [runner, name, ...args], { cwd: root, encoding: "utf8", timeout: 20_000 });

describe.skipIf(!existsSync(runner))("the benchmark runner's output", () => {
  it("a plain run writes var/bench/, not the tracked bench/results/, and prints the table", () => {
    const recorded = join(root, "bench", "results", "latest.json");
    const before = statSync(recorded).mtimeMs;
    const r = run();
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("| suite | what | figure | floor (same run) | ratio | target |");
    expect(r.stdout).toContain(`results: ${join("var", "bench", `partial-${name}.json`)}`);
    expect(existsSync(join(root, "var", "bench", `partial-${name}.json`))).toBe(true);
    expect(statSync(recorded).mtimeMs).toBe(before);
  });
});
