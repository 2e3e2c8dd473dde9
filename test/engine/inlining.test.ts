/**
 * `engine.inlining`: the `wide` flags are ones this Node's V8 knows, and they change what TurboFan
 * inlines (a child process compiles a chain of six mid-sized functions and traces its inlining).
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { applyInlining, INLINING_FLAGS } from "../../src/engine/inlining.js";

/** Sets the flags given as JSON, then traces the inlining of c1 → c2 → … → c6 run hot. */
const CHAIN = `
const v8 = require("node:v8");
for (const f of JSON.parse(process.argv[1])) v8.setFlagsFromString(f);
v8.setFlagsFromString("--trace-turbo-inlining");
// Compiled on the main thread when hot, so a busy machine cannot end the loop before the compile.
v8.setFlagsFromString("--no-concurrent-recompilation");
const step = "s = (s * 31 + i) | 0; s ^= s >>> 7; s = (s + (x & 255)) | 0; s = (s * 17 + (i << 2)) | 0; s ^= s << 3; s = (s + 11) | 0; s ^= s >>> 5; s = (s * 13 + 7) | 0;";
let src = "";
for (let k = 1; k <= 6; k++) {
  src += "function c" + k + "(x) { let s = x | 0; for (let i = 0; i < 3; i++) { " + step + step + " } return " + (k < 6 ? "c" + (k + 1) + "(s)" : "s") + "; }\\n";
}
src += "let t = 0; for (let i = 0; i < 1000000; i++) t = (t + c1(i)) | 0; return t;";
console.log("result", new Function(src)());
`;

function trace(flags: readonly string[]): string {
  return execFileSync(process.execPath, ["-e", CHAIN, JSON.stringify(flags)], { encoding: "utf8" });
}

/** True when the trace shows c6 compiled into c1's optimized code (the whole chain fused). */
const fused = (out: string): boolean =>
  /SharedFunctionInfo c6>\} into \S+ \{\S+ <SharedFunctionInfo c1>/.test(out);

describe("engine.inlining", () => {
  it("wide uses flags this Node's V8 lists", () => {
    const known = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8" });
    expect(INLINING_FLAGS.wide.length).toBeGreaterThan(0);
    for (const f of INLINING_FLAGS.wide) {
      const name = f.slice(0, f.indexOf("="));
      expect(known).toContain(`  ${name} (`);
    }
    expect(INLINING_FLAGS.v8).toEqual([]);
  });

  it("wide fuses a chain that V8's default budget cuts short", () => {
    const plain = trace(INLINING_FLAGS.v8);
    const wide = trace(INLINING_FLAGS.wide);
    // Both compiled and inlined something, and computed the same result.
    expect(plain).toMatch(/Inlining .*SharedFunctionInfo c2>\} into/);
    expect(plain.match(/^result .*/m)?.[0]).toBe(wide.match(/^result .*/m)?.[0]);
    expect(fused(plain)).toBe(false);
    expect(fused(wide)).toBe(true);
  });

  it("applyInlining returns the flags it set; v8 sets none", () => {
    expect(applyInlining("v8")).toEqual([]);
    expect(applyInlining("wide")).toEqual(INLINING_FLAGS.wide);
  });

  it("the knob defaults to wide and refuses other values", () => {
    expect(loadConfig({ env: {} }).engine.inlining).toBe("wide");
    expect(loadConfig({ env: { HFTGATE_ENGINE_INLINING: "v8" } }).engine.inlining).toBe("v8");
    expect(() => loadConfig({ env: { HFTGATE_ENGINE_INLINING: "huge" } })).toThrow(
      /HFTGATE_ENGINE_INLINING: expected one of "wide", "v8"/,
    );
  });
});
