/**
 * FIX 4.4 against an independent counterparty: a QuickFIX initiator (C++, UseDataDictionary=Y with
 * fix/FIX44-hftgate.xml) logs on to `hftgate start` (a child process) trading at the simulator over
 * real sockets. Signed logons, orders on both surfaces, cancel, replace, mass cancel, status, a
 * duplicate ClOrdID, a resend after a gap, a drop copy of two sessions, and a SIGKILL mid-fills.
 * Skipped, saying why, where g++ or QuickFIX are not installed (.ci/run installs them).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChaosVenue,
  counterHft,
  counterSpot,
  newKeys,
  secretHex,
  signedCall,
  startVenue,
} from "../chaos/harness/venue.js";
import { FixGateway, initiatorBinary, type QfClient as Qf, QfClient, quickfixMissing } from "./harness.js";

const missing = quickfixMissing();
if (missing !== "") console.warn(`test/fix/quickfix.test.ts skipped: ${missing}`);

const keys = { ALPHA: newKeys(), BETA: newKeys(), DC: newKeys(), MALLORY: newKeys() };
const pub = (k: { apiKey: string }) => k.apiKey;

describe.skipIf(missing !== "")("FIX 4.4 with a QuickFIX initiator", () => {
  let v: ChaosVenue;
  let gw: FixGateway;
  let bin = "";
  const clients: Qf[] = [];
  let alpha: Qf;
  let n = 0;
  const id = (p: string) => `${p}-${++n}`;

  const client = (name: keyof typeof keys, seed = secretHex(keys[name])) => {
    const c = new QfClient(bin, gw.fixPort, name, seed);
    clients.push(c);
    c.start();
    return c;
  };

  beforeAll(async () => {
    bin = initiatorBinary();
    v = await startVenue();
    gw = new FixGateway(
      v.sim.baseUrl,
      v.keys,
      Object.entries(keys).map(([k, kp]) => `${k}:${pub(kp)}`),
      ["DC"],
    );
    await gw.start();
    alpha = client("ALPHA");
    await alpha.until(() => alpha.loggedOn, 10_000, "ALPHA logon");
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.stop();
    await gw?.close();
    await v?.sim.stop();
  });

  it("refuses a Logon signed with another key (Logout with the reason), takes a good one", async () => {
    const bad = client("MALLORY", secretHex(keys.BETA));
    const out = await bad.expect({ 35: "5" });
    expect(out.get(58)).toBe("bad logon signature");
    expect(bad.loggedOn).toBe(false);
    await bad.stop();
    expect(gw.gp.output).not.toMatch(/"96=|RawData/);
    expect(alpha.loggedOn).toBe(true);
  });

  it("D → New → Trade on HFT and on Spot, with the fill's fields", async () => {
    await counterHft(v, "Sell", "3210.00", "0.05");
    const h = id("h");
    alpha.send(`35=D|11=${h}|55=ETHUSDT|54=1|40=2|44=3215|38=0.05|59=1|60=now`);
    const ack = await alpha.expect({ 11: h, 150: "0" });
    expect(ack.get(39)).toBe("0");
    expect(ack.get(198)).toBeTruthy();
    const fill = await alpha.expect({ 11: h, 150: "F" });
    expect([fill.get(39), fill.get(32), fill.get(14), fill.get(151)]).toEqual(["2", "0.05", "0.05", "0"]);
    expect(fill.get(31)).toBe("3210");
    expect(fill.get(6)).toBe("3210");
    expect(fill.get(17)).toBeTruthy();
    expect(fill.get(60)).toMatch(/^\d{8}-\d\d:\d\d:\d\d\.\d{3}$/);
    expect(fill.get(37)).toBe(ack.get(37));

    await counterSpot(v, "sell", 5_310_000, 0.001);
    const s = id("s");
    alpha.send(`35=D|11=${s}|55=BTC/INR|207=coinswitchx|54=1|40=2|44=5312000|38=0.001|60=now`);
    await alpha.expect({ 11: s, 150: "0" });
    const sf = await alpha.expect({ 11: s, 150: "F" }, 8_000);
    expect([sf.get(39), sf.get(32), sf.get(31)]).toEqual(["2", "0.001", "5310000"]);
  });

  it("F → PendingCancel → Cancelled; an off-grid price is refused with nothing sent", async () => {
    const o = id("c");
    alpha.send(`35=D|11=${o}|55=ETHUSDT|54=1|40=2|44=3190|38=0.02|60=now`);
    await alpha.expect({ 11: o, 150: "0" });
    const k = id("cx");
    alpha.send(`35=F|11=${k}|41=${o}|55=ETHUSDT|54=1|60=now`);
    const pc = await alpha.expect({ 11: k, 150: "6" });
    expect(pc.get(41)).toBe(o);
    const cx = await alpha.expect({ 11: k, 150: "4" });
    expect([cx.get(39), cx.get(41), cx.get(151)]).toEqual(["4", o, "0"]);

    const bad = id("g");
    alpha.send(`35=D|11=${bad}|55=ETHUSDT|54=1|40=2|44=3190.005|38=0.02|60=now`);
    const r = await alpha.expect({ 11: bad });
    expect([r.get(150), r.get(39), r.get(37)]).toEqual(["8", "8", "NONE"]);
    expect(r.get(58)).toMatch(/tick grid/);
  });

  it("G → PendingReplace → Replaced: HFT in place (same OrderID and venue id), Spot cancel-replace", async () => {
    const o = id("r");
    alpha.send(`35=D|11=${o}|55=ETHUSDT|54=1|40=2|44=3190|38=0.02|60=now`);
    const ack = await alpha.expect({ 11: o, 150: "0" });
    const r = id("rr");
    alpha.send(`35=G|11=${r}|41=${o}|55=ETHUSDT|54=1|40=2|44=3191|38=0.03|60=now`);
    await alpha.expect({ 11: r, 150: "E" });
    const rep = await alpha.expect({ 11: r, 150: "5" });
    expect([rep.get(39), rep.get(41), rep.get(44), rep.get(38)]).toEqual(["0", o, "3191", "0.03"]);
    expect([rep.get(37), rep.get(198)]).toEqual([ack.get(37), ack.get(198)]);

    const so = id("sr");
    alpha.send(`35=D|11=${so}|55=BTC/INR|54=1|40=2|44=5295000|38=0.001|60=now`);
    const sack = await alpha.expect({ 11: so, 150: "0" });
    const sr = id("srr");
    alpha.send(`35=G|11=${sr}|41=${so}|55=BTC/INR|54=1|40=2|44=5296000|60=now`);
    await alpha.expect({ 11: sr, 150: "E" });
    const srep = await alpha.expect({ 11: sr, 150: "5" }, 8_000);
    expect([srep.get(41), srep.get(44), srep.get(37)]).toEqual([so, "5296000", sack.get(37)]);
    expect(srep.get(198)).not.toBe(sack.get(198)); // the venue's id changes on Spot
  });

  it("q cancels the session's orders (r, then a Cancelled per order); H answers 150=I", async () => {
    const a = id("q");
    const b = id("q");
    for (const x of [a, b]) alpha.send(`35=D|11=${x}|55=ETHUSDT|54=1|40=2|44=3189|38=0.02|60=now`);
    await alpha.expect({ 11: b, 150: "0" });
    const q = id("mass");
    alpha.send(`35=q|11=${q}|530=7|60=now`);
    const rep = await alpha.expect({ 35: "r", 11: q });
    expect(rep.get(531)).toBe("7");
    await alpha.expect({ 11: a, 150: "4" });
    await alpha.expect({ 11: b, 150: "4" });

    alpha.send(`35=H|11=${a}|790=st1|55=ETHUSDT|54=1`);
    const st = await alpha.expect({ 790: "st1" });
    expect([st.get(150), st.get(39), st.get(11)]).toEqual(["I", "4", a]);
    alpha.send("35=H|11=never-sent|790=st2|55=ETHUSDT|54=1");
    const unk = await alpha.expect({ 790: "st2" });
    expect([unk.get(150), unk.get(39)]).toEqual(["I", "8"]);
  });

  it("a duplicate ClOrdID gets 150=8 103=6 and the first order stands", async () => {
    const o = id("d");
    alpha.send(`35=D|11=${o}|55=ETHUSDT|54=1|40=2|44=3188|38=0.02|60=now`);
    await alpha.expect({ 11: o, 150: "0" });
    const from = alpha.inbox.length;
    alpha.send(`35=D|11=${o}|55=ETHUSDT|54=1|40=2|44=3188|38=0.02|60=now`);
    const dup = await alpha.expect({ 11: o, 150: "8" }, 5_000, from);
    expect(dup.get(103)).toBe("6");
    alpha.send(`35=F|11=${id("dx")}|41=${o}|55=ETHUSDT|54=1|60=now`);
    await alpha.expect({ 41: o, 150: "4" });
  });

  it("a gap in the gateway's sequence: ResendRequest, replayed with PossDup=Y and OrigSendingTime, identical", async () => {
    const last = alpha.inbox.filter((m) => m.get(35) === "8").slice(-3);
    const first = Number(last[0]!.get(34));
    alpha.cmd(`TARGETSEQ ${first}`);
    await alpha.until(() => alpha.lines.includes("OK"), 2_000, "TARGETSEQ");
    const from = alpha.inbox.length;
    alpha.send(`35=H|11=${last[2]!.get(11)}|790=gap|55=ETHUSDT|54=1`);
    await alpha.expect({ 790: "gap" }, 5_000, from);
    const replays = alpha.inbox.slice(from).filter((m) => m.get(43) === "Y" && m.get(35) === "8");
    expect(replays.length).toBeGreaterThanOrEqual(1);
    for (const r of replays) {
      const orig = alpha.inbox.find((m) => m.get(34) === r.get(34) && m.get(43) === undefined)!;
      expect(orig).toBeDefined();
      expect(r.get(122)).toBe(orig.get(52));
      const strip = (m: typeof r) => m.fields.filter(([t]) => ![9, 10, 43, 52, 122].includes(t));
      expect(strip(r)).toEqual(strip(orig));
    }
    expect(alpha.rejectsSent()).toEqual([]);
  });

  it("a drop-copy session sees every report of two sessions and refuses orders with j", async () => {
    const beta = client("BETA");
    await beta.until(() => beta.loggedOn, 5_000, "BETA logon");
    const b = id("b");
    beta.send(`35=D|11=${b}|55=ETHUSDT|54=2|40=2|44=3400|38=0.02|60=now`);
    await beta.expect({ 11: b, 150: "0" });
    beta.send(`35=F|11=${id("bx")}|41=${b}|55=ETHUSDT|54=2|60=now`);
    await beta.expect({ 41: b, 150: "4" });
    const dc = client("DC");
    await dc.until(() => dc.loggedOn, 5_000, "DC logon");
    const want = [
      ...alpha.inbox
        .filter((m) => m.get(35) === "8" && m.get(43) === undefined)
        .map((m) => `ALPHA ${m.get(17)}`),
      ...beta.inbox.filter((m) => m.get(35) === "8").map((m) => `BETA ${m.get(17)}`),
    ];
    await dc.until(
      () => {
        const got = new Set(dc.inbox.filter((m) => m.get(35) === "8").map((m) => `${m.get(1)} ${m.get(17)}`));
        return want.every((w) => got.has(w));
      },
      8_000,
      "every report in the drop copy",
    );
    dc.send(`35=D|11=${id("x")}|55=ETHUSDT|54=1|40=2|44=3000|38=0.02|60=now`);
    const j = await dc.expect({ 35: "j" });
    expect(j.get(380)).toBe("3");
    for (const c of [alpha, beta, dc]) expect(c.rejectsSent()).toEqual([]);
    await beta.stop();
  });

  it("SIGKILL mid-fills and restart: sequence numbers continue, every venue fill reaches the FIX client", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const o = id("k");
      ids.push(o);
      alpha.send(`35=D|11=${o}|55=ETHUSDT|54=1|40=2|44=3205|38=0.02|60=now`);
    }
    for (const o of ids) await alpha.expect({ 11: o, 150: "0" });
    const logons = alpha.lines.filter((l) => l === "LOGON").length;
    const cross = counterHft(v, "Sell", "3205.00", "0.08");
    await new Promise((r) => setTimeout(r, 5));
    await gw.gp.kill();
    await cross;
    await gw.start();
    await alpha.until(
      () => alpha.lines.filter((l) => l === "LOGON").length > logons,
      15_000,
      "logon after restart",
    );
    for (const o of ids) await alpha.expect({ 11: o, 150: "F" }, 10_000);
    // Venue truth: every execution of these orders reached the client once (by ExecID).
    const venueIds = new Set(ids.map((o) => alpha.find({ 11: o, 150: "0" })!.get(198)));
    const ex = await signedCall(v.sim.baseUrl, v.keys, "GET", "/v5/execution/list?category=linear&limit=100");
    const venueFills = (ex.json.result.list as { orderId: string; execId: string; execQty: string }[]).filter(
      (e) => venueIds.has(e.orderId),
    );
    // Per venue order: the quantity the venue executed = what the FIX client was told (unique ExecIDs).
    const venueQty = new Map<string, number>();
    for (const f of venueFills) venueQty.set(f.orderId, (venueQty.get(f.orderId) ?? 0) + Number(f.execQty));
    const toldQty = new Map<string, number>();
    const seen = new Set<string>();
    for (const m of alpha.inbox.filter((x) => x.get(150) === "F" && venueIds.has(x.get(198)))) {
      if (seen.has(m.get(17)!)) continue;
      seen.add(m.get(17)!);
      toldQty.set(m.get(198)!, (toldQty.get(m.get(198)!) ?? 0) + Number(m.get(32)));
    }
    expect(venueQty.size).toBe(4);
    expect([...toldQty].sort()).toEqual([...venueQty].sort());
    expect(alpha.lines.some((l) => l.includes("MsgSeqNum too low"))).toBe(false);
    expect(alpha.rejectsSent()).toEqual([]);
  }, 40_000);
});
