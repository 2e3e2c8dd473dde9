/**
 * Restart = resume with a real process: the gateway (`hftgate start`) is killed with SIGKILL and
 * started again on the same journal; the strategy logs on with its last seq and receives exactly what
 * it missed (fills sent while it was away, and a fill that happened while the gateway was down), in
 * order, then new messages: no gap, no duplicate. A resume older than what the restarted gateway keeps
 * is refused with ResumeOutOfRange.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "../../sim/index.js";
import { GatewayClient, LogonRejectedError } from "../../src/client/index.js";
import { listJournals, readJournal } from "../../src/journal/reader.js";
import { decodeG2C, type G2CMessage } from "../../src/protocol/codec.js";
import { CODES, Side } from "../../src/protocol/schema.js";
import { ensureBuilt, GatewayProcess } from "../chaos/harness/child.js";
import { counterHft, secretHex, startVenue } from "../chaos/harness/venue.js";

const TOKEN = "resume-restart-token-0123";

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Fill frames the journal holds for a session (what the running gateway has sent or stored). */
function journaledFills(journalDir: string, session: string): number {
  let n = 0;
  for (const f of listJournals(journalDir))
    for (const r of readJournal(f).records)
      if (r.k === "out" && r.session === session && decodeG2C(r.frame).name === "Fill") n++;
  return n;
}

describe("restart = resume (gateway process killed with SIGKILL)", () => {
  it("the strategy resumes from its last seq: exactly the missing messages in order, then new ones; older than the retention is refused", async () => {
    ensureBuilt();
    const v = await startVenue();
    const dir = mkdtempSync(join(tmpdir(), "hftgate-resume-kill-"));
    const journalDir = join(dir, "journal");
    const cfgFile = join(dir, "config.json");
    const port = await freePort();
    const writeConfig = (gateway: Record<string, unknown> = {}) =>
      writeFileSync(
        cfgFile,
        JSON.stringify({
          venue: {
            kind: "exchange",
            spotBaseUrl: v.sim.baseUrl,
            hftBaseUrl: v.sim.baseUrl,
            streamUrl: v.sim.baseUrl,
          },
          gateway: { port, token: TOKEN, ...gateway },
          journal: { enabled: true, dir: journalDir }, // default fsync policy (interval)
          engine: { stateFile: join(dir, "gateway.json") },
          streams: { pollIntervalMs: 100 },
          orders: { unknownQueryIntervalMs: 50 },
          log: { level: "warn", pretty: "false" },
        }),
      );
    writeConfig();
    const gp = new GatewayProcess(cfgFile, { HFTGATE_SECRET_KEY: secretHex(v.keys) });
    const got: G2CMessage[] = [];
    const gaps: number[][] = [];
    let c: GatewayClient | undefined;
    try {
      await gp.start();
      c = new GatewayClient({ url: gp.url, token: TOKEN, sessionName: "resumer" });
      c.on("message", (m) => {
        if (m.header.seq !== 0) got.push(m);
      });
      c.on("gap", (a, b) => gaps.push([a, b]));
      await c.connect();
      const eth = (await c.instruments()).find(
        (i) => i.surface === 2 && i.symbol === "ETHUSDT",
      )!.instrumentId;
      // Three resting buys of 0.02 ETH at 3200.00, 3199.00, 3198.00.
      for (const px of [320_000, 319_900, 319_800])
        c.placeOrder({ instrumentId: eth, side: Side.Buy, priceTicks: px, qtyLots: 2 });
      await until(() => got.filter((m) => m.name === "Ack").length === 3, 10_000, "three acks");
      await c.close();
      const seenBefore = c.lastSeq;
      // While the strategy is away, two orders fill: the gateway sequences and journals the fills.
      await counterHft(v, "Sell", "3199.00", "0.04");
      await until(
        () => journaledFills(journalDir, "resumer") === 2,
        10_000,
        "fills journaled for the absent strategy",
      );
      await gp.kill();
      // While the gateway is down, the third order fills.
      await counterHft(v, "Sell", "3198.00", "0.02");
      await gp.start();

      const ack = await c.connect(); // resumes from lastSeq + 1
      expect(ack.resumed).toBe(1);
      expect(ack.replayFromSeq).toBe(seenBefore + 1);
      const fills = () => got.filter((m) => m.name === "Fill") as Extract<G2CMessage, { name: "Fill" }>[];
      await until(() => fills().length === 3, 15_000, "all three fills");
      c.placeOrder({ instrumentId: eth, side: Side.Buy, priceTicks: 300_000, qtyLots: 1 });
      await until(() => got.filter((m) => m.name === "Ack").length === 4, 10_000, "ack after the restart");
      const seqs = got.map((m) => m.header.seq);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1)); // 1..n: no gap, no duplicate
      expect(gaps).toEqual([]);
      expect(c.duplicates).toBe(0);
      // The fills sent while it was away come within the replay; the one found after the restart follows.
      const replayed = got.filter(
        (m) => m.header.seq > seenBefore && m.header.seq < seenBefore + 1 + ack.replayCount,
      );
      expect(replayed.filter((m) => m.name === "Fill").length).toBeGreaterThanOrEqual(2);
      expect(new Set(fills().map((f) => f.body.execId)).size).toBe(3);
      expect(fills().reduce((a, f) => a + f.body.qtyLots, 0)).toBe(6);
      expect(
        fills()
          .map((f) => f.body.clOrdNo)
          .sort(),
      ).toEqual([1, 2, 3]);
      await c.close();

      // Retention: a gateway that keeps only the last 2 frames per session cannot replay from seq 2.
      await gp.kill();
      writeConfig({ resumeRing: 2 });
      await gp.start();
      const old = new GatewayClient({ url: gp.url, token: TOKEN, sessionName: "resumer", lastSeq: 1 });
      const err = await old.connect().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LogonRejectedError);
      expect((err as LogonRejectedError).code).toBe(CODES.ResumeOutOfRange.code);
    } finally {
      await c?.close();
      await gp.stop();
      await v.sim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
