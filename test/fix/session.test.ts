/**
 * The FIX codec, grids, logon signature and store on their own, and the session rules that QuickFIX
 * never breaks (garbled or incomplete messages, unsupported types, a stale SendingTime) against the
 * gateway and simulator in this process over a real socket; plus a binary-protocol session's
 * reports in a FIX drop copy.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/index.js";
import {
  asPossDup,
  FixEncoder,
  FixMessage,
  type FrameResult,
  fixTime,
  headerOf,
  readFrame,
} from "../../src/fix/codec.js";
import { fromMantExp, fromUnits, gridOf, toUnits } from "../../src/fix/decimal.js";
import { FixInitiator } from "../../src/fix/initiator.js";
import { logonPayload, publicKeyOf, signLogon, verifyLogon } from "../../src/fix/logonSig.js";
import { FixStore } from "../../src/fix/store.js";
import { freePort } from "../chaos/harness/processRig.js";
import { newKeys, secretHex } from "../chaos/harness/venue.js";
import { type Harness, startHarness } from "../e2e/harness.js";
import { selfSigned } from "../selfSigned.js";

const S = "\x01";
const res: FrameResult = { used: 0, error: undefined };

function parse(text: string): { m: FixMessage; used: number; error: string | undefined } {
  const m = new FixMessage();
  const b = Buffer.from(text, "latin1");
  const used = readFrame(b, 0, b.length, m, res);
  return { m, used, error: res.error };
}

/** A message with a correct length and checksum around `body` (35=... onwards). */
function framed(body: string): string {
  const head = `8=FIX.4.4${S}9=${body.length}${S}`;
  let sum = 0;
  for (const c of Buffer.from(head + body, "latin1")) sum += c;
  return `${head}${body}10=${String(sum & 0xff).padStart(3, "0")}${S}`;
}

const NOS = framed(
  `35=D${S}49=ALPHA${S}56=HFTGATE${S}34=7${S}52=20260101-00:00:00.000${S}11=o-1${S}55=ETHUSDT${S}54=1${S}40=2${S}44=3215.5${S}38=0.05${S}59=3${S}60=20260101-00:00:00.000${S}`,
);

