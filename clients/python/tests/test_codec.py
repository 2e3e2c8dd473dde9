"""The codec against the TypeScript codec's golden bytes, and its refusals of bad frames and fields."""

import json
import os
import struct
import unittest
from dataclasses import asdict, fields
from decimal import Decimal

from hftgate_client import codec
from hftgate_client import messages as m
from hftgate_client.enums import OrderStatus, Side
from hftgate_client.instruments import Instrument, OffGridError

GOLDEN = os.environ.get("HFTGATE_GOLDEN")  # JSON {header, samples, golden} written by the TypeScript side
CLASSES = {codec.name_of(c): c for c in (*m.TO_GATEWAY, *m.FROM_GATEWAY)}


def snake(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        key = "".join("_" + ch.lower() if ch.isupper() else ch for ch in k)
        out[key] = [snake(x) for x in v] if isinstance(v, list) else v
    return out


def plain(msg: object) -> dict:
    """A message as plain numbers and strings (IntEnum values compare equal to their ints)."""
    d = asdict(msg)  # type: ignore[arg-type]
    return {k: ([dict(x) for x in v] if isinstance(v, list) else v) for k, v in d.items()}


@unittest.skipUnless(GOLDEN, "HFTGATE_GOLDEN not set (test/clients/python.test.ts sets it)")
class GoldenTest(unittest.TestCase):
    def test_every_golden_frame_decodes_to_its_sample_and_encodes_back(self) -> None:
        data = json.loads(open(GOLDEN).read())  # type: ignore[arg-type]
        h = data["header"]
        header = codec.Header(0, 0, h["sessionId"], h["seq"], h["recvNs"], h["sendNs"])
        checked = 0
        for name, hexed in data["golden"].items():
            cls = CLASSES.get(name)
            if cls is None:
                continue  # a message added after this client was written
            frame = bytes.fromhex(hexed)
            want = snake(data["samples"][name])
            if cls.TO_GATEWAY:
                msg = codec.decode_c2g(frame)
                self.assertEqual(codec.encode(msg), frame, name)
            else:
                got_header, msg = codec.decode(frame)
                self.assertEqual(
                    (got_header.session_id, got_header.seq, got_header.recv_ns, got_header.send_ns),
                    (header.session_id, header.seq, header.recv_ns, header.send_ns),
                )
                self.assertEqual(got_header.type, cls.TYPE)
                self.assertEqual(codec.encode_g2c(msg, header), frame, name)
            self.assertIsInstance(msg, cls)
            self.assertEqual(plain(msg), want, name)
            checked += 1
        self.assertEqual(checked, len(CLASSES), "every message type this client knows has a golden frame")


class CodecTest(unittest.TestCase):
    def test_new_order_example_of_protocol_md(self) -> None:
        frame = codec.encode(
            m.NewOrder(
                cl_ord_no=5, instrument_id=1, side=Side.BUY, ord_type=1, tif=1, price_ticks=2**40 + 3, qty_lots=7
            )
        )
        self.assertEqual(
            frame.hex(), "01022a000000000005000000000000000100000001010100030000000001000007000000000000000000"
        )

    def test_decoded_enums_are_enum_members_and_unknown_values_stay_numbers(self) -> None:
        u = m.OrderUpdate(cl_ord_no=1, status=OrderStatus.FILLED, side=Side.SELL)
        _, back = codec.decode(codec.encode_g2c(u, codec.Header(0, 0, 1, 2, 3, 4)))
        assert isinstance(back, m.OrderUpdate)
        self.assertIs(back.status, OrderStatus.FILLED)
        self.assertTrue(back.status.final)
        u.status = 77  # a value from a later version
        _, back = codec.decode(codec.encode_g2c(u, codec.Header(0, 0, 1, 2, 3, 4)))
        self.assertEqual(back.status, 77)  # type: ignore[union-attr]

    def test_decimals_from_mantissa_and_exponent(self) -> None:
        f = m.Fill(fee_mantissa=-125, fee_exponent=-4)
        self.assertEqual(f.fee, Decimal("-0.0125"))
        self.assertEqual(m.OrderUpdate(avg_px_mantissa=1_000_005, avg_px_exponent=-1).avg_px, Decimal("100000.5"))

    def test_bad_frames_are_refused_with_their_codes(self) -> None:
        good = codec.encode_g2c(m.QueryEnd(request_id=1, count=2), codec.Header(0, 0, 1, 1, 0, 0))
        cases = {
            "short": (good[:10], 1),
            "length differs": (good + b"\0", 2),
            "version": (b"\x02" + good[1:], 5),
            "unknown type": (good[:1] + b"\x7f" + good[2:], 4),
            "wrong size for its type": (good[:1] + bytes([m.Ack.TYPE]) + good[2:], 1),
        }
        for what, (frame, code) in cases.items():
            with self.assertRaises(codec.ProtocolError, msg=what) as cm:
                codec.decode(frame)
            self.assertEqual(cm.exception.code, code, what)

    def test_bad_fields_are_refused_before_sending(self) -> None:
        for what, msg in {
            "u64 at 2^53": m.NewOrder(cl_ord_no=2**53, qty_lots=1),
            "negative into unsigned": m.NewOrder(cl_ord_no=-1),
            "u8 overflow": m.NewOrder(side=256),
            "text too long": m.Cancel(exchange_order_id="x" * 41),
        }.items():
            with self.assertRaises(codec.ProtocolError, msg=what) as cm:
                codec.encode(msg)
            self.assertEqual(cm.exception.code, 8, what)

    def test_the_token_is_never_printed(self) -> None:
        self.assertNotIn("s3cret", repr(m.Logon(token="s3cret-token", session_name="a")))

    def test_client_frames_have_the_sizes_of_their_layouts(self) -> None:
        for cls in m.TO_GATEWAY:
            frame = codec.encode(cls())
            self.assertEqual(len(frame), codec.frame_size(cls))
            self.assertEqual(struct.unpack_from("<H", frame, 2)[0], len(frame))
            self.assertEqual(type(codec.decode_c2g(frame)), cls)


class InstrumentTest(unittest.TestCase):
    inst = Instrument(
        1, 2, True, "BTCUSDT", "linear", Decimal("0.1"), Decimal("0.001"), Decimal("0.001"), Decimal(100), Decimal(5)
    )

    def test_exact_decimal_grid(self) -> None:
        self.assertEqual(self.inst.to_ticks("64000.1"), 640001)
        self.assertEqual(self.inst.to_ticks(Decimal("0.3")), 3)  # 0.1 + 0.2 would not be, in binary floats
        self.assertEqual(self.inst.to_lots("0.005"), 5)
        self.assertEqual(self.inst.price(640001), Decimal("64000.1"))
        self.assertEqual(self.inst.qty(5), Decimal("0.005"))

    def test_off_grid_and_floats_are_refused(self) -> None:
        with self.assertRaises(OffGridError):
            self.inst.to_ticks("64000.05")
        with self.assertRaises(OffGridError):
            self.inst.to_lots("0.0015")
        with self.assertRaises(TypeError):
            self.inst.to_ticks(64000.1)  # type: ignore[arg-type]
        with self.assertRaises(ValueError):
            self.inst.to_lots("-1")
        with self.assertRaises(ValueError):
            self.inst.to_lots("NaN")

    def test_dataclass_fields_are_typed(self) -> None:
        self.assertEqual([f.name for f in fields(m.Ack)], ["cl_ord_no", "instrument_id", "exchange_order_id"])


if __name__ == "__main__":
    unittest.main()
