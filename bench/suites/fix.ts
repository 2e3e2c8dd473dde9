/**
 * FIX suite: FIX 4.4 NewOrderSingle → ExecutionReport New beside the binary protocol's NewOrder → Ack,
 * in the same run, through the same gateway process to the same exchange stub (blocks interleaved,
 * all processes on one vCPU when taskset is there, as the e2e suite's first layout); and the FIX
 * codec's own cost: parsing a NewOrderSingle and encoding an ExecutionReport.
 *
 * Targets (docs/fix.md): FIX p50 ≤ 1.2× the binary protocol's p50; a NewOrderSingle parsed in ≤ 1 µs.
 */
import { generateKeyPairSync } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../sim/index.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { FixEncoder, FixMessage, type FrameResult, headerOf, readFrame } from "../../src/fix/codec.js";
import { BENCH_SECRET } from "../lib/benchKeys.js";
import { ChildProc } from "../lib/child.js";
import { hasTaskset, nodeLauncher, pinSelf } from "../lib/placement.js";
import { type LatencySummary, ratio } from "../lib/stats.js";

export const name = "fix";

const here = dirname(fileURLToPath(import.meta.url));
const proc = (f: string) => join(here, "..", "lib", "procs", f);
const TOKEN = "fix-bench-token";
const SIZES = { warm: 1_000, blocks: 10, perBlock: 300, codecN: 1_000_000 };

/** ns per call of `fn`, best of 5 rounds of `n` calls (a shared machine disturbs single rounds). */
function nsPerOp(n: number, fn: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / n);
  }
  return Math.round(best);
}

function codec(n: number): Record<string, number> {
  const enc = new FixEncoder();
  const nos = enc
    .begin()
    .f(11, "ord-000123")
    .f(55, "BTCUSDT")
    .f(54, "1")
    .f(40, "2")
    .f(44, "1000.5")
    .f(38, "0.005")
    .f(59, "1")
    .f(60, "20260101-00:00:00.000")
    .finish("D", headerOf("BENCH", "HFTGATE"), 123456, "20260101-00:00:00.000");
  const m = new FixMessage();
  const res: FrameResult = { used: 0, error: undefined };
  let sink = 0;
  // Parse = framing, length and checksum checks, the field index, and reading the fields an order needs.
  const parse = nsPerOp(n, () => {
    readFrame(nos, 0, nos.length, m, res);
    sink += m.int(34) + m.find(11) + m.find(55) + m.find(54) + m.find(44) + m.find(38);
  });
  const hdr = headerOf("HFTGATE", "BENCH");
  const encode = nsPerOp(n / 4, () => {
    const e = enc.begin().f(37, "BENCH-1").f(11, "ord-000123").f(17, "7.1234").f(150, "0").f(39, "0");
    e.f(198, "c4a1c358-4285-44e3-8224-48c40f6a79dc").f(55, "BTCUSDT").f(54, "1").f(40, "2").f(44, "1000.5");
    e.f(38, "0.005").f(59, "1").f(151, "0.005").f(14, "0").f(6, "0").f(60, "20260101-00:00:00.000");
    sink += e.finish("8", hdr, 123456, "20260101-00:00:00.000").length;
  });
  if (sink === 42) process.stdout.write("");
  return { parse_new_order_single_ns: parse, encode_execution_report_ns: encode, message_bytes: nos.length };
}

export async function run(): Promise<Record<string, unknown>> {
  const cpu = hasTaskset() ? "0" : null;
  const restore = pinSelf(cpu ?? "0");
  const apiKey = loadKeyPair(BENCH_SECRET).apiKey;
  const procs: ChildProc[] = [];
  try {
    const codecFigures = codec(SIZES.codecN);
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const seedHex = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32).toString("hex");
    const pubHex = publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("hex");
    const venue = await ChildProc.start(nodeLauncher(cpu), proc("venue.js"), [apiKey]);
    procs.push(venue);
    const fixPort = await freePort();
    const overrides = { "fix.port": fixPort, "fix.sessions": [`BENCH:${pubHex}`] };
    const gw = await ChildProc.start(nodeLauncher(cpu), proc("gateway.js"), [
      `http://127.0.0.1:${venue.info.port as number}`,
      TOKEN,
      JSON.stringify(overrides),
    ]);
    procs.push(gw);
    const st = await ChildProc.start(nodeLauncher(cpu), proc("strategy.js"));
    procs.push(st);
    const fx = await ChildProc.start(nodeLauncher(cpu), proc("fixStrategy.js"));
    procs.push(fx);
    const tpl = gw.info.tpl as { priceTicks: number; qtyLots: number };
    await st.call("connect", { url: gw.info.url, token: TOKEN, tpl, spotTpl: gw.info.spotTpl });
    // The binary template: HFT BTCUSDT, tick 0.1, step 0.001 (bench/lib/procs/gateway.ts).
    const fixTpl = { symbol: "BTCUSDT", px: String(tpl.priceTicks / 10), qty: String(tpl.qtyLots / 1000) };
    await fx.call("connect", { port: fixPort, sender: "BENCH", seedHex, tpl: fixTpl });
    await st.call("orderBlock", { n: SIZES.warm, record: false });
    await fx.call("orderBlock", { n: SIZES.warm, record: false });
    for (let b = 0; b < SIZES.blocks; b++) {
      await st.call("orderBlock", { n: SIZES.perBlock, record: true });
      await fx.call("orderBlock", { n: SIZES.perBlock, record: true });
    }
    const bin = await st.call<{ order: Record<string, LatencySummary>; answers: Record<string, unknown> }>(
      "results",
    );
    const f = await fx.call<{ order_to_er_new: LatencySummary; answers: Record<string, unknown> }>("results");
    const binary = bin.order.total!;
    const fixL = f.order_to_er_new;
    return {
      placement: cpu === null ? "unpinned" : "all on vCPU 0",
      codec: codecFigures,
      binary_new_order_to_ack: binary,
      fix_new_order_single_to_er_new: fixL,
      answers: { binary: bin.answers, fix: f.answers },
      ratio_fix_vs_binary_p50: ratio(fixL.p50_us, binary.p50_us),
      ratio_fix_vs_binary_p99: ratio(fixL.p99_us, binary.p99_us),
      targets: {
        fix_p50_within_1_2x_binary: ratio(fixL.p50_us, binary.p50_us) <= 1.2,
        parse_new_order_single_within_1us: codecFigures.parse_new_order_single_ns! <= 1000,
      },
    };
  } finally {
    for (const p of procs.reverse()) await p.stop();
    restore();
  }
}
