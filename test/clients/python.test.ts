/**
 * The Python client (clients/python) runs its own unittest suite against a live gateway on the
 * simulator over real sockets, plus the TypeScript codec's golden frames and PROTOCOL.md.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../e2e/harness.js";
import { GOLDEN } from "../protocol/golden.js";
import { HEADER, SAMPLES } from "../protocol/samples.js";

const root = resolve(import.meta.dirname, "../..");
const pkg = join(root, "clients/python");

/** A Python 3 that can import `websockets` (Debian's python3-websockets, installed by .ci/run). */
function findPython(): string | undefined {
  const candidates = [process.env.HFTGATE_PYTHON, "python3", "/usr/bin/python3"].filter(
    (p): p is string => !!p,
  );
  for (const py of candidates) {
    try {
      execFileSync(py, ["-c", "import sys, websockets; assert sys.version_info >= (3, 10)"], {
        stdio: "ignore",
      });
      return py;
    } catch {}
  }
  return undefined;
}

const python = findPython();
if (!python) console.warn("python client tests skipped: no python3 with the websockets package");

describe.skipIf(!python)("Python client against a live gateway", () => {
  let t: Harness;
  let dir: string;
  beforeAll(async () => {
    // HFT market data (the example prices from it) comes over the built-in NATS endpoint.
    t = await startHarness({ "sim.syntheticMarket": true, "sim.tickMs": 0, "sim.nats": "builtin" });
    dir = mkdtempSync(join(tmpdir(), "hftgate-py-"));
    writeFileSync(
      join(dir, "golden.json"),
      JSON.stringify({ header: HEADER, samples: SAMPLES, golden: GOLDEN }),
    );
  });
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("passes its unittest suite with nothing skipped", async () => {
    const out = await new Promise<string>((done, fail) =>
      execFile(
        python!,
        ["-m", "unittest", "discover", "-v", "-s", "tests", "-t", "."],
        {
          cwd: pkg,
          timeout: 90_000,
          env: {
            ...process.env,
            PYTHONDONTWRITEBYTECODE: "1",
            HFTGATE_URL: t.h.url,
            HFTGATE_TOKEN: t.h.token,
            HFTGATE_GOLDEN: join(dir, "golden.json"),
            HFTGATE_PROTOCOL_MD: join(root, "src/protocol/PROTOCOL.md"),
          },
        },
        // unittest reports on stderr; a failure exits non-zero and its report is the error.
        (err, _stdout, stderr) => (err ? fail(new Error(`${err.message}\n${stderr}`)) : done(stderr)),
      ),
    );
    const ran = Number(/Ran (\d+) tests?/.exec(out)?.[1] ?? 0);
    expect(out).toMatch(/\nOK\s*$/);
    expect(out).not.toMatch(/skipped/);
    expect(ran).toBeGreaterThanOrEqual(20);
    expect(out).not.toContain(t.h.token);
  }, 120_000);

  it("runs the example strategy from the state file, priced from market data: a bid rests and is cancelled, an IOC fills", async () => {
    // The connection as `hftgate start` writes it (var/gateway.json); no token in the environment.
    const stateFile = join(dir, "gateway.json");
    writeFileSync(stateFile, JSON.stringify({ url: t.h.url, token: t.h.token, venue: "sim" }));
    const { HFTGATE_TOKEN: _t, HFTGATE_URL: _u, ...env } = process.env;
    const out = await new Promise<string>((done, fail) =>
      execFile(
        python!,
        [join(pkg, "examples/strategy.py"), "--file", stateFile],
        { timeout: 30_000, env },
        (err, stdout, stderr) => (err ? fail(new Error(`${err.message}\n${stderr}`)) : done(stdout)),
      ),
    );
    expect(out).toMatch(
      /^BTCUSDT: bid \d+(\.\d+)?, take at \d+(\.\d+)? \(from the gateway's market data\)$/m,
    );
    expect(out).toMatch(/^acked #1 as \S+$/m);
    expect(out).toMatch(/^#1 CANCELLED, filled 0\.000$/m);
    expect(out).toMatch(/^fill #2: 0\.001 @ \d+\.\d$/m);
    expect(out).toMatch(/^#2 FILLED, filled 0\.001$/m);
    expect(out).toMatch(/^#2 place→ack \d+ µs \(in gateway \d+ µs\)$/m);
    expect(out).not.toContain(t.h.token);
  }, 60_000);

  it("explains a missing token in one line and exits 2", async () => {
    const { HFTGATE_TOKEN: _t, HFTGATE_URL: _u, ...env } = process.env;
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
      execFile(
        python!,
        [join(pkg, "examples/strategy.py"), "--file", join(dir, "absent.json")],
        { timeout: 30_000, env },
        (err, stdout, stderr) => done({ code: err ? (err.code as number) : 0, stdout, stderr }),
      ),
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      `strategy.py: no gateway token: pass --token, set HFTGATE_TOKEN, or start the gateway (npm start) so it writes ${join(dir, "absent.json")}`,
    ]);
  });
});
