"""Every message of the protocol as a typed dataclass (PROTOCOL.md §4).

Each dataclass *is* its layout: the fields are listed in wire order and each carries its wire type
(``u8`` … ``i64``, ``char[N]``) in its metadata, from which ``codec`` builds one ``struct`` format per
message. ``tests/test_spec.py`` checks every class against the tables of PROTOCOL.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from .enums import (
    Aggressor,
    AmendRejectReason,
    CancelAllScope,
    CancelRejectReason,
    CodPolicy,
    CreditBucket,
    Liquidity,
    LogonOptions,
    MdStatus,
    OrderStatus,
    OrdType,
    QueryScope,
    RejectSource,
    Side,
    Surface,
    Tif,
    TradingState,
    UnknownOp,
)


def wire(kind: str, enum: type | None = None, default: Any = None) -> Any:
    """A field's wire type (and the enum its values belong to, if any)."""
    if default is None:
        default = "" if kind.startswith("char") else 0
    return field(default=default, metadata={"wire": kind, "enum": enum})


def scaled(mantissa: int, exponent: int) -> Decimal:
    """mantissa × 10^exponent, exactly."""
    return Decimal(mantissa).scaleb(exponent)


@dataclass(slots=True)
class Message:
    """Base of every message: ``TYPE`` is the type byte, ``SEQUENCED`` whether it carries a seq, ``NAME``
    the protocol's name when it differs from the class name."""

    NAME: ClassVar[str] = ""
    TYPE: ClassVar[int] = 0
    SEQUENCED: ClassVar[bool] = False
    TO_GATEWAY: ClassVar[bool] = False


# ----------------------------------------------------------------------------- client → gateway


@dataclass(slots=True)
class Logon(Message):
    TYPE: ClassVar[int] = 0x01
    TO_GATEWAY: ClassVar[bool] = True
    token: str = wire("char[64]")
    session_name: str = wire("char[32]")
    heartbeat_ms: int = wire("u32")
    cod_policy: CodPolicy | int = wire("u8", CodPolicy)
    resume_from_seq: int = wire("u64")
    options: LogonOptions | int = wire("u8", LogonOptions)

    def __repr__(self) -> str:  # the token is a secret: never print it
        return (
            f"Logon(token=<{len(self.token)} chars>, session_name={self.session_name!r}, "
            f"heartbeat_ms={self.heartbeat_ms}, cod_policy={self.cod_policy}, "
            f"resume_from_seq={self.resume_from_seq}, options={self.options})"
        )


@dataclass(slots=True)
class NewOrder(Message):
    TYPE: ClassVar[int] = 0x02
    TO_GATEWAY: ClassVar[bool] = True
    cl_ord_no: int = wire("u64")
    instrument_id: int = wire("u32")
    side: Side | int = wire("u8", Side)
    ord_type: OrdType | int = wire("u8", OrdType)
    tif: Tif | int = wire("u8", Tif)
    position_idx: int = wire("u8")
    price_ticks: int = wire("u64")
    qty_lots: int = wire("u64")
    flags: int = wire("u16")


@dataclass(slots=True)
class Cancel(Message):
    TYPE: ClassVar[int] = 0x03
    TO_GATEWAY: ClassVar[bool] = True
    cl_ord_no: int = wire("u64")
    exchange_order_id: str = wire("char[40]")


@dataclass(slots=True)
class CancelAll(Message):
    TYPE: ClassVar[int] = 0x04
    TO_GATEWAY: ClassVar[bool] = True
    scope: CancelAllScope | int = wire("u8", CancelAllScope)
    instrument_id: int = wire("u32")


@dataclass(slots=True)
class Query(Message):
    TYPE: ClassVar[int] = 0x05
    TO_GATEWAY: ClassVar[bool] = True
    request_id: int = wire("u32")
    scope: QueryScope | int = wire("u8", QueryScope)
    cl_ord_no: int = wire("u64")


@dataclass(slots=True)
class InstrumentsRequest(Message):
    TYPE: ClassVar[int] = 0x06
    TO_GATEWAY: ClassVar[bool] = True
    request_id: int = wire("u32")


@dataclass(slots=True)
class Heartbeat(Message):
    TYPE: ClassVar[int] = 0x07
    TO_GATEWAY: ClassVar[bool] = True
    echo: int = wire("u64")


