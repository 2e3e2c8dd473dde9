/**
 * The smallest useful strategy: log on, find an instrument, place a resting order, cancel it.
 * Run against `npm start`: `npm run build && HFTGATE_TOKEN=<token> node dist/examples/strategy.js`.
 */
import { GatewayClient, OrderStatus, Side } from "../src/client/index.js";

const STATUS_NAME = new Map<number, string>(Object.entries(OrderStatus).map(([name, code]) => [code, name]));

const c = new GatewayClient({
  url: process.env.HFTGATE_URL ?? "ws://127.0.0.1:7700/v1/ws",
  token: process.env.HFTGATE_TOKEN ?? "",
  sessionName: "example",
});
await c.connect();
// Prices travel as integer ticks and quantities as integer lots of the instrument's tickSize / qtyStep.
const btc = (await c.instruments()).find((i) => i.symbol === "BTCUSDT");
if (btc === undefined) throw new Error("BTCUSDT is not traded by this gateway");
c.on("ack", (ack) => console.log(`acked #${ack.clOrdNo} as ${ack.exchangeOrderId}`));
c.on("reject", (r) => console.log(`rejected #${r.clOrdNo}: ${r.text}`));
c.on("update", (u) => console.log(`#${u.clOrdNo} ${STATUS_NAME.get(u.status)}, filled ${u.cumQtyLots} lots`));
c.on("fill", (f) => console.log(`fill #${f.clOrdNo}: ${f.qtyLots} lots @ ${f.priceTicks} ticks`));
const no = c.placeOrder({ instrumentId: btc.instrumentId, side: Side.Buy, priceTicks: 600_000, qtyLots: 1 });
setTimeout(() => c.cancel(no), 200);
setTimeout(() => c.close(), 1_000);
