"""Every message class of the client against the tables of PROTOCOL.md (the protocol's one spec)."""

import os
import re
import unittest
from dataclasses import fields
from pathlib import Path

from hftgate_client import codec
from hftgate_client import messages as m
from hftgate_client.enums import (
    Aggressor,
    AmendRejectReason,
    CancelAllScope,
    CancelRejectReason,
    Code,
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

SPEC = Path(
    os.environ.get("HFTGATE_PROTOCOL_MD", Path(__file__).resolve().parents[3] / "src/protocol/PROTOCOL.md")
)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def const(name: str) -> str:
    """ClOrdNoNotIncreasing → CL_ORD_NO_NOT_INCREASING."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def sections(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in re.split(r"^### ", text, flags=re.M)[1:]:
        title, _, body = part.partition("\n")
        out[title.strip()] = body
    return out


def rows(body: str) -> list[list[str]]:
    """The rows of the first table in ``body``, without its column titles."""
    table: list[list[str]] = []
    for line in body.splitlines():
        if line.startswith("|"):
            if not set(line) <= set("|- "):
                table.append([c.strip() for c in line.strip("|").split("|")])
        elif table:
            break
    return table[1:]


class SpecTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.sections = sections(SPEC.read_text())

    def check_layout(self, cls: type, title: str, start: int) -> None:
        spec = [r for r in rows(self.sections[title]) if r[3] != "header"]
        ours = [(f.name, f.metadata["wire"]) for f in fields(cls) if "wire" in f.metadata]
        offset = start
        got = []
        for name, kind in ours:
            size = int(kind[5:-1]) if kind.startswith("char") else {"u8": 1, "i8": 1, "u16": 2, "u32": 4}.get(kind, 8)
            got.append([str(offset), str(size), kind, camel(name)])
            offset += size
        want = [[r[0], r[1], r[2], r[3]] for r in spec]
        if cls is m.InstrumentsResponse:
            want = want[:-1]  # the repeated records, checked as InstrumentRecord
        self.assertEqual(got, want, title)

    def test_every_message_matches_its_table(self) -> None:
        for cls in (*m.TO_GATEWAY, *m.FROM_GATEWAY):
            name = codec.name_of(cls)
            title = next(t for t in self.sections if t.startswith(f"{name} ("))
            self.assertEqual(title, f"{name} (0x{cls.TYPE:02x})")
            body = self.sections[title]
            direction = body.strip().splitlines()[0]
            self.assertIn("client → gateway" if cls.TO_GATEWAY else "gateway → client", direction, name)
            self.assertIn("; sequenced;" if cls.SEQUENCED else "; not sequenced;", direction, name)
            size = re.search(r"size (\d+)", body)
            assert size is not None
            self.assertEqual(codec.frame_size(cls), int(size.group(1)), name)
            self.check_layout(cls, title, 8 if cls.TO_GATEWAY else 32)

    def test_instrument_record(self) -> None:
        self.check_layout(m.InstrumentRecord, "InstrumentRecord", 0)

    def test_enums(self) -> None:
        for enum, title in [
            (Side, "Side"),
            (OrdType, "OrdType"),
            (Tif, "Tif"),
            (CodPolicy, "CodPolicy"),
            (LogonOptions, "LogonOptions"),
            (CancelAllScope, "CancelAllScope"),
            (QueryScope, "QueryScope"),
            (OrderStatus, "OrderStatus"),
            (RejectSource, "RejectSource"),
            (CancelRejectReason, "CancelRejectReason"),
            (Liquidity, "Liquidity"),
            (TradingState, "TradingState"),
            (CreditBucket, "CreditBucket"),
            (UnknownOp, "UnknownOp"),
            (Surface, "Surface"),
            (AmendRejectReason, "AmendRejectReason"),
            (MdStatus, "MdStatus"),
            (Aggressor, "Aggressor"),
        ]:
            spec = {const(r[1]): int(r[0]) for r in rows(self.sections[f"enum {title}"])}
            ours = {e.name: e.value for e in enum}
            # A later version may add values the client does not know yet; every value it knows must match.
            self.assertLessEqual(ours.items(), spec.items(), title)
            self.assertGreater(len(ours), 0)

    def test_codes(self) -> None:
        table = rows(self.text_after("## 6. Codes"))
        spec = {const(r[1]): int(r[0]) for r in table if r[0].isdigit()}
        ours = {c.name: c.value for c in Code}
        self.assertLessEqual(ours.items(), spec.items())

    def text_after(self, heading: str) -> str:
        text = SPEC.read_text()
        return text[text.index(heading) :].split("\n## ", 1)[0]


if __name__ == "__main__":
    unittest.main()
