/**
 * The FIX strategy process of the FIX benchmark: a FIX initiator (src/fix/initiator.ts) sending
 * NewOrderSingle one at a time and timing each until its ExecutionReport New (150=0), on the same
 * monotonic clock as the binary protocol's strategy process.
 *
 * Commands: connect, orderBlock, results. Ready info: { pid }.
 */
import { fixTime } from "../../../src/fix/codec.js";
import { FixInitiator } from "../../../src/fix/initiator.js";
import { serveChild } from "../child.js";
import { newHistogram, recordNs, summarize } from "../stats.js";

let fix: FixInitiator | undefined;
let tpl = { symbol: "", px: "", qty: "" };
let h = newHistogram();
let waiting: ((ok: boolean) => void) | undefined;
let expectId = "";
let no = 0;
const answers = { news: 0, rejects: 0, firstReject: "" };

serveChild(
  { pid: process.pid },
  {
    async connect(a) {
      tpl = a.tpl as typeof tpl;
      fix = new FixInitiator(
        {
          host: "127.0.0.1",
          port: a.port as number,
          sender: a.sender as string,
          target: "HFTGATE",
          seedHex: a.seedHex as string,
          heartBtInt: 30,
          reset: true,
        },
        (m) => {
          if (m.type !== "8" || waiting === undefined || m.str(11) !== expectId) return;
          const st = m.str(150);
          if (st === "0") answers.news++;
          else if (st === "8") {
            answers.rejects++;
            if (answers.firstReject === "") answers.firstReject = m.str(58) ?? "";
          } else return;
          const w = waiting;
          waiting = undefined;
          w(st === "0");
        },
      );
      await fix.logon();
      return null;
    },
    async orderBlock(a) {
      const f = fix!;
      for (let i = 0; i < (a.n as number); i++) {
        expectId = `b${++no}`;
        const e = f.enc
          .begin()
          .f(11, expectId)
          .f(55, tpl.symbol)
          .f(54, "1")
          .f(40, "2")
          .f(44, tpl.px)
          .f(38, tpl.qty)
          .f(60, fixTime(Date.now()));
        const t0 = process.hrtime.bigint();
        await new Promise<boolean>((done) => {
          waiting = done;
          f.send("D", e);
        });
        if (a.record) recordNs(h, process.hrtime.bigint() - t0);
      }
      return null;
    },
    results() {
      const s = summarize(h);
      h = newHistogram();
      return { order_to_er_new: s, answers };
    },
  },
);