@dataclass(slots=True)
class Logout(Message):
    TYPE: ClassVar[int] = 0x08
    TO_GATEWAY: ClassVar[bool] = True


@dataclass(slots=True)
class Kill(Message):
    TYPE: ClassVar[int] = 0x09
    TO_GATEWAY: ClassVar[bool] = True
    reason: str = wire("char[64]")


@dataclass(slots=True)
class SetTradingState(Message):
    TYPE: ClassVar[int] = 0x0A
    TO_GATEWAY: ClassVar[bool] = True
    state: TradingState | int = wire("u8", TradingState)
    reason: str = wire("char[64]")


@dataclass(slots=True)
class Amend(Message):
    TYPE: ClassVar[int] = 0x0B
    TO_GATEWAY: ClassVar[bool] = True
    cl_ord_no: int = wire("u64")
    new_cl_ord_no: int = wire("u64")
    flags: int = wire("u8")
    price_ticks: int = wire("u64")
    qty_lots: int = wire("u64")


@dataclass(slots=True)
class Subscribe(Message):
    TYPE: ClassVar[int] = 0x0C
    TO_GATEWAY: ClassVar[bool] = True
    request_id: int = wire("u32")
    instrument_id: int = wire("u32")


@dataclass(slots=True)
class Unsubscribe(Message):
    TYPE: ClassVar[int] = 0x0D
    TO_GATEWAY: ClassVar[bool] = True
    request_id: int = wire("u32")
    instrument_id: int = wire("u32")


# ----------------------------------------------------------------------------- gateway → client


@dataclass(slots=True)
class LogonAck(Message):
    TYPE: ClassVar[int] = 0x41
    next_seq: int = wire("u64")
    replay_from_seq: int = wire("u64")
    replay_count: int = wire("u32")
    last_cl_ord_no: int = wire("u64")
    heartbeat_ms: int = wire("u32")
    wall_clock_ms: int = wire("u64")
    trading_state: TradingState | int = wire("u8", TradingState)
    resumed: int = wire("u8")


@dataclass(slots=True)
class LogonReject(Message):
    TYPE: ClassVar[int] = 0x42
    code: int = wire("u16")
    text: str = wire("char[64]")


@dataclass(slots=True)
class Ack(Message):
    TYPE: ClassVar[int] = 0x43
    SEQUENCED: ClassVar[bool] = True
    cl_ord_no: int = wire("u64")
    instrument_id: int = wire("u32")
    exchange_order_id: str = wire("char[40]")


@dataclass(slots=True)
class Reject(Message):
    TYPE: ClassVar[int] = 0x44
    SEQUENCED: ClassVar[bool] = True
    cl_ord_no: int = wire("u64")
    code: int = wire("u16")
    source: RejectSource | int = wire("u8", RejectSource)
    retryable: int = wire("u8")
    text: str = wire("char[64]")


@dataclass(slots=True)
class OrderUpdate(Message):
    TYPE: ClassVar[int] = 0x45
    SEQUENCED: ClassVar[bool] = True
    cl_ord_no: int = wire("u64")
    request_id: int = wire("u32")
    instrument_id: int = wire("u32")
    status: OrderStatus | int = wire("u8", OrderStatus)
    side: Side | int = wire("u8", Side)
    ord_type: OrdType | int = wire("u8", OrdType)
    tif: Tif | int = wire("u8", Tif)
    exchange_order_id: str = wire("char[40]")
    price_ticks: int = wire("u64")
    qty_lots: int = wire("u64")
    cum_qty_lots: int = wire("u64")
    leaves_qty_lots: int = wire("u64")
    avg_px_mantissa: int = wire("u64")
    avg_px_exponent: int = wire("i8")
    last_fill_price_ticks: int = wire("u64")
    last_fill_qty_lots: int = wire("u64")
    reason_code: int = wire("u16")

    @property
    def avg_px(self) -> Decimal:
        """Average fill price in quote units (not ticks)."""
        return scaled(self.avg_px_mantissa, self.avg_px_exponent)