describe("FIX codec", () => {
  it("reads a NewOrderSingle: type, seq and fields by tag, length and checksum verified", () => {
    const { m, used, error } = parse(NOS);
    expect([used, error]).toEqual([NOS.length, undefined]);
    expect([m.type, m.seq, m.str(11), m.str(55), m.str(44), m.int(34), m.is(54, "1"), m.has(18)]).toEqual([
      "D",
      7,
      "o-1",
      "ETHUSDT",
      "3215.5",
      7,
      true,
      false,
    ]);
  });

  it("refuses a wrong checksum, a wrong body length and another BeginString; waits for a partial one", () => {
    const badSum = NOS.replace(/10=\d{3}/, (x) => (x === "10=000" ? "10=001" : "10=000"));
    expect(parse(badSum).error).toBe("bad CheckSum");
    expect(parse(NOS.replace(/9=\d+/, (x) => `9=${Number(x.slice(2)) - 1}`)).error).toBe("bad BodyLength");
    expect(parse(NOS.replace("FIX.4.4", "FIX.4.2")).error).toBe("bad BeginString");
    expect(parse(NOS.slice(0, NOS.length - 3))).toMatchObject({ used: 0, error: undefined });
  });

  it("encodes header, length and checksum that it reads back; a resend keeps every field but 43/52/122", () => {
    const e = new FixEncoder().begin().f(11, "x").f(38, "0.5");
    const msg = e.finish("8", headerOf("HFTGATE", "ALPHA"), 42, "20260101-00:00:01.000");
    const { m, error } = parse(msg.toString("latin1"));
    expect([error, m.type, m.seq, m.str(49), m.str(56), m.str(11), m.str(38)]).toEqual([
      undefined,
      "8",
      42,
      "HFTGATE",
      "ALPHA",
      "x",
      "0.5",
    ]);
    const dup = parse(asPossDup(msg, "20260101-00:00:09.000").toString("latin1"));
    expect(dup.error).toBeUndefined();
    expect([dup.m.str(43), dup.m.str(52), dup.m.str(122), dup.m.seq, dup.m.str(11)]).toEqual([
      "Y",
      "20260101-00:00:09.000",
      "20260101-00:00:01.000",
      42,
      "x",
    ]);
  });

  it("formats SendingTime as UTCTimestamp with milliseconds", () => {
    expect(fixTime(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe("20260102-03:04:05.006");
  });
});

describe("decimals ↔ ticks and lots", () => {
  const tick = gridOf("0.01")!;
  const lot = gridOf("0.00001")!;
  it("converts exactly and refuses what is off the grid", () => {
    expect([toUnits("3215.5", tick), toUnits("3215.50", tick), toUnits("3215.505", tick)]).toEqual([
      321550, 321550, -1,
    ]);
    expect([toUnits("0.001", lot), toUnits("1e3", lot), toUnits("", lot), toUnits("-1", lot)]).toEqual([
      100, -2, -2, -2,
    ]);
    expect(toUnits("5", gridOf("5")!)).toBe(1);
    expect(toUnits("7", gridOf("5")!)).toBe(-1);
    expect([fromUnits(321550, tick), fromUnits(100, lot), fromMantExp(1282, -5), fromMantExp(12, 2)]).toEqual(
      ["3215.5", "0.001", "0.01282", "1200"],
    );
  });
});

describe("Logon signature (Ed25519 over 35, 49, 56, 34, 52 joined by SOH)", () => {
  // Worked example with the RFC 8032 test key 1 (docs/fix.md): a fixed key, so the signature is fixed.
  const seed = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
  const pub = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
  const payload = logonPayload("A", "ALPHA", "HFTGATE", 1, "20260101-00:00:00.000");
  const sig = "XV9hTjn6IkI2MSW4NIGte0gTPWyA20P2gJWjQfLoE0sW2HtWuaT/BEB3aklsjD/43Bk46C/DgcFgM2fsEOHwDw==";
  it("signs the worked example to the documented RawData, and verifies it", () => {
    expect(payload.toString("latin1")).toBe("A\x01ALPHA\x01HFTGATE\x011\x0120260101-00:00:00.000");
    expect(signLogon(seed, payload)).toBe(sig);
    expect(verifyLogon(publicKeyOf(pub)!, payload, sig)).toBe(true);
  });
  it("refuses another payload, another key, and garbage", () => {
    const other = logonPayload("A", "ALPHA", "HFTGATE", 2, "20260101-00:00:00.000");
    expect(verifyLogon(publicKeyOf(pub)!, other, sig)).toBe(false);
    expect(verifyLogon(publicKeyOf(newKeys().apiKey)!, payload, sig)).toBe(false);
    expect(verifyLogon(publicKeyOf(pub)!, payload, "not base64!")).toBe(false);
    expect(publicKeyOf("zz")).toBeUndefined();
  });
});

describe("FIX store", () => {
  it("keeps messages, admin sequence numbers, orders and the inbound sequence across a reopen", () => {
    const dir = mkdtempSync(join(tmpdir(), "hftgate-fixstore-"));
    try {
      const grids = () => undefined;
      const a = FixStore.open(dir, "ALPHA", 100, grids);
      a.admin(1);
      a.sent(2, 5, Buffer.from(framed(`35=8${S}49=H${S}56=A${S}34=2${S}52=x${S}11=o${S}`), "latin1"));
      a.admin(3);
      a.inbound(9);
      a.close();
      const b = FixStore.open(dir, "ALPHA", 100, grids);
      expect([b.nextOut, b.nextIn, b.lastBin, b.message(1), b.message(3)]).toEqual([4, 9, 5, null, null]);
      expect(b.message(2)?.toString("latin1")).toContain(`11=o${S}`);
      b.reset();
      b.close();
      const c = FixStore.open(dir, "ALPHA", 100, grids);
      expect([c.nextOut, c.nextIn, c.message(2)]).toEqual([1, 1, undefined]);
      c.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("FIX session rules over a socket (TLS where openssl can make a certificate)", () => {
  const alpha = newKeys();
  const certDir = mkdtempSync(join(tmpdir(), "hftgate-fixtls-"));
  const tlsFiles = selfSigned(certDir, "localhost", "fix");
  const tlsCa = tlsFiles === undefined ? undefined : readFileSync(tlsFiles.cert, "utf8");
  const dc = newKeys();
  let h: Harness;
  let port = 0;
  const inbox: { who: string; type: string; fields: Map<number, string> }[] = [];
  const keep = (who: string) => (m: FixMessage) => {
    const fields = new Map<number, string>();
    for (let i = 0; i < m.count; i++) fields.set(m.tags[i]!, m.buf.toString("latin1", m.vs[i]!, m.ve[i]!));
    inbox.push({ who, type: m.type, fields });
  };
  const until = async <T>(f: () => T | undefined, ms = 3_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = f();
      if (v !== undefined) return v;
      if (Date.now() > end)
        throw new Error(
          `not seen: ${JSON.stringify(inbox.slice(-5).map((x) => [x.who, x.type, [...x.fields]]))}`,
        );
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const seen = (who: string, pred: (f: Map<number, string>, type: string) => boolean) =>
    until(() => inbox.find((x) => x.who === who && pred(x.fields, x.type)));
  let fix: FixInitiator;

  beforeAll(async () => {
    port = await freePort();
    h = await startHarness(
      {
        "fix.port": port,
        "fix.sessions": [`ALPHA:${alpha.apiKey}`, `DC:${dc.apiKey}`],
        "fix.dropCopy": ["DC"],
        ...(tlsFiles ? { "fix.tls.cert": tlsFiles.cert, "fix.tls.key": tlsFiles.key } : {}),
      },
      {},
      true,
    );
    fix = new FixInitiator(
      {
        host: "127.0.0.1",
        port,
        sender: "ALPHA",
        target: "HFTGATE",
        seedHex: secretHex(alpha),
        heartBtInt: 5,
        tlsCa,
      },
      keep("ALPHA"),
    );
    await fix.logon();
  }, 30_000);
  afterAll(async () => {
    fix?.close();
    await h?.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  it("speaks TLS when fix.tls is set (a plain connection gets nothing)", async () => {
    if (tlsFiles === undefined) return; // openssl missing: the rest of the file runs over plain TCP
    const plain = new FixInitiator(
      { host: "127.0.0.1", port, sender: "ALPHA", target: "HFTGATE", seedHex: secretHex(alpha) },
      keep("plain"),
    );
    await expect(
      Promise.race([plain.logon(), new Promise((_, no) => setTimeout(() => no(new Error("timeout")), 500))]),
    ).rejects.toThrow();
    plain.close();
    expect(inbox.some((x) => x.who === "ALPHA" && x.type === "A")).toBe(true);
  });

  it("a garbled message gets Reject(3) with the reason and the session stays up", async () => {
    const bad = framed(
      `35=0${S}49=ALPHA${S}56=HFTGATE${S}34=${fix.nextOut}${S}52=${fixTime(Date.now())}${S}`,
    ).replace(/10=\d{3}/, "10=999");
    fix.raw(Buffer.from(bad, "latin1"));
    const r = await seen("ALPHA", (f, t) => t === "3" && f.get(58) === "bad CheckSum");
    expect(r.fields.get(373)).toBe("99");
    // The damaged message's seq was not counted: the next one carries it and is taken.
    fix.send(
      "D",
      fix.enc
        .begin()
        .f(55, "ETHUSDT")
        .f(54, "1")
        .f(40, "2")
        .f(44, "3190")
        .f(38, "0.02")
        .f(60, fixTime(Date.now())),
    );
    const missing = await seen("ALPHA", (f, t) => t === "3" && f.get(371) === "11");
    expect([missing.fields.get(373), missing.fields.get(372)]).toEqual(["1", "D"]);
    fix.send("V", fix.enc.begin().f(262, "md1"));
    const j = await seen("ALPHA", (_f, t) => t === "j");
    expect([j.fields.get(380), j.fields.get(372)]).toEqual(["3", "V"]);
    fix.send(
      "D",
      fix.enc
        .begin()
        .f(11, "ok-1")
        .f(55, "ETHUSDT")
        .f(54, "1")
        .f(40, "2")
        .f(44, "3190")
        .f(38, "0.02")
        .f(60, fixTime(Date.now())),
    );
    const ack = await seen("ALPHA", (f, t) => t === "8" && f.get(11) === "ok-1" && f.get(150) === "0");
    expect(ack.fields.get(39)).toBe("0");
    expect(inbox.some((x) => x.type === "5")).toBe(false);
  });

  it("refuses a Logon whose SendingTime is outside the skew bound", async () => {
    const stale = new FixInitiator(
      {
        host: "127.0.0.1",
        port,
        sender: "DC",
        target: "HFTGATE",
        seedHex: secretHex(dc),
        clockOffsetMs: -5 * 60_000,
        tlsCa,
      },
      keep("stale"),
    );
    await expect(stale.logon()).rejects.toThrow(/SendingTime outside the allowed skew/);
    stale.close();
  });

  it("a binary-protocol session's reports reach the FIX drop copy", async () => {
    const c = new GatewayClient({ url: h.h.url, token: h.h.token, sessionName: "bin-1", heartbeatMs: 1000 });
    await c.connect();
    try {
      const inst = h.inst("linear", "ETHUSDT");
      c.placeOrder({ instrumentId: inst, side: 1, ordType: 1, tif: 1, priceTicks: 319000, qtyLots: 2 });
      const d = new FixInitiator(
        {
          host: "127.0.0.1",
          port,
          sender: "DC",
          target: "HFTGATE",
          seedHex: secretHex(dc),
          heartBtInt: 5,
          tlsCa,
        },
        keep("DC"),
      );
      await d.logon();
      // Logged on after the reports: they come by ResendRequest, as for any FIX session.
      d.send("2", d.enc.begin().f(7, 1).f(16, 0));
      const er = await seen("DC", (f, t) => t === "8" && f.get(1) === "bin-1" && f.get(150) === "0");
      expect([er.fields.get(11), er.fields.get(55), er.fields.get(54)]).toEqual(["1", "ETHUSDT", "1"]);
      const fromFix = await seen("DC", (f, t) => t === "8" && f.get(1) === "ALPHA" && f.get(11) === "ok-1");
      expect(fromFix.fields.get(150)).toBe("0");
      d.close();
    } finally {
      await c.close();
    }
  });
});
