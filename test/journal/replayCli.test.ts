import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Journal, journalIdentity } from "../../src/journal/index.js";

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
      body: '{"retCode":0,"result":{"list":[{"orderId":"1890001","orderStatus":"New"}]}}',
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

  it("finds an order by the exchange's order id, as logs name it", () => {
    const r = replay(ndjson, "--order", "1890001");
    expect(r.code).toBe(0);
    const lines = r.out.trim().split("\n");
    expect(lines[0]).toBe("order hg-a, exchange id 1890001 (6 records)");
    expect(lines[1]).toContain("command  new session=3 BTCUSDT sell limit 0.01 @ 97000.5");
    expect(replay(ndjson, "--order", "1890002").code).toBe(1);
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

describe("hftgate replay --check (built CLI)", () => {
  /** A journal directory of two runs (`hftgate start` writes one file per run), 3 orders each. */
  async function twoRuns(name: string): Promise<string[]> {
    const d = join(dir, name);
    const out: string[] = [];
    for (const hour of [9, 10]) {
      const j = Journal.open({
        dir: d,
        fsync: "none",
        now: () => Date.UTC(2026, 10, 21, hour),
        identity: journalIdentity("exchange", "https://coinswitch.co", "ab".repeat(32)),
      });
      for (let i = 0; i < 3; i++) {
        j.command({ session: "s", op: "new", clientId: `hg-${hour}-${i}`, symbol: "BTCUSDT" });
        j.response({ clientId: `hg-${hour}-${i}`, op: "create", status: 200, body: "{}" });
      }
      await j.close();
      out.push(j.path);
    }
    return out;
  }

  it("OK for an intact journal, naming each file's venue and account", async () => {
    await twoRuns("ok");
    const r = replay("--check", join(dir, "ok"));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/: 2 file\(s\)\n/);
    expect(r.out).toMatch(
      /hftgate-20261121T090000\.000Z-\d+-00\.hgj {2}\d+ bytes, 7 records, venue exchange at https:\/\/coinswitch\.co, account [0-9a-f]{16}/,
    );
    expect(r.out.trim().endsWith("OK")).toBe(true);
  });

  it("reports a flipped byte mid-journal with file, offset and record counts, and exits 1", async () => {
    const [first] = await twoRuns("flipped");
    const buf = readFileSync(first!);
    const at = 4 + 8 + buf.readUInt32LE(4); // the second record (after the identity note)
    buf[at + 30] ^= 0xff;
    writeFileSync(first!, buf);
    const r = replay("--check", join(dir, "flipped"));
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      `DAMAGED: ${first} at byte ${at} (a CRC mismatch): 1 records before it, 5 readable after it`,
    );
    expect(r.out).toContain("hftgate start refuses this journal");
    expect(r.out).not.toMatch(/^OK$/m);
    // Printing still reads up to the damage (and says so).
    const p = replay(join(dir, "flipped"));
    expect(p.code).toBe(0);
    expect(p.out).toContain("damaged (read up to the damage)");
  });

  it("a torn tail of the newest file is reported as such and passes; of an earlier file it fails", async () => {
    const [first, second] = await twoRuns("torn");
    truncateSync(second!, readFileSync(second!).length - 5);
    const ok = replay("--check", join(dir, "torn"));
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/torn tail: .* ends in \d+ bytes of an incomplete record at byte \d+/);
    truncateSync(first!, readFileSync(first!).length - 5);
    const bad = replay("--check", join(dir, "torn"));
    expect(bad.code).toBe(1);
    expect(bad.out).toContain(`DAMAGED: ${first} at byte`);
    expect(bad.out).toContain("(a record cut short): 6 records before it, 0 readable after it");
  });

  it("with --config and no directory: checks the configured journal.dir ({venue} expanded)", async () => {
    await twoRuns("coinswitch.co");
    const cfg = join(dir, "cfg.json");
    writeFileSync(
      cfg,
      JSON.stringify({ venue: { kind: "exchange" }, journal: { dir: join(dir, "{venue}") } }),
    );
    const r = replay("--check", "--config", cfg);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`journal ${join(dir, "coinswitch.co")}: 2 file(s)`);
    expect(replay("--check", join(dir, "missing")).code).toBe(2);
  });
});
