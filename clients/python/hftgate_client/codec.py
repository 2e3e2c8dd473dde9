"""Encode and decode frames (PROTOCOL.md §1–§4), compiled once from the dataclasses in ``messages``."""

from __future__ import annotations

import struct
from dataclasses import dataclass, fields
from typing import Any

from . import messages as m

PROTOCOL_VERSION = 1
WS_PATH = "/v1/ws"
MAX_SAFE = 2**53  # every u64/i64 on the wire stays below this (JavaScript numbers hold it exactly)

C2G_HEADER = struct.Struct("<BBHI")  # version, type, length, reserved
G2C_HEADER = struct.Struct("<BBHIQQQ")  # version, type, length, sessionId, seq, recvNs, sendNs

_STRUCT_CODES = {"u8": "B", "i8": "b", "u16": "H", "u32": "I", "u64": "Q", "i64": "q"}


class ProtocolError(ValueError):
    """A frame or a field that does not fit the protocol; ``code`` is the PROTOCOL.md §6 code."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(f"{text} (code {code})")
        self.code = code


@dataclass(frozen=True, slots=True)
class Header:
    """The gateway → client header. Timestamps are the gateway host's monotonic clock in ns."""

    type: int
    length: int
    session_id: int
    seq: int
    recv_ns: int
    send_ns: int


def name_of(cls: type) -> str:
    """The protocol's name of a message class."""
    return getattr(cls, "NAME", "") or cls.__name__


class _Layout:
    """One struct per message body; which fields are text and which enum each field belongs to."""

    __slots__ = ("cls", "names", "struct", "texts", "enums", "sizes")

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.names: list[str] = []
        self.texts: list[int] = []
        self.sizes: dict[int, int] = {}
        self.enums: dict[int, Any] = {}
        fmt = "<"
        for f in fields(cls):
            kind = f.metadata.get("wire")
            if kind is None:
                continue
            i = len(self.names)
            self.names.append(f.name)
            if kind.startswith("char["):
                n = int(kind[5:-1])
                fmt += f"{n}s"
                self.texts.append(i)
                self.sizes[i] = n
            else:
                fmt += _STRUCT_CODES[kind]
            if f.metadata.get("enum") is not None:
                self.enums[i] = f.metadata["enum"]
        self.struct = struct.Struct(fmt)

    def pack(self, msg: Any) -> bytes:
        values = [getattr(msg, n) for n in self.names]
        for i in self.texts:
            raw = values[i].encode()
            if len(raw) > self.sizes[i]:
                raise ProtocolError(8, f"{self.names[i]} longer than {self.sizes[i]} bytes")
            values[i] = raw
        for i, v in enumerate(values):
            if isinstance(v, int) and not -MAX_SAFE < v < MAX_SAFE:
                raise ProtocolError(8, f"{self.names[i]} out of range")
        try:
            return self.struct.pack(*values)
        except struct.error as e:  # negative into unsigned, or too large for the field
            raise ProtocolError(8, f"{name_of(self.cls)}: {e}") from None

    def unpack(self, buf: bytes | memoryview, offset: int) -> dict[str, Any]:
        values = list(self.struct.unpack_from(buf, offset))
        for i in self.texts:
            values[i] = bytes(values[i]).split(b"\0", 1)[0].decode(errors="replace")
        for i, enum in self.enums.items():
            try:
                values[i] = enum(values[i])
            except ValueError:  # a value added in a later version: keep the number
                pass
        return dict(zip(self.names, values))


_LAYOUTS: dict[type, _Layout] = {cls: _Layout(cls) for cls in (*m.TO_GATEWAY, *m.FROM_GATEWAY)}
_RECORD = _Layout(m.InstrumentRecord)
_BY_TYPE: dict[int, type] = {cls.TYPE: cls for cls in m.FROM_GATEWAY}
_C2G_BY_TYPE: dict[int, type] = {cls.TYPE: cls for cls in m.TO_GATEWAY}


