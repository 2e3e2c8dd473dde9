import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  formatRecord,
  Journal,
  JournalError,
  type JournalFormat,
  type JournalOptions,
  listJournals,
  orderHistories,
  readJournal,
  replayJournals,
  unresolvedRequests,
} from "../../src/journal/index.js";

const dirs: string[] = [];
const open: Journal[] = [];
afterEach(async () => {
  for (const j of open.splice(0)) await j.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function mk(over: Partial<JournalOptions> = {}): Journal {
  const dir = mkdtempSync(join(tmpdir(), "hftgate-journal-"));
  dirs.push(dir);
  const j = Journal.open({ dir, fsync: "none", now: () => 1_763_700_000_000, ...over });
  open.push(j);
  return j;
}

function writeSample(j: Journal): void {
  j.note({ text: "gateway started" });
  j.command({
    session: 7,
    op: "new",
    clientId: "hg-1",
    symbol: "BTC/INR",
    side: "buy",
    type: "limit",
    price: "5000000",
    qty: "0.001",
    tif: "GTC",
  });
  j.request({ clientId: "hg-1", op: "create", method: "POST", path: "/trade/api/v2/order", attempt: 1 });
  j.response({
    clientId: "hg-1",
    op: "create",
    status: 200,
    latencyUs: 812,
    body: '{"data":{"order_id":"x1","status":"OPEN"}}',
  });
  j.event({
    source: "spot-orders",
    clientId: "hg-1",
    body: '{"status":"EXECUTED","executed_qty":"0.001","note":"ünïcødé ✓"}',
  });
  j.command({ session: "s2", op: "cancel", clientId: "hg-2", reason: "strategy" });
}

describe.each<JournalFormat>(["ndjson", "binary"])("journal (%s)", (format) => {
  it("round-trips every record kind in order", async () => {
    const j = mk({ format });
    writeSample(j);
    await j.close();
    const r = readJournal(j.path);
    expect(r.format).toBe(format);
    expect(r.tornBytes).toBe(0);
    expect(r.corrupt).toBe(0);
    expect(r.records.map((x) => x.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(r.records.map((x) => x.k)).toEqual(["note", "cmd", "req", "res", "evt", "cmd"]);
    expect(r.records[1]).toEqual({
      k: "cmd",
      seq: 2,
      ts: 1_763_700_000_000,
      session: "7",
      op: "new",
      clientId: "hg-1",
      symbol: "BTC/INR",
      side: "buy",
      type: "limit",
      price: "5000000",
      qty: "0.001",
      tif: "GTC",
    });
    expect(r.records[3]).toMatchObject({
      status: 200,
      latencyUs: 812,
      body: '{"data":{"order_id":"x1","status":"OPEN"}}',
    });
    expect(r.records[4]).toMatchObject({ body: expect.stringContaining("ünïcødé ✓") });
  });

  it.each(["sync", "async"] as const)(
    "writes the same bytes with writeMode %s, in order, across many turns",
    async (writeMode) => {
      const j = mk({ format, writeMode });
      for (let i = 0; i < 300; i++) {
        writeSample(j);
        if (i % 50 === 0) await j.flush();
        if (i % 7 === 0) await new Promise((r) => setImmediate(r));
      }
      await j.close();
      const r = readJournal(j.path);
      expect(r.tornBytes).toBe(0);
      expect(r.corrupt).toBe(0);
      expect(r.records).toHaveLength(1800);
      expect(r.records.every((x, i) => x.seq === i + 1)).toBe(true);
    },
  );

  it("never writes fields outside the whitelist (headers, signatures, keys)", async () => {
    const j = mk({ format });
    const secret = "deadbeefcafebabe0123456789abcdef";
    const req = {
      clientId: "hg-9",
      op: "create",
      method: "POST",
      path: "/v5/order/create",
      headers: { "X-AUTH-APIKEY": `key-${secret}`, "X-AUTH-SIGNATURE": `sig-${secret}` },
      signature: `sig2-${secret}`,
      secretKey: secret,
    };
    j.request(req);
    j.command({ session: "s", op: "new", privateKey: secret } as never);
    await j.close();
    const raw = readFileSync(j.path);
    expect(raw.includes(secret)).toBe(false);
    expect(raw.toString("latin1").toLowerCase()).not.toContain("x-auth");
    const recs = readJournal(j.path).records;
    expect(Object.keys(recs[0]!).sort()).toEqual(["clientId", "k", "method", "op", "path", "seq", "ts"]);
  });

  it("rejects a wrongly typed field with a typed error and writes nothing for it", async () => {
    const j = mk({ format });
    j.note({ text: "before" });
    expect(() => j.response({ status: "200" as unknown as number })).toThrow(JournalError);
    j.note({ text: "after" });
    await j.close();
    const recs = readJournal(j.path).records;
    expect(recs.map((r) => r.seq)).toEqual([1, 2]);
    expect(recs.map((r) => (r.k === "note" ? r.text : ""))).toEqual(["before", "after"]);
  });

  it("tolerates a torn last record", async () => {
    const j = mk({ format });
    writeSample(j);
    await j.close();
    const full = readFileSync(j.path).length;
    truncateSync(j.path, full - 7);
    const r = readJournal(j.path);
    expect(r.records).toHaveLength(5);
    expect(r.tornBytes).toBeGreaterThan(0);
    // A crash can also leave a partial record after complete ones.
    appendFileSync(j.path, Buffer.from([0x7b, 0x22, 0x6b, 0x22]));
    expect(readJournal(j.path).records).toHaveLength(5);
  });

  it("batches appends made in one tick into one write", async () => {
    const j = mk({ format });
    for (let i = 0; i < 1000; i++) j.event({ source: "poll", clientId: `c${i}`, body: "{}" });
    await j.flush();
    expect(j.stats.writes).toBe(1);
    expect(j.stats.records).toBe(1000);
    expect(readJournal(j.path).records).toHaveLength(1000);
  });
});

describe("journal file handling", () => {
  it("stops at a damaged binary record and reports it", async () => {
    const j = mk({ format: "binary" });
    writeSample(j);
    await j.close();
    const buf = readFileSync(j.path);
    buf[buf.length - 30] = buf[buf.length - 30]! ^ 0xff;
    writeFileSync(j.path, buf);
    const r = readJournal(j.path);
    expect(r.corrupt).toBe(1);
    expect(r.records).toHaveLength(5);
  });

  it("skips an unparsable NDJSON line in the middle and counts it", async () => {
    const j = mk({ format: "ndjson" });
    writeSample(j);
    await j.close();
    const lines = readFileSync(j.path, "utf8").split("\n");
    lines[3] = "{garbage";
    writeFileSync(j.path, lines.join("\n"));
    const r = readJournal(j.path);
    expect(r.corrupt).toBe(1);
    expect(r.records).toHaveLength(5);
  });

  it("refuses a file that is not a journal", () => {
    const dir = mkdtempSync(join(tmpdir(), "hftgate-journal-"));
    dirs.push(dir);
    writeFileSync(join(dir, "x"), "hello");
    expect(() => readJournal(join(dir, "x"))).toThrow(JournalError);
  });

  it("fsync policy every: flush resolves after fdatasync", async () => {
    const j = mk({ fsync: "every" });
    j.note({ text: "a" });
    await j.flush();
    expect(j.stats.syncs).toBe(1);
    j.note({ text: "b" });
    await j.flush();
    expect(j.stats.syncs).toBe(2);
  });

  it("fsync policy none: flush writes without syncing; sync() forces it", async () => {
    const j = mk({ fsync: "none" });
    j.note({ text: "a" });
    await j.flush();
    expect(j.stats.writes).toBe(1);
    expect(j.stats.syncs).toBe(0);
    await j.sync();
    expect(j.stats.syncs).toBe(1);
    await j.sync(); // nothing new: no extra fsync
    expect(j.stats.syncs).toBe(1);
  });

  it("fsync policy interval: syncs dirty data on its timer", async () => {
    const j = mk({ fsync: { intervalMs: 5 } });
    j.note({ text: "a" });
    await j.flush();
    for (let i = 0; i < 100 && j.stats.syncs === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(j.stats.syncs).toBe(1);
  });

  it("one file per run; per day rotates at UTC midnight; replay reads them in order", async () => {
    let now = Date.UTC(2026, 10, 21, 23, 59, 59);
    const j = mk({ format: "ndjson", rotate: "day", now: () => now });
    j.command({ session: "s", op: "new", clientId: "a" });
    await j.flush();
    const first = j.path;
    now += 2000;
    j.command({ session: "s", op: "cancel", clientId: "a" });
    await j.flush();
    expect(j.path).not.toBe(first);
    expect(first).toMatch(/hftgate-20261121\.ndjson$/);
    expect(j.path).toMatch(/hftgate-20261122\.ndjson$/);
    const dir = join(first, "..");
    expect(readdirSync(dir)).toHaveLength(2);
    const seen: string[] = [];
    const s = replayJournals(listJournals(dir), (r) => seen.push(`${r.seq}:${r.k === "cmd" ? r.op : ""}`));
    expect(seen).toEqual(["1:new", "2:cancel"]);
    expect(s.records).toBe(2);
  });

  it("rejects appends after close", async () => {
    const j = mk();
    await j.close();
    expect(() => j.note({ text: "late" })).toThrow();
  });
});

describe("order histories", () => {
  it("groups by client id in journal order and formats readable lines", async () => {
    const j = mk();
    writeSample(j);
    await j.close();
    const recs = readJournal(j.path).records;
    const h = orderHistories(recs);
    expect([...h.keys()]).toEqual(["hg-1", "hg-2"]);
    expect(h.get("hg-1")!.map((r) => r.k)).toEqual(["cmd", "req", "res", "evt"]);
    const lines = h.get("hg-1")!.map((r) => formatRecord(r));
    expect(lines[0]).toContain("command  new session=7 BTC/INR buy limit 0.001 @ 5000000 GTC");
    expect(lines[1]).toContain("request  create POST /trade/api/v2/order attempt=1");
    expect(lines[2]).toContain("HTTP 200 in 812 µs");
    expect(formatRecord(recs[3]!, 10)).toContain("… (42 chars)");
  });
});

describe("journal defaults", () => {
  it("writes binary by default and the day file carries the binary extension", async () => {
    const j = mk({ rotate: "day", now: () => Date.UTC(2026, 0, 2, 3) });
    j.note({ text: "x" });
    await j.close();
    expect(j.format).toBe("binary");
    expect(j.path).toMatch(/hftgate-20260102\.hgj$/);
    expect(readJournal(j.path).format).toBe("binary");
  });
});

describe("unresolved requests after a crash", () => {
  it("lists requests with no answer or an unknown outcome, latest per order and op", async () => {
    const j = mk();
    j.request({ clientId: "a", op: "create", method: "POST", path: "/v5/order/create" });
    j.response({ clientId: "a", op: "create", status: 200, body: "{}" });
    j.request({ clientId: "b", op: "create", method: "POST", path: "/v5/order/create" });
    j.response({ clientId: "b", op: "create", status: 0 });
    j.request({ clientId: "c", op: "create", method: "POST", path: "/v5/order/create" });
    j.response({ clientId: "c", op: "create", status: 503, body: "busy" });
    j.request({ clientId: "c", op: "query", method: "GET", path: "/v5/order/realtime?orderLinkId=c" });
    j.response({ clientId: "c", op: "query", status: 200, body: "{}" });
    j.request({ clientId: "a", op: "cancel", method: "POST", path: "/v5/order/cancel" });
    j.request({ clientId: "d", op: "create", method: "POST", path: "/v5/order/create" });
    j.response({ clientId: "d", op: "create", status: 400, body: "{}" }); // a definite answer
    await j.close();
    const u = unresolvedRequests(readJournal(j.path).records);
    expect(u.map((x) => `${x.clientId}:${x.op}:${x.why}`)).toEqual([
      "b:create:unknown",
      "c:create:unknown",
      "a:cancel:no-response",
    ]);
    expect(u[2]!.request.seq).toBe(9);
  });
});
