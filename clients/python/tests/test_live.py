"""The client against a live gateway on the simulator (real sockets). test/clients/python.test.ts starts
the gateway and sets HFTGATE_URL and HFTGATE_TOKEN; without them these tests are skipped."""

import asyncio
import os
import unittest
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from hftgate_client import (
    AmendRejectReason,
    Code,
    MdFlags,
    MdStatus,
    SubscribeRejectedError,
    GatewayClient,
    Header,
    Liquidity,
    LogonRejectedError,
    NotConnectedError,
    OffGridError,
    OrderStatus,
    Side,
    Tif,
)
from hftgate_client import messages as m

URL = os.environ.get("HFTGATE_URL", "")
TOKEN = os.environ.get("HFTGATE_TOKEN", "")
SYMBOL = os.environ.get("HFTGATE_SYMBOL", "BTCUSDT")
REST_PRICE = Decimal(os.environ.get("HFTGATE_REST_PRICE", "60000.0"))  # below the market: rests
CROSS_PRICE = Decimal(os.environ.get("HFTGATE_CROSS_PRICE", "66000.0"))  # above the asks: fills
QTY = Decimal(os.environ.get("HFTGATE_QTY", "0.005"))
# A Spot instrument whose public market data the simulator streams (HFT's comes over NATS).
MD_SYMBOL = os.environ.get("HFTGATE_MD_SYMBOL", "BTC/INR")


class Log:
    """Every message a client received, so a test can wait for a state instead of racing an event."""

    def __init__(self, c: GatewayClient) -> None:
        self.c = c
        self.all: list[tuple[Header, Any]] = []
        c.on("message", lambda msg, h: self.all.append((h, msg)))

    def of(self, cls: type, pred: Callable[[Any], bool] = lambda _: True) -> list[Any]:
        return [msg for _, msg in self.all if isinstance(msg, cls) and pred(msg)]

    async def until(self, cond: Callable[[], Any], timeout: float = 5.0) -> None:
        if not cond():
            await self.c.wait_for("message", lambda *_: bool(cond()), timeout)

    async def first(self, cls: type, pred: Callable[[Any], bool] = lambda _: True) -> Any:
        await self.until(lambda: self.of(cls, pred))
        return self.of(cls, pred)[0]

    def sequenced(self) -> list[tuple[int, str, int, int]]:
        return [
            (h.seq, type(msg).__name__, getattr(msg, "cl_ord_no", 0), getattr(msg, "status", 0))
            for h, msg in self.all
            if h.seq
        ]


def status(cl: int, st: OrderStatus) -> Callable[[Any], bool]:
    return lambda u: u.cl_ord_no == cl and u.status == st


