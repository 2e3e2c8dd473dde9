/**
 * The engine embedded through the package entry (`hftgate`): it refuses to journal into the host's
 * working directory when no `journal.dir` is given (nothing is created there), and its log lines go to
 * the logger it is given, none to the host's stdout.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createLogger, loadConfig, StartupError, startEngine } from "../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "hftgate-embedded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the embedded engine (package entry)", () => {
  it("refuses to start without a journal.dir, creating nothing in the working directory", async () => {
    const host = join(dir, "host");
    rmSync(host, { recursive: true, force: true });
    const cwd = process.cwd();
    mkdirSync(host);
    process.chdir(host);
    try {
      const started = startEngine(loadConfig({ env: {}, overrides: { "gateway.port": 0 } }));
      await expect(started).rejects.toBeInstanceOf(StartupError);
      await expect(started).rejects.toThrow(/journal\.dir is not set/);
      expect(readdirSync(host)).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });

  it("logs to the logger it is given, not to the host's stdout", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const stdout = vi.spyOn(process.stdout, "write");
    const h = await startEngine(
      loadConfig({
        env: {},
        overrides: {
          "gateway.port": 0,
          "journal.dir": join(dir, "journal", "{venue}"),
          "sim.nats": "off",
          "sim.syntheticMarket": false,
        },
      }),
      { logger: createLogger({ level: "info", destination: sink }) },
    );
    try {
      expect(readdirSync(join(dir, "journal", "sim")).some((f) => f.startsWith("hftgate-"))).toBe(true);
    } finally {
      await h.stop();
      stdout.mockRestore();
    }
    expect(lines.some((l) => l.includes('"msg":"embedded simulator started"'))).toBe(true);
    const hftgateOnStdout = stdout.mock.calls.filter((c) => String(c[0]).includes('"app":"hftgate"'));
    expect(hftgateOnStdout).toEqual([]);
  });
});
