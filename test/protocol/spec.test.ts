/**
 * Derives the layouts from PROTOCOL.md (the markdown tables) and checks the codec against them, so the
 * document a foreign-language client is written from cannot drift from the bytes we send.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { COMPILED } from "../../src/protocol/codec.js";
import * as S from "../../src/protocol/schema.js";

const here = dirname(fileURLToPath(import.meta.url));
const md = readFileSync(join(here, "../../src/protocol/PROTOCOL.md"), "utf8");

interface Section {
  title: string;
  rows: string[][];
  /** The section's prose lines (not its table rows). */
  text: string;
}
function sections(): Section[] {
  const out: Section[] = [];
  let cur: Section | undefined;
  for (const line of md.split("\n")) {
    if (line.startsWith("#")) {
      cur = { title: line.replace(/^#+\s*/, ""), rows: [], text: "" };
      out.push(cur);
    } else if (cur && line.startsWith("|") && !/^\|[\s:|-]+\|$/.test(line)) {
      cur.rows.push(
        line
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((c) => c.trim()),
      );
    } else if (cur) cur.text += `${line}\n`;
  }
  return out;
}
const SECS = sections();
const byTitle = (t: string) => SECS.find((s) => s.title === t);

describe("PROTOCOL.md tables match the codec", () => {
  it("documents every message and no unknown one", () => {
    const documented = SECS.map((s) => /^(\w+) \(0x([0-9a-f]{2})\)$/.exec(s.title)).filter((x) => x !== null);
    expect(documented.map((d) => d[1]).sort()).toEqual(S.MESSAGES.map((m) => m.name).sort());
    for (const d of documented) {
      expect(Number.parseInt(d[2]!, 16), d[1]).toBe(S.MESSAGE_BY_NAME[d[1] as S.MessageName].type);
    }
  });

  for (const m of S.MESSAGES) {
    it(`${m.name}: offsets, sizes, types and names`, () => {
      const sec = SECS.find((s) => s.title.startsWith(`${m.name} (0x`))!;
      const rows = sec.rows.slice(1); // drop the column-name row
      const cm = COMPILED[m.name];
      expect(rows[0]!.slice(0, 3)).toEqual(["0", String(cm.headerSize), "header"]);
      const fieldRows = rows.slice(1).filter((r) => r[2] !== "InstrumentRecord[]");
      expect(fieldRows.length).toBe(m.fields.length);
      fieldRows.forEach((r, i) => {
        const op = cm.ops[i]!;
        expect([Number(r[0]), Number(r[1]), r[2], r[3]]).toEqual([op.off, op.size, m.fields[i]![1], op.name]);
      });
      // Offsets are contiguous: each field starts where the previous ended.
      let expectOff = cm.headerSize;
      for (const r of fieldRows) {
        expect(Number(r[0])).toBe(expectOff);
        expectOff += Number(r[1]);
      }
      expect(expectOff).toBe(cm.fixedSize);
      // The prose line states the frame size too ("size N bytes", or "size N + count × M bytes").
      const size = /; size (\d+)/.exec(sec.text)?.[1];
      expect(Number(size), `${m.name}: stated size`).toBe(cm.fixedSize);
    });
  }

  it("InstrumentRecord layout", () => {
    const rows = byTitle("InstrumentRecord")!.rows.slice(1);
    const ops = COMPILED.InstrumentsResponse.itemOps!;
    expect(rows.map((r) => [Number(r[0]), Number(r[1]), r[3]])).toEqual(
      ops.map((o) => [o.off, o.size, o.name]),
    );
  });

  it("header tables", () => {
    const c2g = SECS.find((s) => s.title === "2. Headers")!.rows;
    // Both header tables sit under §2: 4 client rows then 7 gateway rows (plus column-name rows).
    const fields = c2g.filter((r) => r[0] !== "offset").map((r) => [Number(r[0]), Number(r[1]), r[3]]);
    expect(fields).toEqual([
      [0, 1, "version"],
      [1, 1, "type"],
      [2, 2, "length"],
      [4, 4, "reserved"],
      [0, 1, "version"],
      [1, 1, "type"],
      [2, 2, "length"],
      [4, 4, "sessionId"],
      [8, 8, "seq"],
      [16, 8, "recvNs"],
      [24, 8, "sendNs"],
    ]);
    expect(S.C2G_HEADER).toBe(8);
    expect(S.G2C_HEADER).toBe(32);
  });

  const ENUMS: Record<string, Record<string, number>> = {
    Side: S.Side,
    OrdType: S.OrdType,
    Tif: S.Tif,
    CodPolicy: S.CodPolicy,
    LogonOptions: S.LogonOptions,
    CancelAllScope: S.CancelAllScope,
    QueryScope: S.QueryScope,
    OrderStatus: S.OrderStatus,
    RejectSource: S.RejectSource,
    CancelRejectReason: S.CancelRejectReason,
    AmendRejectReason: S.AmendRejectReason,
    Liquidity: S.Liquidity,
    TradingState: S.TradingStateValue,
    CreditBucket: S.CreditBucket,
    UnknownOp: S.UnknownOp,
    Surface: S.Surface,
    MdStatus: S.MdStatus,
    Aggressor: S.Aggressor,
  };
  for (const [name, values] of Object.entries(ENUMS)) {
    it(`enum ${name}`, () => {
      const rows = byTitle(`enum ${name}`)!.rows.slice(1);
      expect(Object.fromEntries(rows.map((r) => [r[1], Number(r[0])]))).toEqual(values);
    });
  }

  it("MdFlags bits", () => {
    const rows = byTitle("MdFlags (bits of `flags` in TopOfBook, Trade, Candle)")!.rows.slice(1);
    expect(Object.fromEntries(rows.map((r) => [r[2], Number(r[1])]))).toEqual(S.MdFlags);
  });

  it("code table", () => {
    const rows = byTitle("6. Codes (Reject, Error, LogonReject)")!.rows.slice(1);
    const fromDoc = Object.fromEntries(rows.map((r) => [r[1], [Number(r[0]), r[2], r[3] === "1"]]));
    const fromCode = Object.fromEntries(
      Object.entries(S.CODES).map(([n, c]) => [n, [c.code, c.source, c.retryable]]),
    );
    expect(fromDoc).toEqual(fromCode);
    expect(new Set(Object.values(S.CODES).map((c) => c.code)).size).toBe(Object.keys(S.CODES).length);
  });
});
