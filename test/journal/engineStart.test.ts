/**
 * The journal checks as start-up runs them (startEngine, venue `exchange` at in-process simulators):
 * a second engine on a held journal directory is refused naming the first; a journal of another venue
 * is refused; a clean stop frees the directory for the next start; damage refuses with file and offset
 * until journal.recoverFromVenue moves it aside (handle.journalCheck.recovery says what moved).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { generateKeyHex } from "../../src/auth/keygen.js";
import { type EngineHandle, StartupError, startEngine } from "../../src/index.js";
import { frameEnd, JournalDamageError, journalFiles } from "../../src/journal/index.js";
import { silent, testConfig } from "../e2e/harness.js";

const keys = generateKeyHex();
let a: SimHandle;
let b: SimHandle;
const root = mkdtempSync(join(tmpdir(), "hftgate-jstart-"));

beforeAll(async () => {
  const o = { apiKeys: [keys.apiKey], market: { synthetic: false, tickMs: 0 } };
  [a, b] = await Promise.all([startSimulator(o), startSimulator(o)]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  rmSync(root, { recursive: true, force: true });
});

function start(sim: SimHandle, extra: Record<string, unknown> = {}): Promise<EngineHandle> {
  const config = testConfig(
    {
      "venue.kind": "exchange",
      "venue.spotBaseUrl": sim.baseUrl,
      "venue.hftBaseUrl": sim.baseUrl,
      "keys.secretKey": keys.secretKey,
      "streams.enabled": false,
      "shutdown.timeoutMs": 500,
      ...extra,
    },
    root,
  );
  return startEngine(config, { logger: silent });
}

async function refused(p: Promise<EngineHandle>): Promise<StartupError> {
  try {
    const h = await p;
    await h.stop();
  } catch (e) {
    if (e instanceof StartupError) return e;
    throw e;
  }
  throw new Error("the start was not refused");
}

describe("journal checks at start (in-process engine)", () => {
  it("one engine per journal directory; the identity decides whose journal it is; damage refuses until recovered", async () => {
    const first = await start(a);
    const e = await refused(start(a));
    expect(e.message).toContain(
      `is in use by another hftgate process (pid ${process.pid}, port ${first.gateway.port}`,
    );
    await first.stop();

    // Freed by the stop: the next start on the same venue and account goes ahead.
    const again = await start(a);
    expect(again.journalCheck).toMatchObject({ files: 1, recovery: undefined });
    await again.stop();

    // Another venue (same key): refused, nothing replayed.
    const other = await refused(start(b));
    expect(other.message).toMatch(
      /belongs to venue exchange at http:\/\/127\.0\.0\.1:\d+, account [0-9a-f]{16}/,
    );
    expect(other.message).toContain(`not to this start's venue exchange at ${new URL(b.baseUrl).origin}`);
    expect(other.message).not.toContain(keys.secretKey);

    // A flipped byte in the middle of the first file: refused, naming the file and the offset.
    const dir = join(root, "journal");
    const [f] = journalFiles(dir);
    const buf = readFileSync(f!);
    const second = frameEnd(buf, 4) as number;
    buf[second + 12] ^= 0xff;
    writeFileSync(f!, buf);
    const damaged = await refused(start(a));
    expect(damaged.cause).toBeInstanceOf(JournalDamageError);
    expect(damaged.message).toContain(`journal damaged: ${f} at byte ${second}`);
    expect(readdirSync(dir).filter((n) => n.startsWith("damaged-"))).toEqual([]);

    const before = journalFiles(dir);
    expect(before).toHaveLength(2);
    const recovered = await start(a, { "journal.recoverFromVenue": true });
    const r = recovered.journalCheck?.recovery;
    expect(r?.moved).toEqual(before);
    expect(r?.kept).toMatchObject({ file: f, bytes: second, records: 1 });
    expect(readdirSync(r!.movedTo).sort()).toEqual(before.map((p) => p.slice(dir.length + 1)).sort());
    await recovered.stop();
  }, 30_000);
});