def frame_size(cls: type) -> int:
    """Fixed frame size of a message class (header included; InstrumentsResponse without records)."""
    header = C2G_HEADER.size if cls.TO_GATEWAY else G2C_HEADER.size
    return header + _LAYOUTS[cls].struct.size


def encode(msg: m.Message) -> bytes:
    """A client → gateway frame."""
    cls = type(msg)
    if not cls.TO_GATEWAY:
        raise TypeError(f"{name_of(cls)} is not a client → gateway message")
    body = _LAYOUTS[cls].pack(msg)
    return C2G_HEADER.pack(PROTOCOL_VERSION, cls.TYPE, C2G_HEADER.size + len(body), 0) + body


def encode_g2c(msg: m.Message, header: Header) -> bytes:
    """A gateway → client frame (tests and tools: the gateway is the one that sends these)."""
    cls = type(msg)
    body = _LAYOUTS[cls].pack(msg)
    if isinstance(msg, m.InstrumentsResponse):
        body += b"".join(_RECORD.pack(r) for r in msg.instruments)
    size = G2C_HEADER.size + len(body)
    return G2C_HEADER.pack(
        PROTOCOL_VERSION, cls.TYPE, size, header.session_id, header.seq, header.recv_ns, header.send_ns
    ) + body


def _header(frame: bytes | memoryview, header: struct.Struct) -> tuple[Any, ...]:
    """The header's fields, once its size, version and length match the frame (§2)."""
    if len(frame) < header.size:
        raise ProtocolError(1, "frame shorter than the header")
    fields_ = header.unpack_from(frame, 0)
    version, length = fields_[0], fields_[2]
    if version != PROTOCOL_VERSION:
        raise ProtocolError(5, f"unsupported protocol version {version}")
    if length != len(frame):
        raise ProtocolError(2, f"header length {length} differs from frame size {len(frame)}")
    return fields_


def _class_of(type_: int, by_type: dict[int, type]) -> type:
    cls = by_type.get(type_)
    if cls is None:
        raise ProtocolError(4, f"unknown message type 0x{type_:02x}")
    return cls


def decode(frame: bytes | memoryview) -> tuple[Header, m.Message]:
    """A gateway → client frame; raises ProtocolError when it does not match the layout."""
    _, type_, length, session_id, seq, recv_ns, send_ns = _header(frame, G2C_HEADER)
    cls = _class_of(type_, _BY_TYPE)
    layout = _LAYOUTS[cls]
    expected = G2C_HEADER.size + layout.struct.size
    values = None
    if cls is m.InstrumentsResponse:
        if len(frame) >= expected:
            values = layout.unpack(frame, G2C_HEADER.size)
            expected += values["count"] * _RECORD.struct.size
    if len(frame) != expected:
        raise ProtocolError(1, f"{name_of(cls)} must be {expected} bytes, got {len(frame)}")
    if values is None:
        values = layout.unpack(frame, G2C_HEADER.size)
    msg = cls(**values)
    if isinstance(msg, m.InstrumentsResponse):
        base = G2C_HEADER.size + layout.struct.size
        size = _RECORD.struct.size
        msg.instruments = [
            m.InstrumentRecord(**_RECORD.unpack(frame, base + k * size)) for k in range(msg.count)
        ]
    return Header(type_, length, session_id, seq, recv_ns, send_ns), msg


def decode_c2g(frame: bytes | memoryview) -> m.Message:
    """A client → gateway frame (tests and tools)."""
    cls = _class_of(_header(frame, C2G_HEADER)[1], _C2G_BY_TYPE)
    if len(frame) != frame_size(cls):
        raise ProtocolError(1, f"{name_of(cls)} must be {frame_size(cls)} bytes, got {len(frame)}")
    return cls(**_LAYOUTS[cls].unpack(frame, C2G_HEADER.size))
