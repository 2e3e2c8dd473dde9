/**
 * The configuration's edges: docs/config.md is exactly what the knob table generates; unknown
 * `HFTGATE_*` variables are refused with the closest known name, while every `HFTGATE_*` name the
 * project itself reads (clients, benches, test harnesses) passes; a file that is not JSON is refused
 * with its line and column and never with its text.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { OTHER_ENV_NAMES } from "../../src/config/envNames.js";
import { jsonErrorAt } from "../../src/config/jsonError.js";
import {
  ConfigError,
  configReference,
  explainConfig,
  KNOB_ENV_NAMES,
  loadConfig,
} from "../../src/config/load.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
const REFUSAL_TESTS = ["test/config/reference.test.ts", "test/cli/config.test.ts"];

function refused(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("not refused");
}

describe("configuration reference and refusals", () => {
  it("docs/config.md is the generated reference (npm run docs:config rewrites it)", () => {
    const doc = readFileSync(join(ROOT, "docs", "config.md"), "utf8");
    expect(doc).toBe(configReference());
    // Every knob's environment name and meaning is in it.
    for (const name of KNOB_ENV_NAMES) expect(doc).toContain(`\`${name}\``);
  });

  it("refuses misspelled HFTGATE_* variables, naming the closest known one", () => {
    expect(refused(() => loadConfig({ env: { HFTGATE_GATWAY_PORT: "7701" } }))).toContain(
      "'HFTGATE_GATWAY_PORT' (did you mean HFTGATE_GATEWAY_PORT?)",
    );
    expect(refused(() => loadConfig({ env: { HFTGATE_LOGLEVEL: "debug" } }))).toContain(
      "did you mean HFTGATE_LOG_LEVEL?",
    );
    const m = refused(() => loadConfig({ env: { HFTGATE_SECRETKEY: "00ff00ff" } }));
    expect(m).toContain("did you mean HFTGATE_SECRET_KEY?");
    expect(m).not.toContain("00ff00ff");
    // Far from every name: refused without a guess. Other prefixes are not ours to judge.
    const far = refused(() => loadConfig({ env: { HFTGATE_WHATEVER_THIS_IS_X: "1" } }));
    expect(far).not.toContain("did you mean");
    expect(loadConfig({ env: { HFTGATEWAY: "1", PATH: "/bin" } }).gateway.port).toBe(7700);
    // A misspelled file key gets the same hint.
    const dir = mkdtempSync(join(tmpdir(), "hftgate-cfgref-"));
    const f = join(dir, "c.json");
    writeFileSync(f, JSON.stringify({ gateway: { prot: 1 } }));
    expect(refused(() => loadConfig({ file: f, env: {} }))).toContain("did you mean gateway.port?");
  });

  it("lets every HFTGATE_* name the project reads pass (knob, alias or listed)", () => {
    const allowed = new Set([...KNOB_ENV_NAMES, ...OTHER_ENV_NAMES.map((o) => o.name)]);
    // Names that appear in the code but are not environment variables.
    const notEnv = new Set(["HFTGATE_NOT_SENT", "HFTGATE_DC_", "HFTGATE_DC_A", "HFTGATE_DC_B"]);
    const seen = new Map<string, string>();
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir)) {
        if (e === "node_modules" || e === "dist" || e === "results" || e.startsWith(".git")) continue;
        const p = join(dir, e);
        // The refusal tests spell names wrong on purpose.
        if (REFUSAL_TESTS.some((t) => p.endsWith(t))) continue;
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.(ts|js|py|sh|md|json|yaml|yml)$|^run$|^Dockerfile$/.test(e))
          for (const m of readFileSync(p, "utf8").matchAll(/\bHFTGATE_[A-Z0-9_]*[A-Z0-9]\b/g))
            if (!seen.has(m[0])) seen.set(m[0], p.slice(ROOT.length + 1));
      }
    };
    for (const d of ["src", "sim", "test", "bench", "clients", "examples", ".ci", "docs", "deploy"])
      if (statSync(join(ROOT, d), { throwIfNoEntry: false })?.isDirectory()) walk(join(ROOT, d));
    for (const f of ["README.md", "Dockerfile"])
      if (statSync(join(ROOT, f), { throwIfNoEntry: false })) {
        for (const m of readFileSync(join(ROOT, f), "utf8").matchAll(/\bHFTGATE_[A-Z0-9_]*[A-Z0-9]\b/g))
          if (!seen.has(m[0])) seen.set(m[0], f);
      }
    const stray = [...seen].filter(([n]) => !allowed.has(n) && !notEnv.has(n)).map(([n, f]) => `${n} (${f})`);
    // A new variable goes into the knob table or into src/config/envNames.ts.
    expect(stray).toEqual([]);
    expect(seen.size).toBeGreaterThan(20);
    const env = Object.fromEntries(OTHER_ENV_NAMES.map((o) => [o.name, "1"]));
    expect(() => loadConfig({ env })).not.toThrow();
  });

  it("says where a JSON file stops being JSON, without its text", () => {
    const dir = mkdtempSync(join(tmpdir(), "hftgate-cfgref-"));
    const f = join(dir, "c.json");
    writeFileSync(f, '{\n  "keys": {\n    "secretKey": "s3cr3t-value"\n  },\n}\n');
    const m = refused(() => loadConfig({ file: f, env: {} }));
    expect(m).toContain("not valid JSON at line 5, column 1");
    expect(m).not.toContain("s3cr3t");
    writeFileSync(f, '{"gateway": {"port": 77 00}}');
    expect(refused(() => loadConfig({ file: f, env: {} }))).toContain("line 1, column 25");
    // The scanner agrees with JSON.parse on what is valid.
    for (const t of ['{"a":[1,2.5e3,true,null,"x\\u00e9"]}', "[]", ' "s" ', "-0.1"])
      expect(jsonErrorAt(t)).toBeUndefined();
    for (const [t, line, column] of [
      ['{"a": }', 1, 7],
      ["{'a': 1}", 1, 2],
      ['{"a": 1} // c', 1, 10],
      ['{"a":\n 01}', 2, 3],
      ['{"a": "x\n"}', 1, 9],
      ['{"a": [1,]}', 1, 10],
      ['{"a": 1', 1, 8],
    ] as const) {
      expect(() => JSON.parse(t)).toThrow();
      expect(jsonErrorAt(t), t).toMatchObject({ line, column });
    }
  });

  it("tells where each value came from", () => {
    const dir = mkdtempSync(join(tmpdir(), "hftgate-cfgref-"));
    const f = join(dir, "c.json");
    writeFileSync(f, JSON.stringify({ gateway: { port: 7801 }, log: { level: "warn" } }));
    const e = explainConfig({ file: f, env: { HFTGATE_GATEWAY_PORT: "7802", HFTGATE_TOKEN: "t" } });
    expect(e.config.gateway.port).toBe(7802);
    expect(e.sources.get("gateway.port")).toBe("env HFTGATE_GATEWAY_PORT");
    expect(e.sources.get("gateway.token")).toBe("env HFTGATE_TOKEN");
    expect(e.sources.get("log.level")).toBe("file");
    expect(e.sources.get("journal.dir")).toBe("default");
  });
});
