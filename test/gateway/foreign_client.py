"""A minimal hftgate client written from src/protocol/PROTOCOL.md alone (Python stdlib only).

Logs on, lists instruments, places one limit order, prints what came back as JSON. Used by
test/gateway/foreign.test.ts to show that a client in another language can trade through the gateway.
Usage: python3 foreign_client.py PORT TOKEN
"""
import base64
import json
import os
import socket
import struct
import sys

HDR_C2G = "<BBHI"  # version, type, length, reserved
HDR_G2C = "<BBHIQQQ"  # version, type, length, sessionId, seq, recvNs, sendNs


def ws_connect(port):
    s = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(
        (
            "GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(1024)
    assert buf.startswith(b"HTTP/1.1 101"), buf
    return s


def send_frame(s, payload):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x82]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
    s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def recv_exact(s, n):
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            raise EOFError
        out += chunk
    return out


def recv_frame(s):
    b0, b1 = recv_exact(s, 2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", recv_exact(s, 2))[0]
    elif n == 127:
        n = struct.unpack(">Q", recv_exact(s, 8))[0]
    return b0 & 0x0F, recv_exact(s, n)


def msg(mtype, body_fmt, *fields):
    body = struct.pack("<" + body_fmt, *fields)
    return struct.pack(HDR_C2G, 1, mtype, 8 + len(body), 0) + body


def text(b):
    return b.split(b"\0", 1)[0].decode()


def next_message(s):
    while True:
        op, p = recv_frame(s)
        if op == 2:
            h = struct.unpack_from(HDR_G2C, p)
            if h[1] == 0x4D:  # HeartbeatOut: skip
                continue
            return h, p


def main():
    port, token = int(sys.argv[1]), sys.argv[2]
    s = ws_connect(port)
    out = {}
    # Logon 0x01: token char[64], sessionName char[32], heartbeatMs u32, codPolicy u8, resumeFromSeq u64
    send_frame(s, msg(0x01, "64s32sIBQ", token.encode(), b"py-strategy", 5000, 1, 0))
    h, p = next_message(s)
    assert h[1] == 0x41, h
    next_seq, replay_from, replay_count, last_cl, hb, wall, state, resumed = struct.unpack_from("<QQIQIQBB", p, 32)
    out["logon"] = {"sessionId": h[3], "nextSeq": next_seq, "heartbeatMs": hb, "tradingState": state}
    # InstrumentsRequest 0x06: requestId u32 → InstrumentsResponse 0x4F records of 166 bytes
    send_frame(s, msg(0x06, "I", 77))
    h, p = next_message(s)
    assert h[1] == 0x4F, h
    req, more, count = struct.unpack_from("<IBB", p, 32)
    recs = []
    for i in range(count):
        off = 38 + i * 166
        iid, surface, active = struct.unpack_from("<IBB", p, off)
        symbol, venue, tick, step = struct.unpack_from("<24s16s24s24s", p, off + 6)
        recs.append({"id": iid, "symbol": text(symbol), "tickSize": text(tick), "qtyStep": text(step), "active": active})
    out["instruments"] = {"requestId": req, "more": more, "records": recs}
    # NewOrder 0x02: clOrdNo u64, instrumentId u32, side, ordType, tif, positionIdx u8, priceTicks u64, qtyLots u64, flags u16
    send_frame(s, msg(0x02, "QIBBBBQQH", 1, 1, 1, 1, 1, 0, 650001, 12, 0))
    got = []
    for _ in range(2):
        h, p = next_message(s)
        if h[1] == 0x43:
            cl, iid, xid = struct.unpack_from("<QI40s", p, 32)
            got.append({"type": "Ack", "seq": h[4], "clOrdNo": cl, "exchangeOrderId": text(xid), "recvNs": h[5], "sendNs": h[6]})
        elif h[1] == 0x45:
            cl, req, iid, status = struct.unpack_from("<QIIB", p, 32)
            price, qty, cum, leaves = struct.unpack_from("<QQQQ", p, 32 + 8 + 4 + 4 + 4 + 40)
            got.append({"type": "OrderUpdate", "seq": h[4], "status": status, "priceTicks": price, "qtyLots": qty, "leaves": leaves})
        else:
            got.append({"type": hex(h[1])})
    out["order"] = got
    # Logout 0x08
    send_frame(s, msg(0x08, ""))
    op, p = recv_frame(s)
    out["close"] = {"opcode": op, "code": struct.unpack(">H", p[:2])[0] if len(p) >= 2 else None}
    print(json.dumps(out))


main()
