import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/index.js";
import { Side } from "../../src/protocol/schema.js";
import { next } from "./harness.js";

const CLI = new URL("../../dist/src/cli.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "hftgate-cli-"));
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

// Runs the built CLI (`npm test` builds dist first); skipped when dist is absent.
describe.skipIf(!existsSync(CLI))("hftgate start (built CLI, child process)", () => {
  it("starts with no configuration, prints the block, writes the state file 0600, trades, stops on SIGTERM", async () => {
    const stateFile = join(dir, "gateway.json");
    child = spawn(process.execPath, [CLI, "start"], {
      env: {
        PATH: process.env.PATH,
        HFTGATE_GATEWAY_PORT: "0",
        HFTGATE_ENGINE_STATE_FILE: stateFile,
        HFTGATE_JOURNAL_DIR: join(dir, "journal"),
        HFTGATE_LOG_LEVEL: "warn",
        HFTGATE_LOG_PRETTY: "false",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d) => {
      out += String(d);
    });
    child.stderr!.on("data", (d) => {
      out += String(d);
    });
    const end = Date.now() + 15_000;
    while (!out.includes("stop         Ctrl-C")) {
      if (Date.now() > end || child.exitCode !== null) throw new Error(`no banner: ${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(out).toMatch(/command API {2}ws:\/\/127\.0\.0\.1:\d+\/v1\/ws/);
    expect(out).toMatch(/venue {8}embedded simulator/);
    expect(out).toContain("npm run demo");
    const st = JSON.parse(readFileSync(stateFile, "utf8")) as {
      url: string;
      httpUrl: string;
      token: string;
      venue: string;
      venueUrl: string;
    };
    expect(st.venue).toBe("sim");
    expect(st.venueUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(out).toContain(st.token);
    expect((await fetch(`${st.httpUrl}/health`)).status).toBe(200);

    const c = new GatewayClient({ url: st.url, token: st.token, sessionName: "cli" });
    await c.connect();
    const inst = (await c.instruments()).find((i) => i.symbol === "BTCUSDT")!;
    const ack = next(c, "ack");
    c.placeOrder({ instrumentId: inst.instrumentId, side: Side.Buy, priceTicks: 600_000, qtyLots: 1 });
    expect((await ack).exchangeOrderId).not.toBe("");
    await c.close();

    const exited = new Promise<number | null>((r) => child!.once("exit", (code) => r(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(existsSync(stateFile)).toBe(false);
  }, 25_000);
});
