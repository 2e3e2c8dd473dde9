"""Enum values on the wire (PROTOCOL.md §5) and the code table (§6)."""

from __future__ import annotations

from enum import IntEnum


class Side(IntEnum):
    BUY = 1
    SELL = 2


class OrdType(IntEnum):
    LIMIT = 1
    MARKET = 2


class Tif(IntEnum):
    GTC = 1
    IOC = 2
    FOK = 3


class CodPolicy(IntEnum):
    NONE = 0
    CANCEL_ON_DISCONNECT = 1


class LogonOptions(IntEnum):
    """NO_PENDING_UPDATES: no OrderUpdate acknowledging the session's own cancel or amend (PendingCancel,
    PendingReplace); the outcome still comes."""

    NONE = 0
    NO_PENDING_UPDATES = 1


class CancelAllScope(IntEnum):
    SESSION = 1
    SESSION_INSTRUMENT = 2
    ACCOUNT = 3


class QueryScope(IntEnum):
    ONE = 1
    ALL_LIVE = 2


class OrderStatus(IntEnum):
    PENDING_NEW = 1
    NEW = 2
    PARTIALLY_FILLED = 3
    FILLED = 4
    PENDING_CANCEL = 5
    CANCELLED = 6
    REJECTED = 7
    EXPIRED = 8
    EXPIRATION_RAISED = 9
    UNKNOWN = 10
    PENDING_REPLACE = 11

    @property
    def final(self) -> bool:
        """True once the order can change no more (leaves 0)."""
        return self in _FINAL


_FINAL: frozenset[OrderStatus] = frozenset({OrderStatus.FILLED, OrderStatus.CANCELLED, OrderStatus.REJECTED, OrderStatus.EXPIRED})


class RejectSource(IntEnum):
    RISK = 1
    THROTTLE = 2
    VENUE = 3
    SESSION = 4
    PROTOCOL = 5
    ENGINE = 6


class CancelRejectReason(IntEnum):
    EXPIRATION_RAISED = 1
    ALREADY_PENDING = 2
    ALREADY_TERMINAL = 3
    UNKNOWN_ORDER = 4
    VENUE_REJECTED = 5
    THROTTLED = 6
    CLOCK_SKEW = 7


class AmendRejectReason(IntEnum):
    UNKNOWN_ORDER = 1
    ALREADY_TERMINAL = 2
    CANCEL_PENDING = 3
    EXPIRATION_RAISED = 4
    AMEND_PENDING = 5
    NOT_WORKING = 6
    QTY_NOT_ABOVE_FILLED = 7
    NOTHING_TO_AMEND = 8
    BAD_NEW_CL_ORD_NO = 9
    RISK = 10
    THROTTLED = 11
    VENUE_REJECTED = 12
    TOO_LATE = 13
    NOT_APPLIED = 14
    RESTARTED = 15
    UNSUPPORTED = 16
    CLOCK_SKEW = 17
    SHUTTING_DOWN = 18


class Liquidity(IntEnum):
    UNKNOWN = 0
    MAKER = 1
    TAKER = 2


class TradingState(IntEnum):
    ACTIVE = 1
    REDUCING = 2
    HALTED = 3


class CreditBucket(IntEnum):
    ACCOUNT = 0
    CREATE = 1
    CANCEL = 2
    QUERY = 3


class UnknownOp(IntEnum):
    NEW_ORDER = 1
    CANCEL = 2


class Surface(IntEnum):
    SPOT = 1
    HFT = 2
    FUTURES = 3


class MdStatus(IntEnum):
    LIVE = 1
    STALE = 2
    UNSUBSCRIBED = 3
    SLOW_CONSUMER = 4


class Aggressor(IntEnum):
    UNKNOWN = 0
    BUY = 1
    SELL = 2


class MdFlags(IntEnum):
    """Bits of ``flags`` in TopOfBook, Trade and Candle."""

    SNAPSHOT = 1
    BUILT = 2
    INCOMPLETE = 4


class AmendFlags(IntEnum):
    """Bits of ``Amend.flags``: which fields are set."""

    PRICE = 1
    QTY = 2


class OrderFlags(IntEnum):
    REDUCE_ONLY = 1
    POST_ONLY = 2


class Code(IntEnum):
    """Reject / Error / LogonReject codes (PROTOCOL.md §6)."""

    MALFORMED = 1
    BAD_LENGTH = 2
    OVERSIZED = 3
    UNKNOWN_TYPE = 4
    UNSUPPORTED_VERSION = 5
    NOT_LOGGED_ON = 6
    ALREADY_LOGGED_ON = 7
    BAD_FIELD = 8
    TEXT_FRAME = 9
    CL_ORD_NO_NOT_INCREASING = 100
    UNKNOWN_INSTRUMENT = 101
    BAD_TOKEN = 102
    SESSION_IN_USE = 103
    RESUME_OUT_OF_RANGE = 104
    UNKNOWN_ORDER = 105
    BAD_QUANTITY = 106
    BAD_PRICE = 107
    INSTRUMENT_INACTIVE = 108
    NOT_ADMIN = 109
    REPLACED = 110
    MARKET_DATA_UNAVAILABLE = 120
    TOO_MANY_SUBSCRIPTIONS = 121
    RISK_LIMIT = 200
    TRADING_HALTED = 201
    REDUCING_ONLY = 202
    QTY_BELOW_MIN = 203
    QTY_ABOVE_MAX = 204
    NOTIONAL_BELOW_MIN = 205
    RATE_LIMITED = 300
    CIRCUIT_OPEN = 301
    VENUE_REJECTED = 400
    INSUFFICIENT_BALANCE = 401
    VENUE_UNAVAILABLE = 402
    CLOCK_SKEW = 404
    INTERNAL = 500
    SHUTTING_DOWN = 501
