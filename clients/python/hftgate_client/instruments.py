"""Instruments with exact decimal grids: decimals in, integer ticks and lots on the wire."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from .enums import Surface
from .messages import InstrumentRecord


class OffGridError(ValueError):
    """A price or quantity that is not a whole number of ticks or lots of its instrument."""


def _decimal(value: Decimal | str | int, what: str) -> Decimal:
    if isinstance(value, float):  # binary floats cannot say 0.1 exactly: refuse rather than guess
        raise TypeError(f"{what} must be a Decimal, str or int, not float")
    try:
        d = Decimal(value)
    except (InvalidOperation, TypeError):
        raise ValueError(f"{what} is not a number: {value!r}") from None
    if not d.is_finite():
        raise ValueError(f"{what} is not finite: {value!r}")
    return d


@dataclass(frozen=True, slots=True)
class Instrument:
    """A tradable instrument as the gateway lists it (InstrumentsResponse), with decimal fields parsed."""

    id: int
    surface: Surface | int
    active: bool
    symbol: str
    venue: str
    tick_size: Decimal
    qty_step: Decimal
    min_qty: Decimal
    max_qty: Decimal
    min_notional: Decimal

    @classmethod
    def from_record(cls, r: InstrumentRecord) -> Instrument:
        return cls(
            id=r.instrument_id,
            surface=r.surface,
            active=bool(r.active),
            symbol=r.symbol,
            venue=r.venue,
            tick_size=Decimal(r.tick_size),
            qty_step=Decimal(r.qty_step),
            min_qty=Decimal(r.min_qty or "0"),
            max_qty=Decimal(r.max_qty or "0"),
            min_notional=Decimal(r.min_notional or "0"),
        )

    def to_ticks(self, price: Decimal | str | int) -> int:
        """Price → whole ticks; raises OffGridError when the price is not on the tick grid."""
        return _whole(_decimal(price, "price"), self.tick_size, "price", self.symbol)

    def to_lots(self, qty: Decimal | str | int) -> int:
        """Quantity → whole lots; raises OffGridError when it is not a multiple of the quantity step."""
        return _whole(_decimal(qty, "quantity"), self.qty_step, "quantity", self.symbol)

    def price(self, ticks: int) -> Decimal:
        return ticks * self.tick_size

    def qty(self, lots: int) -> Decimal:
        return lots * self.qty_step


def _whole(value: Decimal, step: Decimal, what: str, symbol: str) -> int:
    if value < 0:
        raise ValueError(f"{what} must not be negative: {value}")
    n, rest = divmod(value, step)
    if rest != 0:
        raise OffGridError(f"{what} {value} is not a multiple of {step} for {symbol}")
    return int(n)
