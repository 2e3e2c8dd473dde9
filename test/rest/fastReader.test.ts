/**
 * The fast path's response reader over whole answers and over every two-piece cut of them: status,
 * framing (Content-Length, chunked, until close), Connection, Retry-After and the body, whatever the
 * header names' case or the order of the headers; malformed heads refused.
 */
import { describe, expect, it } from "vitest";
import { DONE, MALFORMED, NEED_MORE, ResponseReader } from "../../src/rest/fast/reader.js";

interface Expect {
  status: number;
  body: string;
  close: boolean;
  retryAfter?: string;
  /** The body ends with the connection (no length, not chunked). */
  untilClose?: boolean;
}

const ANSWERS: [string, string, Expect][] = [
  [
    "content-length",
    'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 17\r\nconnection: keep-alive\r\n\r\n{"retCode":0,"a"}',
    { status: 200, body: '{"retCode":0,"a"}', close: false },
  ],
  [
    "names in other cases, a value with colons, Retry-After",
    "HTTP/1.1 429 Too Many Requests\r\nDate: Fri, 27 Nov 2026 13:00:00 GMT\r\nRetry-After: 2\r\nCONTENT-LENGTH: 2\r\nX-Note: a:b:c\r\n\r\n{}",
    { status: 429, body: "{}", close: false, retryAfter: "2" },
  ],
  [
    "connection close",
    "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 5\r\n\r\nbusy!",
    { status: 503, body: "busy!", close: true },
  ],
  ["HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabc", { status: 200, body: "abc", close: true }],
  [
    "chunked",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n",
    { status: 200, body: "Wikipedia", close: false },
  ],
  ["204, no body", "HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n", { status: 204, body: "", close: false }],
  [
    "no reason phrase, the same length twice",
    "HTTP/1.1 200\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\n{}",
    { status: 200, body: "{}", close: false },
  ],
  [
    "no length: until close",
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nto the end",
    { status: 200, body: "to the end", close: true, untilClose: true },
  ],
];

/** Feeds `pieces` to a fresh reader (each piece a buffer of its own, as reads are) and reports. */
function read(pieces: string[]): { r: ResponseReader; result: number } {
  const r = new ResponseReader();
  r.reset();
  let result = NEED_MORE;
  for (const p of pieces) {
    result = r.feed(Buffer.from(p, "latin1"));
    if (result !== NEED_MORE) break;
    r.own();
  }
  if (result === NEED_MORE) result = r.end();
  return { r, result };
}

describe("the fast path's response reader", () => {
  for (const [name, text, want] of ANSWERS) {
    it(`${name}: whole, and cut in two at every byte`, () => {
      for (let cut = 0; cut <= text.length; cut++) {
        const pieces = cut === 0 || cut === text.length ? [text] : [text.slice(0, cut), text.slice(cut)];
        const { r, result } = read(pieces);
        const at = `${name}, cut at ${cut}`;
        expect(result, at).toBe(DONE);
        expect(r.status, at).toBe(want.status);
        expect(r.close, at).toBe(want.close);
        expect(r.retryAfter, at).toBe(want.retryAfter);
        expect(r.body().toString("latin1"), at).toBe(want.body);
      }
    });
  }

  it("a status outside 200–599, a status that is not three digits, a line that is not HTTP/1.x, a negative length, lengths that disagree: refused", () => {
    for (const bad of [
      "HTTP/1.1 100 Continue\r\n\r\n",
      "HTTP/1.1 600 Odd\r\n\r\n",
      "HTTP/1.1 2x0 OK\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
      // Digits only: "1:0" would read as 200 by its byte values.
      "HTTP/1.1 1:0 OK\r\n\r\n",
      "HTTP/1.1 2000 OK\r\n\r\n",
      // Not an HTTP/1.x status line.
      "HXXX/1.1 200 OK\r\n\r\n",
      "HTTP/2.0 200 OK\r\n\r\n",
      "HTTP/1.1_200 OK\r\n\r\n",
      // Two lengths that disagree: where the answer ends is unknown.
      "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 2\r\n\r\n{}",
    ]) {
      expect(read([bad]).result, bad).toBe(MALFORMED);
    }
  });

  it("bytes beyond the announced length are refused (no request was behind them)", () => {
    expect(read(["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}x"]).result).toBe(MALFORMED);
  });

  it("a head without its end waits for more, up to the size limit", () => {
    const r = new ResponseReader();
    r.reset();
    expect(r.feed(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", "latin1"))).toBe(NEED_MORE);
    r.own();
    expect(r.feed(Buffer.from("\r\n{}", "latin1"))).toBe(DONE);
    const big = new ResponseReader();
    big.reset();
    expect(big.feed(Buffer.from(`HTTP/1.1 200 OK\r\nX: ${"a".repeat(17_000)}`, "latin1"))).toBe(MALFORMED);
  });
});
