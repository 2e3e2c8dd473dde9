/**
 * The codec generates its field readers and writers at load; a process started with
 * `--disallow-code-generation-from-strings` (a hardening flag) cannot, and reads and writes through
 * the loops over the same ops instead. That process (the built codec, a child over real process
 * boundaries) must produce the same bytes for every message's sample, decode them to the same
 * bodies, and refuse a bad field the same way.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { decodeC2G, decodeG2C, encodeC2G, encodeG2C } from "../../src/protocol/codec.js";
import { type C2GName, type G2CName, MESSAGES } from "../../src/protocol/schema.js";
import { HEADER, SAMPLES } from "./samples.js";

const codec = new URL("../../dist/src/protocol/codec.js", import.meta.url).href;

/** In the child: every sample encoded (hex) and decoded again, and one NewOrder with a bad side. */
const CHILD = `
const c = await import(${JSON.stringify(codec)});
const { samples, header, messages } = JSON.parse(process.argv[1]);
const out = {};
for (const m of messages) {
  const b = m.dir === "c2g" ? c.encodeC2G(m.name, samples[m.name]) : c.encodeG2C(m.name, header, samples[m.name]);
  const hex = Buffer.from(b).toString("hex");
  const d = m.dir === "c2g" ? c.decodeC2G(Buffer.from(hex, "hex")) : c.decodeG2C(Buffer.from(hex, "hex"));
  out[m.name] = { hex, body: d.body };
}
const bad = Buffer.from(c.encodeC2G("NewOrder", samples.NewOrder));
bad[20] = 9;
out.bad = c.decodeC2G(bad);
let generated = true;
try { new Function("return 1"); } catch { generated = false; }
process.stdout.write(JSON.stringify({ out, generated }));
`;

describe("the codec without code generation", () => {
  it("writes and reads every message as the generated codec does", async () => {
    const messages = MESSAGES.map((m) => ({ name: m.name, dir: m.dir }));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        "--disallow-code-generation-from-strings",
        "--input-type=module",
        "-e",
        CHILD,
        JSON.stringify({ samples: SAMPLES, header: HEADER, messages }),
      ],
      { timeout: 20_000 },
    );
    const { out, generated } = JSON.parse(stdout) as {
      out: Record<string, { hex: string; body: unknown }> & { bad: unknown };
      generated: boolean;
    };
    // The flag took: the child could not have generated anything.
    expect(generated).toBe(false);
    for (const m of MESSAGES) {
      const sample = SAMPLES[m.name] as never;
      const b =
        m.dir === "c2g" ? encodeC2G(m.name as C2GName, sample) : encodeG2C(m.name as G2CName, HEADER, sample);
      expect(out[m.name]!.hex, m.name).toBe(Buffer.from(b).toString("hex"));
      const d = m.dir === "c2g" ? decodeC2G(Buffer.from(b)) : decodeG2C(Buffer.from(b));
      expect(out[m.name]!.body, m.name).toEqual(JSON.parse(JSON.stringify((d as { body: unknown }).body)));
    }
    expect(out.bad).toMatchObject({ error: "BadField", field: "side" });
  });
});
