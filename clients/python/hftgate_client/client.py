"""asyncio client for the hftgate binary protocol (PROTOCOL.md), on the ``websockets`` library.

The same operations and events as the TypeScript ``GatewayClient``: ``place_order`` returns the client
order number as soon as the frame is written, answers arrive as events. The client tracks the
session's seq (gap and duplicate detection), resumes from the last seen seq after a reconnect (also
after a gateway restart: named sessions continue from the gateway's journal), sends heartbeats and
keeps a latency trace per order on the host's monotonic clock (the clock of the gateway's timestamps).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from . import messages as m
from .codec import WS_PATH, Header, ProtocolError, decode, encode
from .enums import (
    AmendFlags,
    CancelAllScope,
    Code,
    CodPolicy,
    LogonOptions,
    MdFlags,
    MdStatus,
    OrderFlags,
    OrderStatus,
    OrdType,
    QueryScope,
    Side,
    Tif,
)
from .instruments import Instrument

try:  # websockets ≥ 13: the new asyncio implementation
    from websockets.asyncio.client import connect as _ws_connect
except ImportError:  # websockets 10–12 (Debian 12 ships 10.4)
    from websockets import connect as _ws_connect  # type: ignore[no-redef,attr-defined]
from websockets.exceptions import ConnectionClosed

Handler = Callable[..., Any]

#: Event name for each gateway → client message (the TypeScript client's names, in snake_case).
EVENT_OF: dict[type, str] = {
    m.Ack: "ack",
    m.Reject: "reject",
    m.OrderUpdate: "update",
    m.Fill: "fill",
    m.CancelReject: "cancel_reject",
    m.OutcomeUnknown: "unknown",
    m.BalanceUpdate: "balance",
    m.PositionUpdate: "position",
    m.TradingStateMsg: "trading_state",
    m.Credit: "credit",
    m.Error: "protocol_error",
    m.AmendReject: "amend_reject",
    m.TopOfBook: "top_of_book",
    m.Trade: "trade",
    m.Candle: "candle",
    m.MarketDataStatus: "md_status",
    m.SubscribeReject: "subscribe_reject",
}

#: Every event ``on`` accepts. Message events call ``handler(msg, header)``; ``logon`` gets the
#: LogonAck, ``message`` every decoded message and its header, ``gap`` (expected, got), ``close``
#: (code, reason), ``resume_lost`` (last_seq), ``md_gap`` (instrument_id, expected, got).
EVENTS = frozenset({*EVENT_OF.values(), "logon", "message", "gap", "close", "resume_lost", "md_gap"})


class LogonRejectedError(Exception):
    """The gateway refused the logon (LogonReject); ``code`` is the PROTOCOL.md §6 code."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(f"logon rejected ({code}): {text}")
        self.code = code


class SubscribeRejectedError(Exception):
    """A Subscribe / Unsubscribe refused by the gateway (SubscribeReject); ``code`` is the §6 code."""

    def __init__(self, instrument_id: int, code: int, text: str) -> None:
        super().__init__(f"market data for instrument {instrument_id} refused ({code}): {text}")
        self.instrument_id = instrument_id
        self.code = code


class NotConnectedError(RuntimeError):
    """A command was sent while the client is not logged on."""


@dataclass(slots=True)
class OrderTrace:
    """One order's latency trace; all four times are ns of the same host monotonic clock."""

    cl_ord_no: int
    send_ns: int
    answer_ns: int = 0
    answer: str = ""  # "Ack", "Reject" or "OutcomeUnknown" once the first answer arrived
    gw_recv_ns: int = 0
    gw_send_ns: int = 0

    @property
    def round_trip_ns(self) -> int:
        return self.answer_ns - self.send_ns if self.answer_ns else 0

    @property
    def inside_gateway_ns(self) -> int:
        return self.gw_send_ns - self.gw_recv_ns if self.answer_ns else 0


@dataclass(slots=True)
class OrderState:
    """What this client has been told about one of its orders (kept for the last ``trace_capacity``)."""

    cl_ord_no: int
    instrument_id: int
    status: OrderStatus | int = OrderStatus.PENDING_NEW
    exchange_order_id: str = ""
    cum_qty_lots: int = 0
    leaves_qty_lots: int = 0
    reject: m.Reject | None = None
    fills: list[m.Fill] = field(default_factory=list)

    @property
    def final(self) -> bool:
        return isinstance(self.status, OrderStatus) and self.status.final


