/**
 * A strategy as a user of the installed package writes it (type-checked and run by pack.test.ts in a
 * fresh project where `hftgate` is installed from the packed tarball; excluded from the repo's build).
 * Uses every entry point: the engine in process, the WebSocket client, the REST client and signer,
 * the protocol codec. Prints one JSON line with what happened.
 */
import { once } from "node:events";
import { type EngineHandle, loadConfig, startEngine } from "hftgate";
import { type Body, GatewayClient, OrderStatus, Side, Surface } from "hftgate/client";
import { decodeC2G, encodeC2G, OrdType } from "hftgate/protocol";
import { createRestStack, loadKeyPair, nativeSigner, signedMessage } from "hftgate/rest";

const SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const dir = process.argv[2] ?? ".";

/** Places a resting buy on HFT BTCUSDT, waits for its Ack, cancels it, waits for Cancelled. */
async function restAndCancel(c: GatewayClient): Promise<{ exchangeOrderId: string; final: number }> {
  await c.connect();
  const insts = await c.instruments();
  const btc = insts.find((i) => i.surface === Surface.Hft && i.symbol === "BTCUSDT");
  if (btc === undefined) throw new Error("no HFT BTCUSDT");
  const clOrdNo = c.placeOrder({
    instrumentId: btc.instrumentId,
    side: Side.Buy,
    ordType: OrdType.Limit,
    priceTicks: 600_000,
    qtyLots: 1,
  });
  const [ack] = (await once(c, "ack")) as [Body<"Ack">];
  if (ack.clOrdNo !== clOrdNo) throw new Error("ack for another order");
  c.cancel(clOrdNo);
  let final = 0;
  while (final !== OrderStatus.Cancelled) {
    const [u] = (await once(c, "update")) as [Body<"OrderUpdate">];
    if (u.clOrdNo === clOrdNo) final = u.status;
  }
  await c.logout();
  return { exchangeOrderId: ack.exchangeOrderId, final };
}

const h: EngineHandle = await startEngine(
  loadConfig({
    env: {},
    overrides: {
      "gateway.port": 0,
      "keys.secretKey": SECRET,
      "journal.dir": `${dir}/journal`,
      "engine.stateFile": `${dir}/gateway.json`,
      "log.level": "warn",
      "log.pretty": "false",
    },
  }),
);
try {
  const frame = decodeC2G(encodeC2G("Heartbeat", { echo: 7 }));
  const codec = frame.name === "Heartbeat" ? frame.body.echo : -1;

  const keys = loadKeyPair(SECRET);
  const message = signedMessage("GET", "/trade/api/v2/time", "1719905777483");
  const signature = nativeSigner(keys).signHex(message);
  const rest = createRestStack({ keys, spotBaseUrl: h.venueUrl, hftBaseUrl: h.venueUrl, presign: false });
  await rest.start();
  const portfolio = await rest.client.portfolio();
  await rest.stop();

  const inProcess = await restAndCancel(h.client({ sessionName: "pkg-in-process" }));
  const overWs = await restAndCancel(
    new GatewayClient({ url: h.url, token: h.token, sessionName: "pkg-ws" }),
  );
  process.stdout.write(
    `${JSON.stringify({ codec, signature, portfolioRows: portfolio.length, inProcess, overWs })}\n`,
  );
} finally {
  await h.stop("done");
}
