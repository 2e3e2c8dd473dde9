/**
 * The gateway process of the end-to-end benchmark. INTERIM: an engine that acks at once (no exchange)
 * until the real engine lands. Also measures the raw-socket HTTP floor from this process.
 *
 * argv: venue base URL, token. Ready info: { url, tpl }.
 */
import { Gateway, type GatewayEngine } from "../../../src/gateway/index.js";
import { HFT_CREATE_BODY } from "../benchKeys.js";
import { failChild, serveChild } from "../child.js";
import { openRawHttp, type RoundTripper, rawRequest, timeBlock } from "../floors.js";
import { newHistogram, summarize } from "../stats.js";

const [, token = ""] = process.argv.slice(2);

let floor: RoundTripper | undefined;
let hHttp = newHistogram();

function floorRequest(port: number): Buffer {
  return rawRequest(
    "POST",
    "/v5/order/create",
    port,
    [
      "content-type",
      "application/json",
      "x-auth-apikey",
      "0".repeat(64),
      "x-auth-signature",
      "0".repeat(128),
      "x-auth-epoch",
      String(Date.now()),
    ],
    JSON.stringify(HFT_CREATE_BODY),
  );
}

const INSTS = [
  {
    id: 1,
    surface: "hft" as const,
    symbol: "BTCUSDT",
    venue: "linear",
    base: "BTC",
    quote: "USDT",
    tickSize: "0.1",
    qtyStep: "0.001",
    minQty: "0.001",
    maxQty: "100",
    minNotional: "5",
    active: true,
  },
];

async function main(): Promise<void> {
  let gw: Gateway;
  const engine: GatewayEngine = {
    instruments: () => INSTS,
    onLogon() {},
    onNewOrder(s, cmd, recvNs) {
      gw.send(
        s.sessionId,
        "Ack",
        { clOrdNo: cmd.clOrdNo, instrumentId: cmd.instrumentId, exchangeOrderId: "x" },
        recvNs,
      );
    },
    onCancel() {},
    onCancelAll() {},
    onQuery: () => [],
    onDisconnect() {},
  };
  gw = new Gateway(engine, { token, port: 0, logger: { info() {}, warn() {} } });
  await gw.start();
  serveChild(
    { url: `ws://127.0.0.1:${gw.port}`, tpl: { instrumentId: 1, side: 1, priceTicks: 10000, qtyLots: 5 } },
    {
      async httpBlock(a) {
        floor ??= await openRawHttp(a.port as number, floorRequest(a.port as number));
        await timeBlock(floor, a.n as number, a.record ? hHttp : undefined);
        return null;
      },
      httpResults() {
        const s = summarize(hHttp);
        hHttp = newHistogram();
        return s;
      },
      info() {
        return { engine: "interim ack-at-once engine", transport: gw.transportKind };
      },
    },
    async () => {
      floor?.close();
      await gw.close();
    },
  );
}

main().catch(failChild);
