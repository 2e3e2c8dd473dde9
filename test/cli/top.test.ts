/**
 * `hftgate top` against a live gateway: GET /admin/state answers only to the admin token and never
 * carries a token; the built CLI, driven through a pseudo-terminal (util-linux `script`), draws the
 * sessions, the live order, the reject and the stage table, and quits on `q` with exit 0.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CODES, Side } from "../../src/protocol/schema.js";
import { type Harness, next, startHarness } from "../e2e/harness.js";

const CLI = resolve(import.meta.dirname, "..", "..", "dist", "src", "cli.js");
const hasScript = existsSync("/usr/bin/script");
let hx: Harness;

beforeAll(async () => {
  hx = await startHarness();
  const alice = await hx.client("alice");
  const btc = hx.inst("linear", "BTCUSDT");
  const a = alice.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 600_000, qtyLots: 1 });
  await next(alice, "ack", (b) => b.clOrdNo === a);
  const r = alice.placeOrder({ instrumentId: 999_999, side: Side.Buy, priceTicks: 1, qtyLots: 1 });
  await next(alice, "reject", (b) => b.clOrdNo === r);
  await hx.client("bob");
});
afterAll(() => hx.close());

const state = (auth?: string) =>
  fetch(`${hx.h.httpUrl}/admin/state`, auth ? { headers: { authorization: auth } } : {});

describe("GET /admin/state", () => {
  it("refuses no token and the user token; never shows a token", async () => {
    expect((await state()).status).toBe(401);
    expect((await state(`Bearer ${hx.h.token}`)).status).toBe(401);
    const r = await state(`Bearer ${hx.h.adminToken}`);
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(text).not.toContain(hx.h.token);
    expect(text).not.toContain(hx.h.adminToken);
    const s = JSON.parse(text) as {
      sessions: { name: string; liveOrders: number }[];
      orders: { session: string; symbol: string; status: string; price: string }[];
      rejects: { session: string; text: string }[];
      stages: Record<string, { count: number }>;
      health: { tradingState: string };
    };
    expect(s.sessions.map((x) => [x.name, x.liveOrders]).sort()).toEqual([
      ["alice", 1],
      ["bob", 0],
    ]);
    expect(s.orders).toMatchObject([{ session: "alice", symbol: "BTCUSDT", status: "New", price: "60000" }]);
    expect(s.rejects[0]!.text).toContain(String(CODES.UnknownInstrument.code));
    expect(s.stages.exchange_rtt!.count).toBeGreaterThan(0);
    expect(s.health.tradingState).toBe("active");
  });
});

describe.skipIf(!existsSync(CLI))("hftgate top (built CLI)", () => {
  it("--once prints one plain frame", async () => {
    const out = await new Promise<string>((done, fail) =>
      execFile(
        process.execPath,
        [CLI, "top", "--once", "--url", hx.h.httpUrl, "--file", "/nonexistent"],
        { env: { PATH: process.env.PATH ?? "", HFTGATE_ADMIN_TOKEN: hx.h.adminToken }, encoding: "utf8" },
        (err, stdout) => (err ? fail(err) : done(stdout)),
      ),
    );
    expect(out).not.toContain("\x1b[");
    expect(out).toMatch(/^ {2}alice +#?\d+ +BTCUSDT +buy +60000 /m);
    expect(out).toContain("recent rejects");
  });

  it.skipIf(!hasScript)(
    "draws the live view in a terminal and quits on q",
    async () => {
      const cmd = `${process.execPath} ${CLI} top --interval 200 --url ${hx.h.httpUrl} --file /nonexistent`;
      const child = spawn("script", ["-qfec", cmd, "/dev/null"], {
        env: { PATH: process.env.PATH ?? "", TERM: "xterm", HFTGATE_ADMIN_TOKEN: hx.h.adminToken },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
      });
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      try {
        const end = Date.now() + 15_000;
        // Two frames: the view redraws (clear screen) at its interval.
        while ((out.match(/\x1b\[2J/g) ?? []).length < 2 || !out.includes("bob")) {
          if (Date.now() > end || child.exitCode !== null) throw new Error(`no live view: ${out}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(out).toContain("hftgate top");
        expect(out).toMatch(/alice +connected +1/);
        expect(out).toContain("BTCUSDT");
        expect(out).toContain("exchange_rtt");
        expect(out).toContain(`${CODES.UnknownInstrument.code} `);
        expect(out).not.toContain(hx.h.adminToken);
        child.stdin.write("q");
        expect(await exited).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill("SIGKILL");
      }
    },
    30_000,
  );

  it.skipIf(!hasScript)(
    "fits an 80×24 terminal: each frame at most 23 lines, the header on top",
    async () => {
      const cmd = `stty rows 24 cols 80; ${process.execPath} ${CLI} top --interval 200 --url ${hx.h.httpUrl} --file /nonexistent`;
      const child = spawn("script", ["-qfec", cmd, "/dev/null"], {
        env: { PATH: process.env.PATH ?? "", TERM: "xterm", HFTGATE_ADMIN_TOKEN: hx.h.adminToken },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
      });
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      try {
        const end = Date.now() + 15_000;
        while ((out.match(/\x1b\[2J/g) ?? []).length < 3) {
          if (Date.now() > end || child.exitCode !== null) throw new Error(`no live view: ${out}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        child.stdin.write("q");
        expect(await exited).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      // A full frame: between two clear-screens.
      const frame = out.split("\x1b[2J")[2]!;
      const lines = frame
        .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
        .replace(/\r/g, "")
        .split("\n");
      expect(lines[0]).toMatch(/^hftgate top /);
      if (lines.at(-1) === "") lines.pop(); // the newline after the frame
      expect(lines.length).toBeLessThanOrEqual(23);
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
      expect(frame).toContain("rate-limit credit");
    },
    30_000,
  );
});
