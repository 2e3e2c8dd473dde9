/**
 * `hftgate preflight --json` as an operator runs it, against an `hftgate sim` process that differs
 * from the gateway's assumptions in three ways (its NATS endpoint takes the socket credential as a
 * token, its clock runs 90 s ahead, the key is off the options allowlist): exit code 1, each found by
 * its check, the JSON report names the mapping to set, the secret (given in HFTGATE_SECRET_KEY)
 * appears nowhere in the output, and the simulator saw reads only.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateKeyHex } from "../../src/auth/keygen.js";
import type { PreflightReport } from "../../src/preflight/report.js";

const CLI = resolve(import.meta.dirname, "..", "..", "dist", "src", "cli.js");
const dir = mkdtempSync(join(tmpdir(), "hftgate-preflight-"));
let simProc: ChildProcess | undefined;

afterAll(() => {
  simProc?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `hftgate sim` and reads its URLs from the lines it prints. */
function startSim(args: string[]): Promise<{ http: string; nats: string; admin: string }> {
  const p = spawn(process.execPath, [CLI, "sim", "--port", "0", "--tick-ms", "0", ...args], {
    env: { PATH: process.env.PATH ?? "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  simProc = p;
  return new Promise((done, fail) => {
    let out = "";
    p.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const http = /simulator listening on (\S+)/.exec(out)?.[1];
      const nats = /nats \(HFT streams[^)]*\) at (\S+)/.exec(out)?.[1];
      const admin = /admin \(fault injection\) on (\S+)/.exec(out)?.[1];
      if (http && nats && admin && out.includes("accounts:")) done({ http, nats, admin });
    });
    p.once("exit", (code) => fail(new Error(`hftgate sim exited ${code}: ${out}`)));
  });
}

describe.skipIf(!existsSync(CLI))("hftgate preflight (built CLI)", () => {
  it("exits 1 on a venue with another NATS mapping, recommends the knob, prints no secret", async () => {
    const keys = generateKeyHex();
    const sim = await startSim([
      "--api-key",
      keys.apiKey,
      "--nats-auth",
      "token",
      "--no-options-allowlist",
      "--clock-skew-ms",
      "90000",
      "--admin-port",
      "0",
    ]);
    const cfg = join(dir, "live.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        venue: {
          kind: "exchange",
          spotBaseUrl: sim.http,
          hftBaseUrl: sim.http,
          streamUrl: sim.http,
          hftCategories: ["linear", "option"],
        },
        streams: { hftNats: { url: sim.nats } },
      }),
    );
    const r = await new Promise<{ code: number; out: string; err: string }>((done) =>
      execFile(
        process.execPath,
        [CLI, "preflight", "--config", cfg, "--json", "--timeout-ms", "3000"],
        { env: { PATH: process.env.PATH ?? "", HFTGATE_SECRET_KEY: keys.secretKey }, timeout: 30_000 },
        (e, out, err) => done({ code: e === null ? 0 : typeof e.code === "number" ? e.code : -1, out, err }),
      ),
    );
    expect(r.code, r.err).toBe(1);
    const report = JSON.parse(r.out) as PreflightReport;
    const nats = report.checks.find((c) => c.id === "hftStream")!;
    expect(nats.status).toBe("fail");
    expect(nats.data?.accepted).toEqual(["token"]);
    expect(nats.fix).toContain("streams.hftNats.auth=token");
    // The other two flags: a clock 90 s ahead and a key off the options allowlist, each found.
    const failed = report.checks.filter((c) => c.required && c.status === "fail").map((c) => c.id);
    expect(failed).toEqual(["clock", "options", "hftStream"]);
    for (const id of ["key", "instruments", "hft", "spotStream"])
      expect(report.checks.find((c) => c.id === id)?.status, id).toBe("pass");
    expect(r.out + r.err).not.toContain(keys.secretKey);
    expect(r.out + r.err).not.toMatch(/[0-9a-f]{32}/i);
    const state = (await (await fetch(`${sim.admin}/state`)).json()) as {
      requests: Record<string, number>;
      ordersCreated: Record<string, number>;
    };
    expect(Object.keys(state.requests).filter((e) => !e.startsWith("GET "))).toEqual([]);
    expect(Object.values(state.ordersCreated).reduce((a, b) => a + b, 0)).toBe(0);
  }, 40_000);
});
