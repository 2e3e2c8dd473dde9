import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Journal } from "../../src/journal/index.js";

const root = join(import.meta.dirname, "..", "..");
const cli = join(root, "dist", "src", "cli.js");
const dir = mkdtempSync(join(tmpdir(), "hftgate-replay-"));

/** Builds dist when the compiled replay command is missing or older than its sources. */
function ensureBuilt(): void {
  const out = join(root, "dist", "src", "commands", "replay.js");
  const srcs = [join(root, "src", "commands", "replay.ts"), join(root, "src", "cli.ts")].concat(
    readdirSync(join(root, "src", "journal")).map((f) => join(root, "src", "journal", f)),
  );
  const newest = Math.max(...srcs.map((f) => statSync(f).mtimeMs));
  if (existsSync(out) && existsSync(cli) && statSync(out).mtimeMs >= newest) return;
  // Other areas' type errors do not stop tsc from emitting; only the emitted files matter here.
  spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", root], {
    stdio: "ignore",
  });
}

function replay(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [cli, "replay", ...args], { encoding: "utf8" });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

let ndjson = "";
let binary = "";

beforeAll(async () => {
  ensureBuilt();
  for (const format of ["ndjson", "binary"] as const) {
    const j = Journal.open({
      dir: join(dir, format),
      format,
      fsync: "none",
      now: () => Date.UTC(2026, 10, 21, 8),
    });
    j.note({ text: "gateway started" });
    j.command({
      session: 3,
      op: "new",
      clientId: "hg-a",
      symbol: "BTCUSDT",
      side: "sell",
      type: "limit",
      price: "97000.5",
      qty: "0.01",
    });
    j.request({ clientId: "hg-a", op: "create", method: "POST", path: "/v5/order/create", attempt: 1 });
    j.response({ clientId: "hg-a", op: "create", status: 0, latencyUs: 5_000_000 });
    j.request({ clientId: "hg-a", op: "query", method: "GET", path: "/v5/order/realtime?orderLinkId=hg-a" });
    j.response({
      clientId: "hg-a",
      op: "query",
      status: 200,
      body: '{"retCode":0,"result":{"list":[{"orderStatus":"New"}]}}',
    });
    j.command({
      session: 3,
      op: "new",
      clientId: "hg-b",
      symbol: "BTCUSDT",
      side: "buy",
      type: "market",
      qty: "0.02",
    });
    j.event({ source: "hft-poll", clientId: "hg-a", body: '{"orderStatus":"Filled"}' });
    await j.close();
    if (format === "ndjson") ndjson = j.path;
    else binary = j.path;
  }
  // Simulate a crash mid-write on the binary one.
  truncateSync(binary, readFileSync(binary).length - 3);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("hftgate replay (built CLI)", () => {
  it("prints one order's full history", () => {
    const r = replay(ndjson, "--order", "hg-a");
    expect(r.code).toBe(0);
    const lines = r.out.trim().split("\n");
    expect(lines[0]).toBe("order hg-a (6 records)");
    expect(lines[1]).toContain("command  new session=3 BTCUSDT sell limit 0.01 @ 97000.5");
    expect(lines[3]).toContain("response create no answer in 5000000 µs");
    expect(lines[4]).toContain("GET /v5/order/realtime?orderLinkId=hg-a");
    expect(lines[6]).toContain('event    hft-poll {"orderStatus":"Filled"}');
    expect(lines[1]).toContain("2026-11-21T08:00:00.000Z #2");
  });

  it("prints every order and a summary; reports a torn tail", () => {
    const r = replay(binary);
    expect(r.code).toBe(0);
    expect(r.out).toContain("order hg-a (5 records)"); // the torn last event is not shown
    expect(r.out).toContain("order hg-b (1 records)");
    expect(r.out).toContain("gateway notes");
    expect(r.out).toMatch(/7 records, 2 orders, 1 file\(s\), torn tail of \d+ bytes ignored/);
  });

  it("reads a directory of journals", () => {
    const r = replay(join(dir, "ndjson"));
    expect(r.code).toBe(0);
    expect(r.out).toContain("8 records, 2 orders, 1 file(s)");
  });

  it("fails clearly on an unknown order, a missing file, or no argument", () => {
    const a = replay(ndjson, "--order", "nope");
    expect(a.code).toBe(1);
    expect(a.err).toContain('no order "nope"');
    const b = replay(join(dir, "missing.ndjson"));
    expect(b.code).toBe(2);
    expect(b.err).toContain("cannot read");
    const c = replay();
    expect(c.code).toBe(2);
    expect(c.err).toContain("usage");
  });
});