def _mono_ns() -> int:
    return time.monotonic_ns()


class GatewayClient:
    """One strategy session. Use ``await connect()``, then the trading calls; ``await close()`` at the end."""

    def __init__(
        self,
        url: str,
        token: str,
        session_name: str,
        *,
        heartbeat_ms: int = 1000,
        cod_policy: CodPolicy = CodPolicy.NONE,
        logon_options: LogonOptions = LogonOptions.NONE,
        auto_reconnect: bool = False,
        reconnect_delay: float = 0.2,
        last_seq: int = 0,
        trace_capacity: int = 100_000,
    ) -> None:
        """``url`` is ws://host:port (the path is added) or the full ws://host:port/v1/ws.
        ``last_seq`` is the seq of the last message an earlier run of this strategy saw on this session:
        the first logon resumes from it + 1."""
        self.url = url if url.endswith(WS_PATH) else url.rstrip("/") + WS_PATH
        self._token = token
        self.session_name = session_name
        self.heartbeat_ms = heartbeat_ms
        self.cod_policy = cod_policy
        self.logon_options = logon_options
        self.auto_reconnect = auto_reconnect
        self.reconnect_delay = reconnect_delay
        self.trace_capacity = trace_capacity
        #: Highest seq seen in this session; a resume asks for last_seq + 1.
        self.last_seq = last_seq
        #: Highest client order number used; at least LogonAck.last_cl_ord_no after logon.
        self.last_cl_ord_no = 0
        self.session_id = 0
        self.duplicates = 0
        self.gaps = 0
        self.logon_ack: m.LogonAck | None = None
        self.instruments_by_id: dict[int, Instrument] = {}
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._reconnect: asyncio.Task[None] | None = None
        self._closing = False
        self._last_send = 0.0
        self._last_recv = 0.0
        self._next_request = 1
        self._next_echo = 1
        self._handlers: dict[str, list[Handler]] = {}
        self._waiters: list[tuple[str, Callable[..., bool], asyncio.Future[Any]]] = []
        self._traces: OrderedDict[int, OrderTrace] = OrderedDict()
        self._orders: OrderedDict[int, OrderState] = OrderedDict()
        self._queries: dict[int, tuple[list[m.OrderUpdate], asyncio.Future[list[m.OrderUpdate]]]] = {}
        self._inst_reqs: dict[int, tuple[list[m.InstrumentRecord], asyncio.Future[list[Instrument]]]] = {}
        self._pings: dict[int, tuple[int, asyncio.Future[int]]] = {}
        #: Instruments subscribed to market data (subscribed again after a reconnect).
        self._md_subs: set[int] = set()
        #: Last md_seq per instrument since its latest snapshot; absent = waiting for a snapshot.
        self._md_seqs: dict[int, int] = {}
        self._md_answers: dict[int, asyncio.Future[m.MarketDataStatus]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def __repr__(self) -> str:  # never shows the token
        return f"GatewayClient(url={self.url!r}, session_name={self.session_name!r}, last_seq={self.last_seq})"

    # ------------------------------------------------------------------------------ events

    def on(self, event: str, handler: Handler) -> None:
        """Calls ``handler`` on every ``event`` (see EVENTS); a coroutine handler runs as a task."""
        if event not in EVENTS:
            raise ValueError(f"unknown event {event!r}; one of {sorted(EVENTS)}")
        self._handlers.setdefault(event, []).append(handler)

    def off(self, event: str, handler: Handler) -> None:
        hs = self._handlers.get(event, [])
        if handler in hs:
            hs.remove(handler)

    async def wait_for(
        self, event: str, predicate: Callable[..., bool] | None = None, timeout: float = 5.0
    ) -> Any:
        """The next ``event`` whose arguments satisfy ``predicate``: its message (or its first argument).
        Only events from now on count; to wait for a state, use ``until``."""
        if event not in EVENTS:
            raise ValueError(f"unknown event {event!r}")
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        entry = (event, predicate or (lambda *_: True), fut)
        self._waiters.append(entry)
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            if entry in self._waiters:
                self._waiters.remove(entry)

    def _emit(self, event: str, *args: Any) -> None:
        # Handlers first, so a waiter's predicate sees what the handlers recorded from this event.
        for h in list(self._handlers.get(event, ())):
            r = h(*args)
            if inspect.isawaitable(r):
                t = asyncio.ensure_future(r)
                self._tasks.add(t)
                t.add_done_callback(self._tasks.discard)
        for ev, pred, fut in list(self._waiters):
            if ev == event and not fut.done() and pred(*args):
                fut.set_result(args[0] if args else None)

    # ------------------------------------------------------------------------------ connection

    @property
    def connected(self) -> bool:
        return self._ws is not None and self.logon_ack is not None

    async def connect(self) -> m.LogonAck:
        """Opens the socket and logs on, resuming from last_seq + 1 when this session saw messages."""
        self._closing = False
        ws = await _ws_connect(self.url, compression=None, max_size=1 << 20, ping_interval=None)
        self.logon_ack = None
        self._ws = ws
        await self._send_on(
            ws,
            m.Logon(
                token=self._token,
                session_name=self.session_name,
                heartbeat_ms=self.heartbeat_ms,
                cod_policy=self.cod_policy,
                resume_from_seq=self.last_seq + 1 if self.last_seq > 0 else 0,
                options=self.logon_options,
            ),
        )
        try:
            while True:  # the answer to a Logon is LogonAck or LogonReject (an Error before logon: bad frame)
                header, msg = decode(await ws.recv())
                if isinstance(msg, m.LogonReject):
                    raise LogonRejectedError(msg.code, msg.text)
                if isinstance(msg, m.Error):
                    raise LogonRejectedError(msg.code, msg.text)
                if isinstance(msg, m.LogonAck):
                    break
        except BaseException:
            self._ws = None
            await ws.close()
            raise
        self._on_logon_ack(header, msg)
        self._reader = asyncio.ensure_future(self._read(ws))
        self._heartbeat = asyncio.ensure_future(self._beat(ws, msg.heartbeat_ms))
        # Subscriptions end with a connection: ask again (each answer is a fresh snapshot).
        self._md_seqs.clear()
        for instrument_id in sorted(self._md_subs):
            await self._send_on(ws, m.Subscribe(request_id=self._take_request_id(), instrument_id=instrument_id))
        return msg

    def _on_logon_ack(self, header: Header, ack: m.LogonAck) -> None:
        self.session_id = header.session_id
        self.logon_ack = ack
        self.last_cl_ord_no = max(self.last_cl_ord_no, ack.last_cl_ord_no)
        if not ack.resumed:  # a new seq space
            self.last_seq = 0
        elif ack.replay_count == 0 and self.last_seq == 0:
            self.last_seq = ack.next_seq - 1
        self._last_recv = time.monotonic()
        self._emit("logon", ack)

    async def _read(self, ws: Any) -> None:
        code, reason = 1006, ""
        try:
            async for frame in ws:
                self._last_recv = time.monotonic()
                if isinstance(frame, str):
                    continue  # the gateway sends binary frames only
                try:
                    header, msg = decode(frame)
                except ProtocolError:
                    continue  # a type from a later version this client never asked for
                self._dispatch(header, msg)
        except ConnectionClosed:
            pass
        finally:
            rcvd = getattr(ws, "close_rcvd", None)
            if rcvd is not None:
                code, reason = rcvd.code, rcvd.reason
            elif getattr(ws, "close_code", None) is not None:
                code, reason = ws.close_code, ws.close_reason or ""
            self._on_closed(ws, code, reason)

    def _on_closed(self, ws: Any, code: int, reason: str) -> None:
        if self._ws is not ws:
            return
        self._ws = None
        self.logon_ack = None
        if self._heartbeat:
            self._heartbeat.cancel()
        for _, fut in self._pings.values():
            if not fut.done():
                fut.set_exception(NotConnectedError("connection closed"))
        self._pings.clear()
        self._emit("close", code, reason)
        if self.auto_reconnect and not self._closing:
            self._reconnect = asyncio.ensure_future(self._reconnect_loop())

    async def _reconnect_loop(self) -> None:
        while not self._closing:
            await asyncio.sleep(self.reconnect_delay)
            if self._closing:
                return
            try:
                await self.connect()
                return
            except LogonRejectedError as e:
                if e.code == Code.RESUME_OUT_OF_RANGE:
                    lost, self.last_seq = self.last_seq, 0
                    self._emit("resume_lost", lost)
                elif e.code == Code.BAD_TOKEN:
                    return  # retrying cannot help
            except (OSError, ConnectionClosed, asyncio.TimeoutError):
                pass

    async def _beat(self, ws: Any, every_ms: int) -> None:
        every = every_ms / 1000
        try:
            while self._ws is ws:
                await asyncio.sleep(max(0.02, every / 2))
                now = time.monotonic()
                if now - self._last_recv > 3 * every:  # a silent gateway is gone even without a close
                    transport = getattr(ws, "transport", None)
                    if transport is not None:
                        transport.abort()
                    return
                if now - self._last_send >= every:
                    await self._send_on(ws, m.Heartbeat(echo=0))
        except (ConnectionClosed, asyncio.CancelledError):
            pass

    def _dispatch(self, header: Header, msg: m.Message) -> None:
        seq = header.seq
        if seq != 0:
            if seq <= self.last_seq:
                self.duplicates += 1
                return
            if self.last_seq != 0 and seq != self.last_seq + 1:
                self.gaps += 1
                self._emit("gap", self.last_seq + 1, seq)
            self.last_seq = seq
        if isinstance(msg, (m.Ack, m.Reject, m.OutcomeUnknown, m.OrderUpdate, m.Fill)):
            self._track(msg)
        if isinstance(msg, (m.Ack, m.Reject, m.OutcomeUnknown)):
            t = self._traces.get(msg.cl_ord_no)
            if t is not None and not t.answer:
                t.answer_ns = _mono_ns()
                t.answer = type(msg).__name__
                t.gw_recv_ns = header.recv_ns
                t.gw_send_ns = header.send_ns
        elif isinstance(msg, m.OrderUpdate):
            q = self._queries.get(msg.request_id) if msg.request_id else None
            if q is not None:
                q[0].append(msg)
        elif isinstance(msg, m.QueryEnd):
            q = self._queries.pop(msg.request_id, None)
            if q is not None and not q[1].done():
                q[1].set_result(q[0])
        elif isinstance(msg, m.InstrumentsResponse):
            r = self._inst_reqs.get(msg.request_id)
            if r is not None:
                r[0].extend(msg.instruments)
                if not msg.more:
                    del self._inst_reqs[msg.request_id]
                    insts = [Instrument.from_record(x) for x in r[0]]
                    self.instruments_by_id.update((i.id, i) for i in insts)
                    if not r[1].done():
                        r[1].set_result(insts)
        elif isinstance(msg, (m.TopOfBook, m.Trade, m.Candle)):
            last = self._md_seqs.get(msg.instrument_id)
            if not msg.flags & MdFlags.SNAPSHOT and last is not None and msg.md_seq != last + 1:
                self._emit("md_gap", msg.instrument_id, last + 1, msg.md_seq)
            self._md_seqs[msg.instrument_id] = msg.md_seq
        elif isinstance(msg, m.MarketDataStatus):
            if msg.status == MdStatus.LIVE:
                self._md_seqs[msg.instrument_id] = msg.md_seq
            else:
                self._md_seqs.pop(msg.instrument_id, None)  # the next message is a snapshot
            fut = self._md_answers.pop(msg.request_id, None) if msg.request_id else None
            if fut is not None and not fut.done():
                fut.set_result(msg)
        elif isinstance(msg, m.SubscribeReject):
            self._md_subs.discard(msg.instrument_id)
            fut = self._md_answers.pop(msg.request_id, None)
            if fut is not None and not fut.done():
                fut.set_exception(SubscribeRejectedError(msg.instrument_id, msg.code, msg.text))
        elif isinstance(msg, m.HeartbeatOut) and msg.echo:
            p = self._pings.pop(msg.echo, None)
            if p is not None and not p[1].done():
                p[1].set_result(_mono_ns() - p[0])
        event = EVENT_OF.get(type(msg))
        if event is not None:
            self._emit(event, msg, header)
        self._emit("message", msg, header)

    def _track(self, msg: Any) -> None:
        o = self._orders.get(msg.cl_ord_no)
        if o is None:
            if not isinstance(msg, m.OrderUpdate):
                return  # an order placed by an earlier run: its OrderUpdates (Query, replay) describe it
            o = self._remember(OrderState(msg.cl_ord_no, msg.instrument_id))
        if isinstance(msg, m.Ack):
            o.exchange_order_id = msg.exchange_order_id
            if o.status in (OrderStatus.PENDING_NEW, OrderStatus.UNKNOWN):
                o.status = OrderStatus.NEW
        elif isinstance(msg, m.Reject):
            o.reject, o.status, o.leaves_qty_lots = msg, OrderStatus.REJECTED, 0
        elif isinstance(msg, m.OutcomeUnknown):
            o.status = OrderStatus.UNKNOWN
        elif isinstance(msg, m.Fill):
            o.fills.append(msg)
        else:
            o.status, o.cum_qty_lots, o.leaves_qty_lots = msg.status, msg.cum_qty_lots, msg.leaves_qty_lots
            o.exchange_order_id = msg.exchange_order_id or o.exchange_order_id

    def _remember(self, o: OrderState) -> OrderState:
        if len(self._orders) >= self.trace_capacity:
            self._orders.popitem(last=False)
        self._orders[o.cl_ord_no] = o
        return o

    def order(self, cl_ord_no: int) -> OrderState | None:
        """What this client has been told about an order it placed (or saw in a Query or a replay)."""
        return self._orders.get(cl_ord_no)

    async def until(self, cond: Callable[[], Any], timeout: float = 5.0) -> None:
        """Returns once ``cond()`` is true, checking it now and after every message received:
        ``await c.until(lambda: c.order(no).final)`` cannot miss an answer that came early."""
        if not cond():
            await self.wait_for("message", lambda *_: bool(cond()), timeout)

    async def _send_on(self, ws: Any, msg: m.Message) -> None:
        await ws.send(encode(msg))
        self._last_send = time.monotonic()

    async def _send(self, msg: m.Message) -> None:
        if self._ws is None or self.logon_ack is None:
            raise NotConnectedError("not logged on")
        await self._send_on(self._ws, msg)

    # ------------------------------------------------------------------------------ trading

    def instrument(self, symbol: str, venue: str | None = None) -> Instrument:
        """A listed instrument by symbol (and venue when the symbol trades on several); call instruments() first."""
        found = [
            i for i in self.instruments_by_id.values() if i.symbol == symbol and (venue is None or i.venue == venue)
        ]
        if len(found) != 1:
            raise KeyError(f"{len(found)} instruments named {symbol!r}" + (f" on {venue!r}" if venue else ""))
        return found[0]

    async def place_order(
        self,
        instrument: Instrument | int,
        side: Side,
        qty: Decimal | str | int,
        price: Decimal | str | int | None = None,
        *,
        tif: Tif = Tif.GTC,
        position_idx: int = 0,
        reduce_only: bool = False,
        post_only: bool = False,
    ) -> int:
        """Places a limit order (or a market order when ``price`` is None) in decimal units; returns
        its client order number as soon as the frame is written. Off-grid values raise OffGridError
        before anything is sent."""
        inst = instrument if isinstance(instrument, Instrument) else self.instruments_by_id[instrument]
        flags = (OrderFlags.REDUCE_ONLY if reduce_only else 0) | (OrderFlags.POST_ONLY if post_only else 0)
        return await self.place_order_lots(
            inst.id,
            side,
            inst.to_lots(qty),
            0 if price is None else inst.to_ticks(price),
            ord_type=OrdType.MARKET if price is None else OrdType.LIMIT,
            tif=tif,
            position_idx=position_idx,
            flags=flags,
        )

    async def place_order_lots(
        self,
        instrument_id: int,
        side: Side,
        qty_lots: int,
        price_ticks: int = 0,
        *,
        ord_type: OrdType = OrdType.LIMIT,
        tif: Tif = Tif.GTC,
        position_idx: int = 0,
        flags: int = 0,
    ) -> int:
        """The same in integer lots and ticks, as they go on the wire."""
        if self._ws is None or self.logon_ack is None:
            raise NotConnectedError("not logged on")
        cl = self.last_cl_ord_no + 1
        frame = encode(  # bad fields raise ProtocolError here, before anything changes
            m.NewOrder(
                cl_ord_no=cl,
                instrument_id=instrument_id,
                side=side,
                ord_type=ord_type,
                tif=tif,
                position_idx=position_idx,
                price_ticks=price_ticks,
                qty_lots=qty_lots,
                flags=flags,
            )
        )
        self.last_cl_ord_no = cl
        if len(self._traces) >= self.trace_capacity:
            self._traces.popitem(last=False)
        self._traces[cl] = OrderTrace(cl, _mono_ns())
        self._remember(OrderState(cl, instrument_id, leaves_qty_lots=qty_lots))
        try:
            await self._ws.send(frame)
            self._last_send = time.monotonic()
        except BaseException:  # not sent (the number stays used: gaps are allowed)
            self._traces.pop(cl, None)
            self._orders.pop(cl, None)
            raise
        return cl

    async def cancel(self, order: int | str) -> None:
        """Cancels by client order number, or by exchange order id when given a string."""
        if isinstance(order, str):
            await self._send(m.Cancel(cl_ord_no=0, exchange_order_id=order))
        else:
            await self._send(m.Cancel(cl_ord_no=order))

    async def amend(
        self,
        cl_ord_no: int,
        *,
        price: Decimal | str | int | None = None,
        qty: Decimal | str | int | None = None,
        replace: bool = False,
    ) -> int:
        """Amends a working order's price and/or total quantity (filled included), in decimals. In place
        on HFT (returns 0); on Spot the gateway cancels and replaces it (``replace=True``): a new client
        order number is taken for the replacement and returned. Answers: ``update`` (PendingReplace,
        then the new values) or ``amend_reject``."""
        o = self._orders.get(cl_ord_no)
        inst = self.instruments_by_id.get(o.instrument_id) if o is not None else None
        if inst is None:
            raise KeyError(f"order {cl_ord_no} or its instrument is not known to this client: use amend_lots")
        return await self.amend_lots(
            cl_ord_no,
            price_ticks=None if price is None else inst.to_ticks(price),
            qty_lots=None if qty is None else inst.to_lots(qty),
            replace=replace,
        )

    async def amend_lots(
        self, cl_ord_no: int, *, price_ticks: int | None = None, qty_lots: int | None = None, replace: bool = False
    ) -> int:
        """The same in ticks and lots."""
        flags = (0 if price_ticks is None else AmendFlags.PRICE) | (0 if qty_lots is None else AmendFlags.QTY)
        if flags == 0:
            raise ValueError("amend needs a price or a quantity")
        new_cl = self.last_cl_ord_no + 1 if replace else 0
        frame = encode(
            m.Amend(
                cl_ord_no=cl_ord_no,
                new_cl_ord_no=new_cl,
                flags=flags,
                price_ticks=price_ticks or 0,
                qty_lots=qty_lots or 0,
            )
        )
        if self._ws is None or self.logon_ack is None:
            raise NotConnectedError("not logged on")
        if replace:
            self.last_cl_ord_no = new_cl
            o = self._orders.get(cl_ord_no)
            self._remember(OrderState(new_cl, o.instrument_id if o else 0))
        await self._ws.send(frame)
        self._last_send = time.monotonic()
        return new_cl

    async def subscribe(self, instrument_id: int, timeout: float = 5.0) -> m.MarketDataStatus:
        """Market data for an instrument: the snapshot arrives as ``top_of_book`` / ``trade`` / ``candle``
        events (flag Snapshot), then updates in ``md_seq`` order. Returns the answering MarketDataStatus
        (Live, or Stale while the venue feed is not live: the snapshot follows); raises
        SubscribeRejectedError. Kept across reconnects."""
        self._md_subs.add(instrument_id)
        try:
            return await self._md_request(m.Subscribe, instrument_id, timeout)
        except BaseException:
            self._md_subs.discard(instrument_id)
            raise

    async def unsubscribe(self, instrument_id: int, timeout: float = 5.0) -> m.MarketDataStatus:
        """Ends an instrument's market data; returns MarketDataStatus Unsubscribed."""
        self._md_subs.discard(instrument_id)
        self._md_seqs.pop(instrument_id, None)
        return await self._md_request(m.Unsubscribe, instrument_id, timeout)

    async def _md_request(self, cls: type, instrument_id: int, timeout: float) -> m.MarketDataStatus:
        request_id = self._take_request_id()
        fut: asyncio.Future[m.MarketDataStatus] = asyncio.get_running_loop().create_future()
        self._md_answers[request_id] = fut
        try:
            await self._send(cls(request_id=request_id, instrument_id=instrument_id))
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._md_answers.pop(request_id, None)

    async def cancel_all(self, instrument_id: int | None = None, account: bool = False) -> None:
        """This session's live orders; with an instrument, those on it; ``account``: every session's."""
        if account:
            scope = CancelAllScope.ACCOUNT
        elif instrument_id is None:
            scope = CancelAllScope.SESSION
        else:
            scope = CancelAllScope.SESSION_INSTRUMENT
        await self._send(m.CancelAll(scope=scope, instrument_id=instrument_id or 0))

    async def query(self, cl_ord_no: int | None = None, timeout: float = 5.0) -> list[m.OrderUpdate]:
        """One order by client order number or, without one, every live order of the session."""
        request_id = self._take_request_id()
        fut: asyncio.Future[list[m.OrderUpdate]] = asyncio.get_running_loop().create_future()
        self._queries[request_id] = ([], fut)
        scope = QueryScope.ALL_LIVE if cl_ord_no is None else QueryScope.ONE
        try:
            await self._send(m.Query(request_id=request_id, scope=scope, cl_ord_no=cl_ord_no or 0))
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._queries.pop(request_id, None)

    async def instruments(self, timeout: float = 5.0) -> list[Instrument]:
        """Every instrument the gateway lists (also kept in ``instruments_by_id``)."""
        request_id = self._take_request_id()
        fut: asyncio.Future[list[Instrument]] = asyncio.get_running_loop().create_future()
        self._inst_reqs[request_id] = ([], fut)
        try:
            await self._send(m.InstrumentsRequest(request_id=request_id))
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._inst_reqs.pop(request_id, None)

    async def ping(self, timeout: float = 5.0) -> int:
        """Round trip through the gateway (Heartbeat with echo), in ns."""
        echo = self._next_echo
        self._next_echo += 1
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pings[echo] = (_mono_ns(), fut)
        try:
            await self._send(m.Heartbeat(echo=echo))
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._pings.pop(echo, None)

    async def kill(self, reason: str = "") -> None:
        """Admin sessions only: halt trading and cancel every live order of the account."""
        await self._send(m.Kill(reason=reason))

    async def set_trading_state(self, state: int, reason: str = "") -> None:
        """Admin sessions only: 1 active, 2 reducing, 3 halted."""
        await self._send(m.SetTradingState(state=state, reason=reason))

    def trace(self, cl_ord_no: int) -> OrderTrace | None:
        return self._traces.get(cl_ord_no)

    def _take_request_id(self) -> int:
        r = self._next_request
        self._next_request = r + 1 if r < 0xFFFFFFFF else 1
        return r

    # ------------------------------------------------------------------------------ closing

    async def logout(self) -> None:
        """Graceful Logout; returns when the gateway has closed the connection."""
        self._closing = True
        ws, reader = self._ws, self._reader
        if ws is None:
            return
        try:
            await self._send_on(ws, m.Logout())
        except ConnectionClosed:
            pass
        if reader is not None:
            await asyncio.wait({reader}, timeout=5.0)
        await ws.close()

    async def close(self) -> None:
        """Closes the socket without a Logout (the gateway sees a disconnect)."""
        self._closing = True
        if self._reconnect is not None:
            self._reconnect.cancel()
        ws, reader = self._ws, self._reader
        if ws is not None:
            transport = getattr(ws, "transport", None)
            if transport is not None:
                transport.abort()
            else:
                await ws.close()
        if reader is not None:
            await asyncio.wait({reader}, timeout=5.0)
        if self._heartbeat is not None:
            self._heartbeat.cancel()

    async def drop(self) -> None:
        """Drops the connection as a network fault would (tests and tools); auto_reconnect applies."""
        ws = self._ws
        if ws is not None and getattr(ws, "transport", None) is not None:
            ws.transport.abort()
