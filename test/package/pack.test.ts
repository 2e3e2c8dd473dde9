/**
 * The npm package as a user gets it: `npm pack` the project, install the tarball into a fresh
 * project (locked dependencies from the npm cache, else the registry), type-check a strategy that imports
 * every entry point (`hftgate`, `hftgate/client`, `hftgate/rest`, `hftgate/protocol`) against the
 * shipped .d.ts files, run it (it trades against the embedded simulator in process and over the
 * WebSocket), and run the installed `hftgate` bin.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const built = existsSync(join(ROOT, "dist", "src", "index.d.ts"));
const dir = mkdtempSync(join(tmpdir(), "hftgate-pack-"));
const app = join(dir, "app");

interface Packed {
  filename: string;
  files: { path: string }[];
}
let packed: Packed;

/** npm with no audit, funding or update notices; CI=true as in CI. */
function npm(args: string[], cwd: string): string {
  return execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CI: "true", npm_config_update_notifier: "false" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function tsc(project: string): { code: number; out: string } {
  const r = spawnSync(process.execPath, [TSC, "-p", project], { encoding: "utf8" });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

beforeAll(() => {
  if (!built) return;
  // The build already ran (npm test's pretest): pack what is in dist without building again.
  packed = (
    JSON.parse(npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dir], ROOT)) as Packed[]
  )[0]!;
  mkdirSync(app);
  // The consumer installs exactly the dependency versions this repository locks (and CI tested):
  // its lock file is the tarball plus the production entries of ours. From the npm cache when it
  // holds them (after npm ci it does), else from the registry.
  const tgz = `file:${join(dir, packed.filename)}`;
  const ours = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, unknown>;
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const packages: Record<string, unknown> = {
    "": { name: "hftgate-consumer", dependencies: { hftgate: tgz } },
    "node_modules/hftgate": {
      version: ours.version,
      resolved: tgz,
      dependencies: ours.dependencies,
      bin: ours.bin,
      engines: ours.engines,
    },
  };
  for (const [k, v] of Object.entries(lock.packages))
    if (k.startsWith("node_modules/") && v.dev !== true) packages[k] = v;
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({
      name: "hftgate-consumer",
      private: true,
      type: "module",
      dependencies: { hftgate: tgz },
      // Ours apply only to our own install; the consumer repeats them to get the locked tree.
      overrides: ours.overrides,
    }),
  );
  writeFileSync(
    join(app, "package-lock.json"),
    JSON.stringify({ name: "hftgate-consumer", lockfileVersion: 3, requires: true, packages }),
  );
  npm(["ci", "--prefer-offline", "--ignore-scripts"], app);
  copyFileSync(join(ROOT, "test", "package", "consumer", "strategy.ts"), join(app, "strategy.ts"));
  writeFileSync(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: true,
        outDir: "out",
        // @types/node from this repository: the consumer project installs only hftgate.
        typeRoots: [join(ROOT, "node_modules", "@types")],
        types: ["node"],
      },
      files: ["strategy.ts"],
    }),
  );
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!built)("npm package (packed, installed, imported)", () => {
  it("ships the compiled sources, the simulator, the types and the bin; no tests, benchmarks or maps", () => {
    const files = packed.files.map((f) => f.path);
    for (const f of [
      "package.json",
      "dist/src/cli.js",
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "dist/src/client/index.d.ts",
      "dist/src/rest/index.d.ts",
      "dist/src/protocol/index.d.ts",
      "dist/src/auth/presignWorker.js",
      "dist/sim/index.js",
    ])
      expect(files).toContain(f);
    expect(files.filter((f) => /^dist\/(test|bench|examples)\/|\.map$|^src\/.*\.ts$/.test(f))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(app, "node_modules", "hftgate", "package.json"), "utf8")) as {
      main: string;
      types: string;
      bin: Record<string, string>;
      exports: Record<string, { types: string; default: string } | string>;
    };
    for (const target of [pkg.main, pkg.types, pkg.bin.hftgate!]) expect(files).toContain(target);
    for (const e of Object.values(pkg.exports)) {
      if (typeof e === "string") continue;
      expect(files).toContain(e.types.replace(/^\.\//, ""));
      expect(files).toContain(e.default.replace(/^\.\//, ""));
    }
  });

  it("type-checks a strategy importing every entry point, and refuses a wrong call", () => {
    const ok = tsc(app);
    expect(ok.out).toBe("");
    expect(ok.code).toBe(0);
    // The types are real (not `any`): a wrong argument type and a missing export are errors.
    const bad = join(dir, "bad");
    mkdirSync(bad);
    writeFileSync(
      join(bad, "bad.ts"),
      'import { GatewayClient } from "hftgate/client";\nimport { nope } from "hftgate/rest";\n' +
        'new GatewayClient({ token: 1, sessionName: "x" });\nvoid nope;\n',
    );
    const cfg = JSON.parse(readFileSync(join(app, "tsconfig.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(bad, "tsconfig.json"), JSON.stringify({ ...cfg, files: ["bad.ts"] }));
    // Resolved from the consumer's node_modules (the folder sits beside it, with its own link).
    mkdirSync(join(bad, "node_modules"));
    execFileSync("ln", ["-s", join(app, "node_modules", "hftgate"), join(bad, "node_modules", "hftgate")]);
    const r = tsc(bad);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/bad\.ts\(2,10\): error TS2305/); // no export named 'nope'
    expect(r.out).toMatch(/bad\.ts\(3,\d+\): error TS2322/); // token: number is not a string
  });

  it("runs it: trades in process and over the WebSocket against the embedded simulator", () => {
    if (!existsSync(join(app, "out", "strategy.js"))) expect(tsc(app).code).toBe(0);
    const r = spawnSync(process.execPath, [join(app, "out", "strategy.js"), app], {
      cwd: app,
      encoding: "utf8",
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(out.codec).toBe(7);
    // The signature of a known message is the one the exchange's documented vector gives.
    expect(out.signature).toBe(
      "bc94df6a14d69927f0387bde81be88de8d4068ed125b9defd38f34f31f9019cb4313ee7f3aa862f9b02277879889e428a6994b1655e95a1ae12a8967dce92f07",
    );
    expect(out.portfolioRows).toBeGreaterThan(0);
    for (const k of ["inProcess", "overWs"]) {
      const t = out[k] as { exchangeOrderId: string; final: number };
      expect(t.exchangeOrderId).not.toBe("");
      expect(t.final).toBe(6); // OrderStatus.Cancelled
    }
  }, 90_000);

  it("installs the hftgate bin, which answers --help", () => {
    const bin = join(app, "node_modules", ".bin", "hftgate");
    const out = execFileSync(bin, ["--help"], { encoding: "utf8" });
    expect(out).toContain("usage: hftgate <command>");
    const sim = execFileSync(bin, ["sim", "--help"], { encoding: "utf8" });
    expect(sim).toContain("--api-key");
  });
});
