"""A small strategy: log on, find an instrument, quote one bid below the market, cancel it, then take
liquidity with an IOC order, printing acks, updates, fills and per-order latency.

Run against `npm start` (it writes var/gateway.json, which this reads like `npm run demo`):
    python3 clients/python/examples/strategy.py
Without --bid/--take the prices come from the gateway's market data (1 % under the best bid, just over
the best ask). --url/--token, HFTGATE_URL/HFTGATE_TOKEN or --file name another gateway.
"""

import argparse
import asyncio
import json
import math
import os
import sys
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from hftgate_client import GatewayClient, LogonRejectedError, OrderStatus, Side, Tif  # noqa: E402

PROG = "strategy.py"


class Usage(Exception):
    """A one-line explanation for the operator; the example exits 2 with it."""


def target(args: argparse.Namespace) -> tuple[str, str]:
    """Gateway URL and token: flags, else the environment, else the file `hftgate start` writes."""
    state: dict = {}
    try:
        state = json.loads(Path(args.file).read_text())
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as e:
        raise Usage(f"cannot read {args.file} ({e}); restart the gateway or pass --url and --token") from None
    url = args.url or os.environ.get("HFTGATE_URL") or state.get("url") or "ws://127.0.0.1:7700/v1/ws"
    token = args.token or os.environ.get("HFTGATE_TOKEN") or state.get("token")
    if not token:
        raise Usage(
            f"no gateway token: pass --token, set HFTGATE_TOKEN, or start the gateway (npm start) so it writes {args.file}"
        )
    return url, token


async def market_prices(c: GatewayClient, inst, timeout: float = 10.0) -> tuple[Decimal, Decimal]:
    """A bid 1 % under the best bid (it rests) and a price just over the best ask (it fills), from the
    gateway's market data for the instrument."""
    book_seen = asyncio.ensure_future(
        c.wait_for(
            "top_of_book",
            lambda t, h: t.instrument_id == inst.id and t.bid_price_ticks > 0 and t.ask_price_ticks > 0,
            timeout=timeout,
        )
    )
    await asyncio.sleep(0)  # the waiter is registered before the snapshot can arrive
    await c.subscribe(inst.id)
    try:
        book = await book_seen
    except asyncio.TimeoutError:
        raise Usage(f"no two-sided market for {inst.symbol} in {timeout:.0f} s; give --bid and --take") from None
    await c.unsubscribe(inst.id)
    bid = math.floor(book.bid_price_ticks * 0.99)
    take = math.ceil(book.ask_price_ticks * 1.002)
    return inst.price(bid), inst.price(take)


async def main() -> None:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("--url", help="gateway WebSocket URL (default: HFTGATE_URL, else --file)")
    p.add_argument("--token", help="gateway token (default: HFTGATE_TOKEN, else --file)")
    p.add_argument("--file", default="var/gateway.json", help="the connection file `hftgate start` writes")
    p.add_argument("--session", default="py-example")
    p.add_argument("--symbol", default="BTCUSDT")
    p.add_argument("--qty", type=Decimal, default=Decimal("0.001"))
    p.add_argument("--bid", type=Decimal, help="a price below the market (the order rests); default: from market data")
    p.add_argument("--take", type=Decimal, help="a price above the best ask (the order fills); default: from market data")
    args = p.parse_args()
    url, token = target(args)

    c = GatewayClient(url, token, args.session)
    c.on("ack", lambda a, h: print(f"acked #{a.cl_ord_no} as {a.exchange_order_id}"))
    c.on("reject", lambda r, h: print(f"rejected #{r.cl_ord_no} ({r.code}): {r.text}"))
    c.on("fill", lambda f, h: print(f"fill #{f.cl_ord_no}: {inst.qty(f.qty_lots)} @ {inst.price(f.price_ticks)}"))
    c.on("update", lambda u, h: print(f"#{u.cl_ord_no} {OrderStatus(u.status).name}, filled {inst.qty(u.cum_qty_lots)}"))
    try:
        await c.connect()
    except LogonRejectedError as e:
        raise Usage(f"the gateway at {url} refused the logon: {e}") from None
    except OSError as e:
        raise Usage(f"cannot reach the gateway at {url} ({e.strerror or e}); is it running (npm start)?") from None
    await c.instruments()
    inst = c.instrument(args.symbol)  # tick and lot sizes arrive as exact decimals
    bid_px, take_px = args.bid, args.take
    if bid_px is None or take_px is None:
        mkt_bid, mkt_take = await market_prices(c, inst)
        bid_px = bid_px if bid_px is not None else mkt_bid
        take_px = take_px if take_px is not None else mkt_take
        print(f"{inst.symbol}: bid {bid_px}, take at {take_px} (from the gateway's market data)")

    bid = await c.place_order(inst, Side.BUY, args.qty, bid_px)
    await c.until(lambda: c.order(bid).status != OrderStatus.PENDING_NEW)  # acked (or rejected)
    await c.cancel(bid)
    await c.until(lambda: c.order(bid).final)

    take = await c.place_order(inst, Side.BUY, args.qty, take_px, tif=Tif.IOC)
    await c.until(lambda: c.order(take).final)
    for no in (bid, take):
        t = c.trace(no)
        if t is not None:
            print(f"#{no} place→{t.answer.lower()} {t.round_trip_ns / 1e3:.0f} µs (in gateway {t.inside_gateway_ns / 1e3:.0f} µs)")
    await c.logout()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Usage as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        sys.exit(2)
