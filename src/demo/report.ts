/** The demo's printed report: one line per order with what happened and its latencies. */
import { Liquidity, OrderStatus, Side, Surface } from "../protocol/schema.js";
import { type DemoOrder, type DemoResult, isFinal, stepsText } from "./strategy.js";

const STATUS_NAME: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(OrderStatus).map(([k, v]) => [v, k]),
);

export function formatLatency(v: number | undefined): string {
  if (v === undefined) return "—";
  return v < 1_000 ? `${Math.round(v)} µs` : `${(v / 1_000).toFixed(1)} ms`;
}

function instName(o: DemoOrder): string {
  return `${o.inst.surface === Surface.Spot ? "Spot" : "HFT"} ${o.inst.symbol}@${o.inst.venue}`;
}

/** What happened to one order, in words. */
export function outcome(o: DemoOrder): string {
  if (o.reject) return `rejected ${o.reject.code}: ${o.reject.text}`;
  const parts: string[] = [];
  if (o.answer === "Ack") parts.push("acked");
  else if (o.answer === "OutcomeUnknown") parts.push("outcome unknown");
  else if (o.answer === "") parts.push("no answer");
  if (o.fills.length > 0) {
    const lots = o.fills.reduce((a, f) => a + f.qtyLots, 0);
    const f = o.fills[0]!;
    const liq =
      f.liquidity === Liquidity.Maker
        ? "maker"
        : f.liquidity === Liquidity.Taker
          ? "taker"
          : "maker/taker unknown";
    const n = o.fills.length;
    parts.push(
      `filled ${stepsText(lots, o.inst.qtyStep)}${lots < o.qtyLots ? ` of ${stepsText(o.qtyLots, o.inst.qtyStep)}` : ""} ` +
        `@ ${stepsText(f.priceTicks, o.inst.tickSize)} (${liq}${n > 1 ? `, ${n} fills` : ""})`,
    );
  }
  if (o.status === OrderStatus.Cancelled) parts.push("cancelled");
  else if (o.status === OrderStatus.Expired) parts.push("expired");
  else if (!isFinal(o)) parts.push(`still ${STATUS_NAME[o.status] ?? "unanswered"}`);
  if (o.cancelReject) parts.push(`cancel refused: ${o.cancelReject}`);
  return parts.join(", ");
}

function pad(rows: string[][]): string[] {
  const w = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(w[c]!)))
      .join("  ")
      .trimEnd(),
  );
}

export function formatReport(r: DemoResult): string {
  const lines: string[] = [];
  lines.push(`hftgate demo — ${r.url} (session ${r.session}), ${r.instruments.length} instruments listed`);
  for (const t of r.traded) {
    lines.push(`  ${t.inst.symbol}@${t.inst.venue}: bid ${t.quote.bid} / ask ${t.quote.ask}`);
  }
  for (const s of r.skipped) lines.push(`  skipped ${s}`);
  lines.push(
    `  gateway round trip without the exchange (heartbeat echo, median of 20): ${formatLatency(r.pingUs)}`,
  );
  lines.push("");
  const rows: string[][] = [
    [
      "#",
      "instrument",
      "intent",
      "order",
      "place→ack",
      "(in gw)",
      "place→fill",
      "cancel→done",
      "what happened",
    ],
  ];
  for (const o of r.orders) {
    rows.push([
      String(o.clOrdNo),
      instName(o),
      o.intent,
      `${o.side === Side.Buy ? "buy" : "sell"} ${stepsText(o.qtyLots, o.inst.qtyStep)} ${o.priceTicks === 0 ? "at market" : `@ ${stepsText(o.priceTicks, o.inst.tickSize)}`}`,
      formatLatency(o.lat.ackUs),
      o.lat.ackInGatewayUs === undefined ? "" : `(${formatLatency(o.lat.ackInGatewayUs)})`,
      formatLatency(o.lat.firstFillUs),
      formatLatency(o.lat.cancelUs),
      outcome(o),
    ]);
  }
  lines.push(...pad(rows));
  lines.push("");
  lines.push(
    "place→ack: NewOrder sent → Ack/Reject received (in gw: gateway receive → send, incl. the exchange round trip);",
  );
  lines.push("place→fill: → first Fill received; cancel→done: Cancel sent → final OrderUpdate received.");
  const open = r.orders.filter((o) => !isFinal(o)).length;
  lines.push(
    r.allFinal
      ? `all ${r.orders.length} orders reached a final state.`
      : `${open} of ${r.orders.length} orders did not reach a final state in time.`,
  );
  return `${lines.join("\n")}\n`;
}
