/**
 * `hftgate config` and `hftgate bus users` through the built CLI: the effective configuration with the
 * source of each value and no secret in any form; a misspelled variable refused with exit 2 and the
 * closest name; the bus users block equal to the generator's (src/bus/permissions.ts).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { authorizationBlock, usersFor } from "../../src/bus/permissions.js";
import { KNOBS } from "../../src/config/schema.js";

const CLI = resolve(import.meta.dirname, "..", "..", "dist", "src", "cli.js");

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 15_000, encoding: "utf8" },
      (err, out, errOut) =>
        done({ code: err === null ? 0 : typeof err.code === "number" ? err.code : -1, out, err: errOut }),
    );
  });
}

const SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

describe.skipIf(!existsSync(CLI))("hftgate config and hftgate bus users", () => {
  it("prints every knob with its value and source, secrets only as set", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hftgate-cfgcli-"));
    const file = join(dir, "c.json");
    writeFileSync(
      file,
      JSON.stringify({ gateway: { port: 7811 }, bus: { nats: { password: "file-pw-123" } } }),
    );
    const env = { HFTGATE_SECRET_KEY: SECRET, HFTGATE_TOKEN: "tok-abcdef-42", HFTGATE_LOG_LEVEL: "warn" };
    const [text, json] = await Promise.all([
      cli(["config", "--config", file], env),
      cli(["config", "--config", file, "--json"], env),
    ]);
    expect(text.code, text.err).toBe(0);
    expect(json.code, json.err).toBe(0);
    for (const out of [text.out, json.out, text.err, json.err]) {
      for (const s of [SECRET, SECRET.slice(0, 16), "tok-abcdef-42", "file-pw-123"])
        expect(out).not.toContain(s);
    }
    const rows = JSON.parse(json.out) as Record<string, { value: unknown; source: string; env: string }>;
    expect(Object.keys(rows)).toEqual(KNOBS.map((k) => k.path));
    expect(rows["gateway.port"]).toEqual({ value: 7811, source: "file", env: "HFTGATE_GATEWAY_PORT" });
    expect(rows["log.level"]).toMatchObject({ value: "warn", source: "env HFTGATE_LOG_LEVEL" });
    expect(rows["keys.secretKey"]).toMatchObject({
      value: "(set, hidden)",
      source: "env HFTGATE_SECRET_KEY",
    });
    expect(rows["gateway.token"]).toMatchObject({ value: "(set, hidden)", source: "env HFTGATE_TOKEN" });
    expect(rows["bus.nats.password"]).toMatchObject({ value: "(set, hidden)", source: "file" });
    expect(rows["gateway.adminToken"]).toMatchObject({ value: null, source: "default" });
    expect(text.out).toMatch(/^gateway\.port +7811 +file$/m);
    expect(text.out).toMatch(/^keys\.secretKey +"\(set, hidden\)" +env HFTGATE_SECRET_KEY$/m);
  });

  it("refuses a misspelled variable like hftgate start, with the closest name", async () => {
    const [config, start] = await Promise.all([
      cli(["config"], { HFTGATE_GATWAY_PORT: "7812" }),
      cli(["start"], { HFTGATE_GATWAY_PORT: "7812" }),
    ]);
    for (const r of [config, start]) {
      expect(r.code).toBe(2);
      expect(r.err).toContain("'HFTGATE_GATWAY_PORT' (did you mean HFTGATE_GATEWAY_PORT?)");
      expect(r.out).not.toContain("hftgate is running");
    }
  });

  it("bus users prints the generator's block for the asked accounts and roles", async () => {
    const r = await cli(["bus", "users", "--account", "A,B", "--role", "gateway", "--role", "reader"]);
    expect(r.code, r.err).toBe(0);
    const want = usersFor({ accounts: ["A", "B"], roles: ["gateway", "reader"], strategyDropCopy: false });
    expect(r.out).toBe(authorizationBlock(want));
    expect(r.out).toContain('"password": $NATS_PASSWORD_GW_A,');
    expect(r.out).toContain('"user": "reader-B"');
    const bad = await cli(["bus", "users", "--account", "A.B"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("bus account must match");
    const role = await cli(["bus", "users", "--account", "A", "--role", "root"]);
    expect(role.code).toBe(2);
    expect(role.err).toContain("unknown role 'root'");
  });
});