@unittest.skipUnless(URL and TOKEN, "HFTGATE_URL / HFTGATE_TOKEN not set (test/clients/python.test.ts sets them)")
class LiveTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.clients: list[GatewayClient] = []

    async def asyncTearDown(self) -> None:
        for c in self.clients:
            if c.connected:
                await c.cancel_all()
            await c.close()

    async def client(self, name: str, **kw: Any) -> tuple[GatewayClient, Log]:
        c = GatewayClient(URL, TOKEN, f"py-{name}", **kw)
        self.clients.append(c)
        log = Log(c)
        await c.connect()
        await c.instruments()
        return c, log

    async def test_logon_and_instruments_with_exact_decimals(self) -> None:
        c = GatewayClient(URL, TOKEN, "py-logon")
        self.clients.append(c)
        ack = await c.connect()
        self.assertEqual(ack.resumed, 0)
        self.assertGreater(c.session_id, 0)
        insts = await c.instruments()
        self.assertGreater(len(insts), 1)
        btc = c.instrument(SYMBOL)
        self.assertIsInstance(btc.tick_size, Decimal)
        self.assertEqual(btc.to_ticks(btc.price(640001)), 640001)
        self.assertEqual(c.instruments_by_id[btc.id], btc)

    async def test_resting_order_is_acked_traced_and_cancelled(self) -> None:
        c, log = await self.client("rest")
        btc = c.instrument(SYMBOL)
        cl = await c.place_order(btc, Side.BUY, QTY, REST_PRICE)
        ack = await log.first(m.Ack, lambda a: a.cl_ord_no == cl)
        self.assertTrue(ack.exchange_order_id)
        # An Ack means New: the order's state is asked for, not pushed again.
        [new] = await c.query(cl)
        self.assertEqual(new.status, OrderStatus.NEW)
        self.assertEqual(new.exchange_order_id, ack.exchange_order_id)
        lots = btc.to_lots(QTY)
        self.assertEqual((new.price_ticks, new.qty_lots, new.leaves_qty_lots), (btc.to_ticks(REST_PRICE), lots, lots))
        t = c.trace(cl)
        assert t is not None
        self.assertEqual(t.answer, "Ack")
        # One monotonic clock on this host: strategy send < gateway receive ≤ gateway send < strategy receive.
        self.assertLess(t.send_ns, t.gw_recv_ns)
        self.assertLessEqual(t.gw_recv_ns, t.gw_send_ns)
        self.assertLess(t.gw_send_ns, t.answer_ns)
        await c.cancel(cl)
        done = await log.first(m.OrderUpdate, status(cl, OrderStatus.CANCELLED))
        self.assertEqual(done.leaves_qty_lots, 0)
        self.assertEqual(await c.query(), [])

    async def test_crossing_order_fills(self) -> None:
        c, log = await self.client("cross")
        btc = c.instrument(SYMBOL)
        lots = btc.to_lots(QTY)
        cl = await c.place_order(btc, Side.BUY, QTY, CROSS_PRICE, tif=Tif.IOC)
        final = await log.first(m.OrderUpdate, status(cl, OrderStatus.FILLED))
        self.assertEqual(final.cum_qty_lots, lots)
        self.assertGreater(final.avg_px, 0)
        fills = log.of(m.Fill, lambda f: f.cl_ord_no == cl)
        self.assertEqual(sum(f.qty_lots for f in fills), lots)
        self.assertTrue(all(f.price_ticks <= btc.to_ticks(CROSS_PRICE) for f in fills))
        self.assertTrue(all(f.liquidity in (Liquidity.TAKER, Liquidity.UNKNOWN) for f in fills))
        self.assertEqual(len({f.exec_id for f in fills}), len(fills))
        # The protocol's order: the answer first, then fills, then the update that reports them.
        kinds = [type(msg).__name__ for _, msg in log.all if getattr(msg, "cl_ord_no", None) == cl]
        self.assertEqual(kinds[0], "Ack")
        self.assertLess(kinds.index("Fill"), kinds.index("OrderUpdate"))
        o = c.order(cl)  # the client's own view of the order agrees with the messages
        assert o is not None
        self.assertTrue(o.final)
        self.assertEqual((o.status, o.cum_qty_lots, o.leaves_qty_lots, o.fills), (OrderStatus.FILLED, lots, 0, fills))
        await log.until(lambda: log.of(m.PositionUpdate, lambda p: p.instrument_id == btc.id and p.size_lots > 0))
        # Flatten so the other tests see the account as it was.
        sell = await c.place_order(btc, Side.SELL, QTY, REST_PRICE, tif=Tif.IOC)
        await log.first(m.OrderUpdate, lambda u: u.cl_ord_no == sell and u.status == OrderStatus.FILLED)

    async def test_bad_input_is_refused_and_changes_nothing(self) -> None:
        c, log = await self.client("bad")
        btc = c.instrument(SYMBOL)
        before = c.last_cl_ord_no
        with self.assertRaises(OffGridError):
            await c.place_order(btc, Side.BUY, QTY, REST_PRICE + Decimal("0.05"))
        with self.assertRaises(OffGridError):
            await c.place_order(btc, Side.BUY, QTY / 10, REST_PRICE)
        self.assertEqual(c.last_cl_ord_no, before)  # nothing was sent
        cl = await c.place_order_lots(999_999, Side.BUY, 1, 1)
        await c.until(lambda: c.order(cl).final)  # type: ignore[union-attr]
        rej = log.of(m.Reject, lambda r: r.cl_ord_no == cl)[0]
        self.assertEqual(rej.code, Code.UNKNOWN_INSTRUMENT)
        self.assertEqual(c.order(cl).reject, rej)  # type: ignore[union-attr]
        self.assertTrue(c.connected)
        self.assertGreater(await c.ping(), 0)  # the session stays up
        await c.close()
        with self.assertRaises(NotConnectedError):
            await c.place_order(btc, Side.BUY, QTY, REST_PRICE)

    async def test_bad_token_is_refused_without_echoing_it(self) -> None:
        c = GatewayClient(URL, "not-the-token-42", "py-badtoken")
        with self.assertRaises(LogonRejectedError) as cm:
            await c.connect()
        self.assertEqual(cm.exception.code, Code.BAD_TOKEN)
        self.assertNotIn("not-the-token-42", str(cm.exception) + repr(c))

    async def test_query_and_cancel_all(self) -> None:
        c, log = await self.client("query")
        btc = c.instrument(SYMBOL)
        cls = [await c.place_order(btc, Side.BUY, QTY, REST_PRICE - k) for k in range(3)]
        await log.until(lambda: len(log.of(m.Ack)) == 3)
        live = await c.query()
        self.assertEqual(sorted(u.cl_ord_no for u in live), cls)
        self.assertEqual([u.status for u in await c.query(cls[1])], [OrderStatus.NEW])
        await c.cancel_all(btc.id)
        await log.until(lambda: len(log.of(m.OrderUpdate, lambda u: u.status == OrderStatus.CANCELLED)) == 3)
        self.assertEqual(await c.query(), [])

    async def test_resume_after_a_dropped_connection_has_no_gap_and_no_duplicate(self) -> None:
        a, log = await self.client("resume")
        btc = a.instrument(SYMBOL)
        cls = [await a.place_order(btc, Side.BUY, QTY, REST_PRICE - k) for k in range(3)]
        await log.until(lambda: len(log.of(m.Ack)) == 3)
        last_before = a.last_seq
        closes: list[int] = []
        a.on("close", lambda code, reason: closes.append(code))
        await a.drop()  # as a network fault would: no Logout, no close handshake
        async with asyncio.timeout(5):
            while not closes:
                await asyncio.sleep(0.01)
        # While `a` is away another session of the account cancels its orders: a's updates are queued.
        b, _ = await self.client("resume-other")
        await b.cancel_all(account=True)
        await asyncio.sleep(0.3)  # let the venue confirm (not asserted: a late cancel arrives live instead)
        ack = await a.connect()
        self.assertEqual(ack.resumed, 1)
        if ack.replay_count:
            self.assertEqual(ack.replay_from_seq, last_before + 1)
        await log.until(lambda: len(log.of(m.OrderUpdate, lambda u: u.status == OrderStatus.CANCELLED)) == 3)
        seen = log.sequenced()
        seqs = [s[0] for s in seen]
        self.assertEqual(seqs, list(range(1, len(seqs) + 1)))  # every seq once, in order
        self.assertEqual((a.duplicates, a.gaps), (0, 0))
        self.assertEqual(sorted(s[2] for s in seen if s[1] == "OrderUpdate" and s[3] == OrderStatus.CANCELLED), cls)
        # A later run of the strategy that kept its last seq gets exactly what it missed, in order.
        await a.close()
        a2 = GatewayClient(URL, TOKEN, "py-resume", last_seq=last_before)
        self.clients.append(a2)
        log2 = Log(a2)
        ack2 = await a2.connect()
        self.assertEqual((ack2.replay_from_seq, ack2.replay_count), (last_before + 1, a.last_seq - last_before))
        await log2.until(lambda: a2.last_seq >= a.last_seq)
        # Byte-identical replay: same seq, same gateway timestamps, same fields. (After the replay the
        # new logon gets fresh balance snapshots, with the next seq numbers.)
        missed = [(h, msg) for h, msg in log.all if h.seq > last_before]
        self.assertEqual([(h, msg) for h, msg in log2.all if last_before < h.seq <= a.last_seq], missed)

    async def test_amend_in_place_then_a_refused_amend(self) -> None:
        c, log = await self.client("amend")
        btc = c.instrument(SYMBOL)
        cl = await c.place_order(btc, Side.BUY, QTY, REST_PRICE)
        await c.until(lambda: c.order(cl).status == OrderStatus.NEW)  # type: ignore[union-attr]
        new_price = REST_PRICE + btc.tick_size * 5
        self.assertEqual(await c.amend(cl, price=new_price, qty=QTY * 2), 0)  # HFT: in place, no new number
        await log.until(lambda: log.of(m.OrderUpdate, lambda u: u.cl_ord_no == cl and u.price_ticks == btc.to_ticks(new_price)))
        pending = log.of(m.OrderUpdate, status(cl, OrderStatus.PENDING_REPLACE))
        done = log.of(m.OrderUpdate, lambda u: u.cl_ord_no == cl and u.price_ticks == btc.to_ticks(new_price))[0]
        self.assertEqual(len(pending), 1)
        self.assertEqual(pending[0].price_ticks, btc.to_ticks(REST_PRICE))  # the old values while pending
        self.assertEqual((done.status, done.qty_lots, done.leaves_qty_lots), (OrderStatus.NEW, 10, 10))
        [held] = await c.query(cl)  # the gateway's view agrees
        self.assertEqual((held.price_ticks, held.qty_lots), (btc.to_ticks(new_price), 10))
        await c.amend(cl, price=new_price)  # nothing changes: refused, nothing sent
        rej = await log.first(m.AmendReject, lambda r: r.cl_ord_no == cl)
        self.assertEqual(rej.reason, AmendRejectReason.NOTHING_TO_AMEND)
        with self.assertRaises(OffGridError):
            await c.amend(cl, price=new_price + Decimal("0.01"))

    async def test_market_data_snapshot_then_updates_in_sequence(self) -> None:
        c, log = await self.client("md")
        spot = c.instrument(MD_SYMBOL)
        gaps: list[tuple[int, int, int]] = []
        c.on("md_gap", lambda *a: gaps.append(a))
        status = await c.subscribe(spot.id)
        if status.status == MdStatus.STALE:  # the feed's first book not in yet: the snapshot follows
            await log.until(lambda: log.of(m.MarketDataStatus, lambda s: s.status == MdStatus.LIVE))
        book = await log.first(m.TopOfBook, lambda b: b.instrument_id == spot.id)
        self.assertTrue(book.flags & MdFlags.SNAPSHOT)
        self.assertGreater(book.ask_price_ticks, book.bid_price_ticks)
        self.assertEqual(log.all[-1][0].seq, 0)  # market data is unsequenced
        # Take the best ask: a public print and a book change follow, each with the next md_seq.
        live = log.of(m.MarketDataStatus, lambda s: s.status == MdStatus.LIVE)[-1]
        ask = spot.price(book.ask_price_ticks)
        lots = max(spot.to_lots(spot.min_qty), int(2 * spot.min_notional / (ask * spot.qty_step)) + 1)
        lots = min(lots, book.ask_qty_lots)  # all at the best ask: one print at its price
        cl = await c.place_order(spot, Side.BUY, spot.qty(lots), ask)  # Spot takes GTC limits only
        await c.until(lambda: c.order(cl).final)  # type: ignore[union-attr]
        self.assertEqual(c.order(cl).status, OrderStatus.FILLED, c.order(cl).reject)  # type: ignore[union-attr]
        await log.until(lambda: log.of(m.Trade, lambda t: t.instrument_id == spot.id and not t.flags & MdFlags.SNAPSHOT))
        trade = log.of(m.Trade, lambda t: t.instrument_id == spot.id and not t.flags & MdFlags.SNAPSHOT)[0]
        self.assertEqual(trade.price_ticks, book.ask_price_ticks)
        self.assertGreater(trade.md_seq, live.md_seq)
        self.assertEqual(gaps, [])
        gone = await c.unsubscribe(spot.id)
        self.assertEqual(gone.status, MdStatus.UNSUBSCRIBED)

    async def test_market_data_refusals_are_typed(self) -> None:
        c, _ = await self.client("md-bad")
        with self.assertRaises(SubscribeRejectedError) as cm:
            await c.subscribe(999_999)
        self.assertEqual(cm.exception.code, Code.UNKNOWN_INSTRUMENT)
        self.assertTrue(c.connected)

    async def test_heartbeats_keep_an_idle_session_up(self) -> None:
        c, _ = await self.client("idle", heartbeat_ms=200)
        closes: list[int] = []
        c.on("close", lambda code, reason: closes.append(code))
        await asyncio.sleep(1.2)  # six intervals: without client heartbeats the gateway closes after three
        self.assertEqual(closes, [])
        self.assertTrue(c.connected)
        self.assertGreater(await c.ping(), 0)


if __name__ == "__main__":
    unittest.main()
