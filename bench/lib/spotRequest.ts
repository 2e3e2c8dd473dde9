/** A Spot BTC/INR limit buy of session 1 as the order store takes it (the in-process suites' order). */
import type { NewOrderRequest } from "../../src/orders/index.js";

export function spotRequest(clientOrderNo: number, priceTicks: number, qtyLots: number): NewOrderRequest {
  return {
    sessionId: 1,
    clientOrderNo,
    instrumentId: 1,
    symbol: "BTC/INR",
    surface: "spot",
    side: "buy",
    type: "limit",
    tif: "GTC",
    priceTicks,
    qtyLots,
  };
}
