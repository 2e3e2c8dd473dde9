/**
 * Fixed benchmark credentials and order bodies. The secret is the public RFC 8032 test vector (never
 * a real account's key), so any process of a benchmark can derive the same key pair.
 */
export const BENCH_SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

/** An HFT create body of the size the gateway sends (what the floors and the reference client send). */
export const HFT_CREATE_BODY: Record<string, unknown> = {
  category: "linear",
  symbol: "BTCUSDT",
  side: "Buy",
  orderType: "Limit",
  qty: "0.005",
  price: "1000.0",
  positionIdx: 0,
  timeInForce: "GTC",
  orderLinkId: "bench-00000000000000000001",
};