@dataclass(slots=True)
class Fill(Message):
    TYPE: ClassVar[int] = 0x46
    SEQUENCED: ClassVar[bool] = True
    cl_ord_no: int = wire("u64")
    instrument_id: int = wire("u32")
    side: Side | int = wire("u8", Side)
    liquidity: Liquidity | int = wire("u8", Liquidity)
    exec_id: str = wire("char[40]")
    price_ticks: int = wire("u64")
    qty_lots: int = wire("u64")
    fee_mantissa: int = wire("i64")
    fee_exponent: int = wire("i8")
    fee_asset: str = wire("char[12]")
    exchange_time_ms: int = wire("u64")

    @property
    def fee(self) -> Decimal:
        """Fee in ``fee_asset`` (negative for a rebate)."""
        return scaled(self.fee_mantissa, self.fee_exponent)


@dataclass(slots=True)
class CancelReject(Message):
    TYPE: ClassVar[int] = 0x47
    SEQUENCED: ClassVar[bool] = True
    cl_ord_no: int = wire("u64")
    reason: CancelRejectReason | int = wire("u8", CancelRejectReason)
    exchange_order_id: str = wire("char[40]")
    text: str = wire("char[64]")


@dataclass(slots=True)
class OutcomeUnknown(Message):
    TYPE: ClassVar[int] = 0x48
    SEQUENCED: ClassVar[bool] = True
    cl_ord_no: int = wire("u64")
    instrument_id: int = wire("u32")
    op: UnknownOp | int = wire("u8", UnknownOp)
    text: str = wire("char[64]")


@dataclass(slots=True)
class BalanceUpdate(Message):
    TYPE: ClassVar[int] = 0x49
    SEQUENCED: ClassVar[bool] = True
    asset: str = wire("char[12]")
    free_mantissa: int = wire("i64")
    locked_mantissa: int = wire("i64")
    exponent: int = wire("i8")

    @property
    def free(self) -> Decimal:
        return scaled(self.free_mantissa, self.exponent)

    @property
    def locked(self) -> Decimal:
        return scaled(self.locked_mantissa, self.exponent)


@dataclass(slots=True)
class PositionUpdate(Message):
    TYPE: ClassVar[int] = 0x4A
    SEQUENCED: ClassVar[bool] = True
    instrument_id: int = wire("u32")
    position_idx: int = wire("u8")
    size_lots: int = wire("i64")
    entry_px_mantissa: int = wire("u64")
    entry_px_exponent: int = wire("i8")
    realised_pnl_mantissa: int = wire("i64")
    pnl_exponent: int = wire("i8")

    @property
    def entry_px(self) -> Decimal:
        return scaled(self.entry_px_mantissa, self.entry_px_exponent)

    @property
    def realised_pnl(self) -> Decimal:
        return scaled(self.realised_pnl_mantissa, self.pnl_exponent)


@dataclass(slots=True)
class TradingStateMsg(Message):
    """The account's trading state (message ``TradingState``, 0x4B)."""

    NAME: ClassVar[str] = "TradingState"
    TYPE: ClassVar[int] = 0x4B
    SEQUENCED: ClassVar[bool] = True
    state: TradingState | int = wire("u8", TradingState)
    instrument_id: int = wire("u32")
    text: str = wire("char[64]")


@dataclass(slots=True)
class Credit(Message):
    TYPE: ClassVar[int] = 0x4C
    SEQUENCED: ClassVar[bool] = True
    bucket: CreditBucket | int = wire("u8", CreditBucket)
    remaining: int = wire("u32")
    capacity: int = wire("u32")
    reset_in_ms: int = wire("u32")


@dataclass(slots=True)
class HeartbeatOut(Message):
    TYPE: ClassVar[int] = 0x4D
    echo: int = wire("u64")


@dataclass(slots=True)
class Error(Message):
    """A protocol or session error (message ``Error``, 0x4E); sequenced once logged on."""

    TYPE: ClassVar[int] = 0x4E
    SEQUENCED: ClassVar[bool] = True
    code: int = wire("u16")
    offending_type: int = wire("u8")
    text: str = wire("char[64]")


