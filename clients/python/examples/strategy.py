"""A small strategy: log on, find an instrument, quote one bid below the market, cancel it, then take
liquidity with an IOC order, printing acks, updates, fills and per-order latency.

Run against `npm start` (it prints the token):
    HFTGATE_TOKEN=<token> python3 clients/python/examples/strategy.py --symbol BTCUSDT --bid 60000.0 --take 66000.0
"""

import argparse
import asyncio
import os
import sys
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from hftgate_client import GatewayClient, OrderStatus, Side, Tif  # noqa: E402


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default=os.environ.get("HFTGATE_URL", "ws://127.0.0.1:7700"))
    p.add_argument("--session", default="py-example")
    p.add_argument("--symbol", default="BTCUSDT")
    p.add_argument("--qty", type=Decimal, default=Decimal("0.001"))
    p.add_argument("--bid", type=Decimal, required=True, help="a price below the market (the order rests)")
    p.add_argument("--take", type=Decimal, required=True, help="a price above the best ask (the order fills)")
    args = p.parse_args()

    c = GatewayClient(args.url, os.environ["HFTGATE_TOKEN"], args.session)
    c.on("ack", lambda a, h: print(f"acked #{a.cl_ord_no} as {a.exchange_order_id}"))
    c.on("reject", lambda r, h: print(f"rejected #{r.cl_ord_no} ({r.code}): {r.text}"))
    c.on("fill", lambda f, h: print(f"fill #{f.cl_ord_no}: {inst.qty(f.qty_lots)} @ {inst.price(f.price_ticks)}"))
    c.on("update", lambda u, h: print(f"#{u.cl_ord_no} {OrderStatus(u.status).name}, filled {inst.qty(u.cum_qty_lots)}"))
    await c.connect()
    await c.instruments()
    inst = c.instrument(args.symbol)  # tick and lot sizes arrive as exact decimals

    bid = await c.place_order(inst, Side.BUY, args.qty, args.bid)
    await c.until(lambda: c.order(bid).status != OrderStatus.PENDING_NEW)  # acked (or rejected)
    await c.cancel(bid)
    await c.until(lambda: c.order(bid).final)

    take = await c.place_order(inst, Side.BUY, args.qty, args.take, tif=Tif.IOC)
    await c.until(lambda: c.order(take).final)
    for no in (bid, take):
        t = c.trace(no)
        if t is not None:
            print(f"#{no} place→{t.answer.lower()} {t.round_trip_ns / 1e3:.0f} µs (in gateway {t.inside_gateway_ns / 1e3:.0f} µs)")
    await c.logout()


if __name__ == "__main__":
    asyncio.run(main())
