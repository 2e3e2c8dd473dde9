import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, defaultsObject, loadConfig } from "../../src/config/load.js";
import { envName, KNOBS } from "../../src/config/schema.js";

describe("configuration", () => {
  it("config/default.json holds exactly the schema defaults", () => {
    const file = JSON.parse(readFileSync(new URL("../../config/default.json", import.meta.url), "utf8"));
    expect(file).toEqual(defaultsObject());
  });

  it("example configurations load and validate", () => {
    for (const name of ["sim.json", "spot.example.json", "hft.example.json"]) {
      const cfg = loadConfig({ file: new URL(`../../config/${name}`, import.meta.url).pathname, env: {} });
      expect(cfg.gateway.port).toBeTypeOf("number");
    }
  });

  it("derives environment names from knob paths", () => {
    expect(envName("gateway.maxBufferedBytes")).toBe("HFTGATE_GATEWAY_MAX_BUFFERED_BYTES");
    expect(new Set(KNOBS.map((k) => envName(k.path))).size).toBe(KNOBS.length);
  });

  it("applies file, then environment, then overrides", () => {
    const dir = mkdtempSync(join(tmpdir(), "hftgate-cfg-"));
    const f = join(dir, "c.json");
    writeFileSync(f, JSON.stringify({ gateway: { port: 7801 }, venue: { surfaces: ["hft"] } }));
    const cfg = loadConfig({
      file: f,
      env: { HFTGATE_GATEWAY_PORT: "7802", HFTGATE_TOKEN: "tok", HFTGATE_SIGNING_PRESIGN: "false" },
      overrides: { "log.level": "warn" },
    });
    expect(cfg.gateway.port).toBe(7802);
    expect(cfg.gateway.token).toBe("tok");
    expect(cfg.signing.presign).toBe(false);
    expect(cfg.venue.surfaces).toEqual(["hft"]);
    expect(cfg.log.level).toBe("warn");
  });

  it("names the bad key and the expected form, and never echoes a secret", () => {
    expect(() => loadConfig({ env: { HFTGATE_GATEWAY_PORT: "70000" } })).toThrow(
      /HFTGATE_GATEWAY_PORT: expected an integer from 0 to 65535/,
    );
    expect(() => loadConfig({ env: { HFTGATE_SIGNING_EPOCH_POLICY: "fast" } })).toThrow(
      /one of "clock", "unique"/,
    );
    const dir = mkdtempSync(join(tmpdir(), "hftgate-cfg-"));
    const f = join(dir, "c.json");
    writeFileSync(f, JSON.stringify({ gateway: { prot: 1 } }));
    expect(() => loadConfig({ file: f, env: {} })).toThrow(/unknown key 'gateway.prot'/);
    writeFileSync(f, JSON.stringify({ keys: { secretKey: 12345 } }));
    try {
      loadConfig({ file: f, env: {} });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as Error).message).toContain("(hidden)");
      expect((e as Error).message).not.toContain("12345");
    }
  });
});