@dataclass(slots=True)
class InstrumentRecord:
    """One record of an InstrumentsResponse (PROTOCOL.md §4 InstrumentRecord)."""

    instrument_id: int = wire("u32")
    surface: Surface | int = wire("u8", Surface)
    active: int = wire("u8")
    symbol: str = wire("char[24]")
    venue: str = wire("char[16]")
    tick_size: str = wire("char[24]")
    qty_step: str = wire("char[24]")
    min_qty: str = wire("char[24]")
    max_qty: str = wire("char[24]")
    min_notional: str = wire("char[24]")


@dataclass(slots=True)
class InstrumentsResponse(Message):
    TYPE: ClassVar[int] = 0x4F
    SEQUENCED: ClassVar[bool] = True
    request_id: int = wire("u32")
    more: int = wire("u8")
    count: int = wire("u8")
    instruments: list[InstrumentRecord] = field(default_factory=list)


@dataclass(slots=True)
class QueryEnd(Message):
    TYPE: ClassVar[int] = 0x50
    SEQUENCED: ClassVar[bool] = True
    request_id: int = wire("u32")
    count: int = wire("u32")


@dataclass(slots=True)
class AmendReject(Message):
    TYPE: ClassVar[int] = 0x51
    SEQUENCED: ClassVar[bool] = True
    cl_ord_no: int = wire("u64")
    new_cl_ord_no: int = wire("u64")
    reason: AmendRejectReason | int = wire("u8", AmendRejectReason)
    exchange_order_id: str = wire("char[40]")
    text: str = wire("char[64]")


@dataclass(slots=True)
class TopOfBook(Message):
    """Best bid and ask (unsequenced market data; ``md_seq`` is the instrument's own sequence)."""

    TYPE: ClassVar[int] = 0x53
    instrument_id: int = wire("u32")
    md_seq: int = wire("u64")
    flags: int = wire("u8")
    bid_price_ticks: int = wire("u64")
    bid_qty_lots: int = wire("u64")
    ask_price_ticks: int = wire("u64")
    ask_qty_lots: int = wire("u64")
    venue_time_ms: int = wire("u64")


@dataclass(slots=True)
class Trade(Message):
    """One public trade print."""

    TYPE: ClassVar[int] = 0x54
    instrument_id: int = wire("u32")
    md_seq: int = wire("u64")
    flags: int = wire("u8")
    price_ticks: int = wire("u64")
    qty_lots: int = wire("u64")
    aggressor: Aggressor | int = wire("u8", Aggressor)
    venue_time_ms: int = wire("u64")


@dataclass(slots=True)
class Candle(Message):
    """One closed one-minute candle."""

    TYPE: ClassVar[int] = 0x55
    instrument_id: int = wire("u32")
    md_seq: int = wire("u64")
    flags: int = wire("u8")
    start_ms: int = wire("u64")
    open_ticks: int = wire("u64")
    high_ticks: int = wire("u64")
    low_ticks: int = wire("u64")
    close_ticks: int = wire("u64")
    volume_lots: int = wire("u64")
    trades: int = wire("u32")


@dataclass(slots=True)
class MarketDataStatus(Message):
    TYPE: ClassVar[int] = 0x56
    request_id: int = wire("u32")
    instrument_id: int = wire("u32")
    md_seq: int = wire("u64")
    status: MdStatus | int = wire("u8", MdStatus)


@dataclass(slots=True)
class SubscribeReject(Message):
    TYPE: ClassVar[int] = 0x57
    request_id: int = wire("u32")
    instrument_id: int = wire("u32")
    code: int = wire("u16")
    text: str = wire("char[64]")


TO_GATEWAY: tuple[type[Message], ...] = (
    Logon,
    NewOrder,
    Cancel,
    CancelAll,
    Query,
    InstrumentsRequest,
    Heartbeat,
    Logout,
    Kill,
    SetTradingState,
    Amend,
    Subscribe,
    Unsubscribe,
)
FROM_GATEWAY: tuple[type[Message], ...] = (
    LogonAck,
    LogonReject,
    Ack,
    Reject,
    OrderUpdate,
    Fill,
    CancelReject,
    OutcomeUnknown,
    BalanceUpdate,
    PositionUpdate,
    TradingStateMsg,
    Credit,
    HeartbeatOut,
    Error,
    InstrumentsResponse,
    QueryEnd,
    AmendReject,
    TopOfBook,
    Trade,
    Candle,
    MarketDataStatus,
    SubscribeReject,
)
