import { request } from "undici";
import { afterEach, describe, expect, it, vi } from "vitest";
import { run } from "../../src/commands/sim.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("hftgate sim", () => {
  it("generates a key pair when none is given, prints the URL, serves, stops on SIGINT", async () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    const done = run(["--port", "0", "--seed", "3", "--tick-ms", "0"]);
    const start = Date.now();
    while (!out.join("").includes("listening on") && Date.now() - start < 5_000)
      await new Promise((r) => setTimeout(r, 10));
    const text = out.join("");
    const kp = JSON.parse(text.split("\n").find((l) => l.startsWith("{"))!) as {
      apiKey: string;
      secretKey: string;
    };
    expect(kp.apiKey).toMatch(/^[0-9a-f]{64}$/);
    expect(kp.secretKey).toMatch(/^[0-9a-f]{64}$/);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)![1]!;
    const r = await request(`${url}/trade/api/v2/time`);
    expect(r.statusCode).toBe(200);
    await r.body.text();
    process.emit("SIGINT");
    expect(await done).toBe(0);
  });

  it("rejects a malformed --api-key", async () => {
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    expect(await run(["--port", "0", "--api-key", "xyz"])).toBe(2);
  });
});
