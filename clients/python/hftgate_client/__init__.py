"""hftgate client for Python strategies: asyncio, typed messages, decimals in, ticks and lots on the wire.

    client = GatewayClient("ws://127.0.0.1:7700", token, "my-strategy")
    await client.connect()
    await client.instruments()
    btc = client.instrument("BTCUSDT")
    cl = await client.place_order(btc, Side.BUY, "0.005", "60000.0")
    ack = await client.wait_for("ack", lambda a, h: a.cl_ord_no == cl)
"""

from . import messages
from .client import (
    EVENTS,
    GatewayClient,
    LogonRejectedError,
    NotConnectedError,
    OrderState,
    OrderTrace,
    SubscribeRejectedError,
)
from .codec import Header, ProtocolError, decode, encode
from .enums import (
    Aggressor,
    AmendFlags,
    AmendRejectReason,
    CancelAllScope,
    CancelRejectReason,
    Code,
    CodPolicy,
    CreditBucket,
    Liquidity,
    LogonOptions,
    MdFlags,
    MdStatus,
    OrderFlags,
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
from .instruments import Instrument, OffGridError

__version__ = "0.1.0"

__all__ = [
    "EVENTS",
    "Aggressor",
    "AmendFlags",
    "AmendRejectReason",
    "CancelAllScope",
    "CancelRejectReason",
    "Code",
    "CodPolicy",
    "CreditBucket",
    "GatewayClient",
    "Header",
    "Instrument",
    "Liquidity",
    "LogonOptions",
    "LogonRejectedError",
    "MdFlags",
    "MdStatus",
    "NotConnectedError",
    "OffGridError",
    "OrdType",
    "OrderFlags",
    "OrderStatus",
    "OrderState",
    "OrderTrace",
    "ProtocolError",
    "QueryScope",
    "RejectSource",
    "Side",
    "SubscribeRejectedError",
    "Surface",
    "Tif",
    "TradingState",
    "UnknownOp",
    "decode",
    "encode",
    "messages",
]
