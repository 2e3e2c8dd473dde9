/**
 * The fast HTTP path for order requests (src/rest/fast/): the venue receives the same bytes as from
 * the general (undici) client for every create, cancel and amend of Spot, HFT and Futures; answers
 * the minimal reader does not expect (chunked, a 5xx HTML page, a reset mid-answer, no answer) have
 * the general client's outcome; the sockets are kept warm; a burst wider than the sockets waits in the
 * fast path's FIFO and goes out oldest first. Against a raw TCP server on 127.0.0.1
 * that records every request's bytes and answers as each test asks.
 */
import { createServer, type Server, type Socket } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadKeyPair } from "../../src/auth/keys.js";
import type { AnswerSink, PreparedRequest } from "../../src/rest/client.js";
import { NetworkError, OutcomeUnknownError, ValidationError } from "../../src/rest/errors.js";
import { scanV5Ack } from "../../src/venue/hft/ackText.js";
import { prepareHftAmend } from "../../src/venue/hft/amend.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import { BTC_GRID as BTC, eachRequest, hftCreate, sendOnce as send } from "./helpers.js";

const keys = loadKeyPair("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");

const V5_OK =
  '{"retCode":0,"retMsg":"OK","result":{"orderId":"v5-1","orderLinkId":"link-1"},"retExtInfo":{},"time":1}';
const SPOT_OK =
  '{"data":{"order_id":"s-1","client_order_id":null,"symbol":"BTC/INR","price":2000000,"average_price":0,"orig_qty":0.00005,"executed_qty":0,"status":"OPEN","side":"BUY","type":"LIMIT","exchange":"coinswitchx","order_source":"API_TRADING","created_time":1,"updated_time":1}}';

/** How the server answers the next request: raw bytes, a reset after some bytes, or nothing. */
type Answer = { raw: string } | { resetAfter: string } | { silent: true };
const ok = (body: string): { raw: string } => ({
  raw: `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
});

let server: Server;
let base = "";
/** Every request's bytes, in arrival order. */
const requests: string[] = [];
let nextAnswer: Answer | undefined;
/** Server-side sockets (for the test that closes them all). */
const liveSockets: Socket[] = [];

/** Splits a connection's bytes into requests (Content-Length framing) and answers each. */
function onConnection(sock: Socket, reply: (sock: Socket, req: string) => void = answer): void {
  liveSockets.push(sock);
  eachRequest(sock, (req) => {
    requests.push(req);
    reply(sock, req);
  });
}

function answer(sock: Socket, req: string): void {
  if (req.startsWith("GET ")) {
    const t = '{"serverTime":1}';
    sock.write(`HTTP/1.1 200 OK\r\ncontent-length: ${t.length}\r\n\r\n${t}`);
    return;
  }
  const a = nextAnswer ?? ok(req.includes("/v5/") ? V5_OK : SPOT_OK);
  nextAnswer = undefined;
  if ("raw" in a) sock.write(a.raw);
  else if ("resetAfter" in a) sock.write(a.resetAfter, () => sock.resetAndDestroy());
}

let fast: RestStack;
let general: RestStack;

function stackOf(fastPath: boolean, extra: Record<string, number> = {}, url = base): RestStack {
  return createRestStack({
    keys,
    spotBaseUrl: url,
    hftBaseUrl: url,
    http: { connections: 2, keepWarmMs: 0, fastPath, ...extra },
    presign: false,
    clock: false,
  });
}

/** Listens on a free loopback port; the base URL. */
async function listenLocal(srv: Server): Promise<string> {
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  return `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
}

beforeAll(async () => {
  server = createServer(onConnection);
  base = await listenLocal(server);
  fast = stackOf(true);
  general = stackOf(false);
  await Promise.all([fast.start(), general.start()]);
});

afterAll(async () => {
  await Promise.all([fast.stop(), general.stop()]);
  await new Promise<void>((r) => server.close(() => r()));
});

const SPOT = makeGrid("1", "0.00001");

/** The order requests of every venue, prepared once and sent through both paths. */
const ORDERS: [string, (s: RestStack) => PreparedRequest][] = [
  [
    "Spot create",
    (s) =>
      s.client.prepareSpotCreate(
        {
          symbol: "BTC/INR",
          side: "buy",
          price: "2000000",
          quantity: "0.00005",
          exchange: "coinswitchx",
          clientOrderId: "cl-1",
        },
        SPOT,
      ),
  ],
  ["Spot cancel", (s) => s.client.prepareSpotCancel("s-1")],
  ["HFT create", (s) => hftCreate(s, "link-1")],
  [
    "HFT cancel",
    (s) => s.client.prepareHftCancel({ category: "linear", symbol: "BTCUSDT", orderId: "v5-1" }),
  ],
  [
    "HFT amend",
    (s) =>
      prepareHftAmend(s.client, {
        category: "linear",
        symbol: "BTCUSDT",
        by: "orderId",
        orderId: "v5-1",
        orderLinkId: "link-1",
        qty: "0.006",
        price: "1001.0",
      }),
  ],
  [
    "Futures create",
    (s) =>
      s.client.prepareFuturesCreate(
        {
          symbol: "BTCUSDT",
          side: "sell",
          orderType: "limit",
          quantity: "0.005",
          price: "1000.0",
          timeInForce: "GTC",
          clientOrderId: "fut-1",
        },
        BTC,
      ),
  ],
  ["Futures cancel", (s) => s.client.prepareFuturesCancel("f-1")],
  // Every order body is ASCII; one that is not is framed by its UTF-8 length in bytes all the same.
  ["a body that is not ASCII", (s) => ({ ...hftCreate(s, "link-1"), body: '{"orderLinkId":"é-€-1"}' })],
];

describe("the venue receives the same request", () => {
  it.each(ORDERS)("%s: request line, headers and body as the general client's", async (_name, prep) => {
    // One prepared request (one signature and epoch), sent once on each path.
    const req = prep(fast);
    requests.length = 0;
    const a = await send(fast, req);
    const b = await send(general, req);
    expect(requests).toHaveLength(2);
    const [viaFast, viaGeneral] = requests as [string, string];
    const split = (r: string) => {
      const h = r.indexOf("\r\n\r\n");
      const lines = r.slice(0, h).split("\r\n");
      return { line: lines[0], headers: lines.slice(1), body: r.slice(h + 4) };
    };
    expect(split(viaFast)).toEqual(split(viaGeneral));
    expect(split(viaFast).line).toBe(`${req.endpoint.method} ${req.path} HTTP/1.1`);
    expect(split(viaFast).body).toBe(req.body);
    expect(viaFast).toBe(viaGeneral);
    // And the answer reads the same.
    expect(a).toEqual(b);
    expect(a.ok).toBe(true);
  });
});

describe("answers the minimal reader does not expect", () => {
  const create = () => ORDERS[2]![1](fast);

  it("a chunked 200 is read whole, as by the general client", async () => {
    const chunked = (body: string): Answer => ({
      raw: `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${(10).toString(16)}\r\n${body.slice(0, 10)}\r\n${(body.length - 10).toString(16)}\r\n${body.slice(10)}\r\n0\r\n\r\n`,
    });
    nextAnswer = chunked(V5_OK);
    const a = await send(fast, create());
    nextAnswer = chunked(V5_OK);
    const b = await send(general, create());
    expect(a).toEqual({ ok: true, value: { orderId: "v5-1", orderLinkId: "link-1" } });
    expect(a).toEqual(b);
  });

  it("answers arriving in pieces on two sockets at once are each read whole", async () => {
    // Each answer names the order it answers, and is written in six pieces interleaved with the
    // other socket's: the sockets share one read buffer, so a piece kept from an earlier read must
    // not be overwritten by the next read (the body's four pieces: kept over three later reads).
    const pieces = (link: string): string[] => {
      const body = `{"retCode":0,"retMsg":"OK","result":{"orderId":"id-${link}","orderLinkId":"${link}"},"retExtInfo":{},"time":1}`;
      const raw = ok(body).raw;
      const h = raw.indexOf("\r\n\r\n");
      return [
        raw.slice(0, 20),
        raw.slice(20, h + 4),
        body.slice(0, 30),
        body.slice(30, 50),
        body.slice(50, 70),
        body.slice(70),
      ];
    };
    const waiting: { sock: Socket; parts: string[] }[] = [];
    const split = createServer((sock) =>
      onConnection(sock, (so, req) => {
        if (req.startsWith("GET ")) return answer(so, req);
        waiting.push({ sock: so, parts: pieces(/"orderLinkId":"([^"]+)"/.exec(req)![1]!) });
        if (waiting.length < 2) return;
        // Both requests are in: their pieces go out alternately, a turn apart.
        const pairs = waiting.splice(0);
        let i = 0;
        const step = () => {
          for (const p of pairs) if (i < p.parts.length) p.sock.write(p.parts[i]!);
          if (++i < 6) setTimeout(step, 15);
        };
        step();
      }),
    );
    const s = stackOf(true, {}, await listenLocal(split));
    try {
      await s.start();
      const [a, b] = await Promise.all([send(s, hftCreate(s, "piece-a")), send(s, hftCreate(s, "piece-b"))]);
      expect(a).toEqual({ ok: true, value: { orderId: "id-piece-a", orderLinkId: "piece-a" } });
      expect(b).toEqual({ ok: true, value: { orderId: "id-piece-b", orderLinkId: "piece-b" } });
    } finally {
      await s.stop();
      await new Promise<void>((r) => split.close(() => r()));
    }
  });

  it("a 5xx HTML page is an unknown outcome", async () => {
    const page = "<html><body>502 Bad Gateway</body></html>";
    const ans: Answer = {
      raw: `HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/html\r\ncontent-length: ${page.length}\r\n\r\n${page}`,
    };
    nextAnswer = ans;
    const a = await send(fast, create());
    nextAnswer = ans;
    const b = await send(general, create());
    expect(a.ok).toBe(false);
    expect(a.value).toBeInstanceOf(OutcomeUnknownError);
    expect(b.value).toBeInstanceOf(OutcomeUnknownError);
  });

  it("a v5 error code is the general client's ValidationError", async () => {
    const body = '{"retCode":110007,"retMsg":"insufficient balance","result":{},"retExtInfo":{},"time":1}';
    nextAnswer = ok(body);
    const a = await send(fast, create());
    nextAnswer = ok(body);
    const b = await send(general, create());
    expect(a.value).toBeInstanceOf(ValidationError);
    expect((a.value as ValidationError).message).toBe((b.value as ValidationError).message);
  });

  it("a connection reset mid-answer is an unknown outcome, and the next order still goes out", async () => {
    nextAnswer = { resetAfter: 'HTTP/1.1 200 OK\r\ncontent-length: 200\r\n\r\n{"retCode":0,' };
    const n = requests.length;
    const a = await send(fast, create());
    expect(a.ok).toBe(false);
    expect(a.value).toBeInstanceOf(OutcomeUnknownError);
    // Never re-sent: the venue saw it once.
    expect(requests.length - n).toBe(1);
    const next = await send(fast, create());
    expect(next.ok).toBe(true);
  });

  it("no answer within the timeouts is an unknown outcome, sent once", async () => {
    const s = stackOf(true, { headersTimeoutMs: 150, bodyTimeoutMs: 150 });
    await s.start();
    try {
      nextAnswer = { silent: true };
      const n = requests.length;
      const t0 = Date.now();
      const a = await send(s, create());
      expect(a.value).toBeInstanceOf(OutcomeUnknownError);
      expect((a.value as OutcomeUnknownError).message).toMatch(/UND_ERR_HEADERS_TIMEOUT/);
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(requests.length - n).toBe(1);
    } finally {
      await s.stop();
    }
  });

  it("a body that stops mid-way is an unknown outcome (body timeout)", async () => {
    const s = stackOf(true, { headersTimeoutMs: 150, bodyTimeoutMs: 150 });
    await s.start();
    try {
      nextAnswer = { raw: 'HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"retCode":0' };
      const a = await send(s, create());
      expect(a.value).toBeInstanceOf(OutcomeUnknownError);
      expect((a.value as OutcomeUnknownError).message).toMatch(/UND_ERR_BODY_TIMEOUT/);
    } finally {
      await s.stop();
    }
  });
});

describe("answers handed over in the socket's read callback", () => {
  it("a sink that sends the next order from a parsed Spot answer: every order written once and answered, in turn", async () => {
    // One fast socket: each next order can only go out on the socket whose answer is being delivered.
    const one = stackOf(true, { connections: 1 });
    await one.start();
    try {
      const before = requests.length;
      const got: string[] = [];
      await new Promise<void>((done, fail) => {
        let left = 5;
        const sink: AnswerSink<number> = {
          answered: (n, value) => {
            got.push(`${n}:${(value as { order_id?: string }).order_id ?? "?"}`);
            if (--left === 0) done();
            else one.client.sendTo(one.client.prepareSpotCancel(`s-${n + 1}`), sink, n + 1, 0);
          },
          failed: (_n, err) => fail(err),
        };
        one.client.sendTo(one.client.prepareSpotCancel("s-0"), sink, 0, 0);
      });
      expect(got).toEqual(["0:s-1", "1:s-1", "2:s-1", "3:s-1", "4:s-1"]);
      const mine = requests.slice(before).filter((r) => r.startsWith("DELETE "));
      expect(mine.map((r) => /"order_id":"([^"]+)"/.exec(r)?.[1])).toEqual([
        "s-0",
        "s-1",
        "s-2",
        "s-3",
        "s-4",
      ]);
    } finally {
      await one.stop();
    }
  });
});

describe("connections", () => {
  it("several sockets, one request each: a silent answer holds up only its own socket", async () => {
    const s = stackOf(true, { headersTimeoutMs: 400, bodyTimeoutMs: 400 });
    await s.start();
    try {
      nextAnswer = { silent: true };
      const slow = send(s, ORDERS[2]![1](s));
      // The second socket carries the next orders meanwhile.
      for (let i = 0; i < 3; i++) expect((await send(s, ORDERS[2]![1](s))).ok).toBe(true);
      expect((await slow).value).toBeInstanceOf(OutcomeUnknownError);
    } finally {
      await s.stop();
    }
  });

  it("sockets the venue closed while idle are reopened by keep-warm; an order after that opens none", async () => {
    let opened = 0;
    const closing = createServer((sock) => {
      opened++;
      sock.setTimeout(150, () => sock.destroy());
      onConnection(sock);
    });
    const s = stackOf(true, { keepWarmMs: 40 }, await listenLocal(closing));
    try {
      await s.start();
      await new Promise((r) => setTimeout(r, 500));
      const before = opened;
      const rs = await Promise.all([send(s, ORDERS[2]![1](s)), send(s, ORDERS[2]![1](s))]);
      expect(rs.every((r) => r.ok)).toBe(true);
      expect(opened - before).toBe(0);
    } finally {
      await s.stop();
      await new Promise<void>((r) => closing.close(() => r()));
    }
  });

  it.each([
    ["fast path", true],
    ["general client", false],
  ])(
    "keep-warm leaves a socket that carries orders alone and warms the idle ones (%s)",
    async (_, fastPath) => {
      // Orders every 20 ms for about two seconds, one at a time, with a keep-warm period of 600 ms: a
      // socket that carries them took a request within the last half period at every round, so no GET
      // goes there while they flow; the sockets nothing else uses get theirs each round.
      const events: { sock: number; what: "order" | "get" }[] = [];
      const socks = new Map<Socket, number>();
      const tracking = createServer((sock) => {
        socks.set(sock, socks.size);
        onConnection(sock, (c, req) => {
          events.push({ sock: socks.get(sock)!, what: req.startsWith("GET ") ? "get" : "order" });
          answer(c, req);
        });
      });
      const s = stackOf(fastPath, { keepWarmMs: 600 }, await listenLocal(tracking));
      try {
        await s.start();
        events.length = 0;
        for (let i = 0; i < 90; i++) {
          expect((await send(s, hftCreate(s, `steady-${i}`))).ok).toBe(true);
          await new Promise((r) => setTimeout(r, 20));
        }
        expect(events.filter((e) => e.what === "order").length).toBe(90);
        const carriers = new Set(events.filter((e) => e.what === "order").map((e) => e.sock));
        for (const sock of carriers) {
          const first = events.findIndex((e) => e.sock === sock && e.what === "order");
          const last = events.findLastIndex((e) => e.sock === sock && e.what === "order");
          const between = events.slice(first, last).filter((e) => e.sock === sock && e.what === "get");
          expect(between.length).toBe(0);
        }
        // Two fast sockets and two general ones: those that carried no order are warmed every round
        // (about three here; at least one however late a loaded machine runs the timers).
        const idleGets = events.filter((e) => !carriers.has(e.sock) && e.what === "get").length;
        expect(idleGets).toBeGreaterThanOrEqual(1);
      } finally {
        await s.stop();
        await new Promise<void>((r) => tracking.close(() => r()));
      }
    },
  );

  it("a burst wider than the fast sockets waits in their FIFO: each order written once, in the order sent", async () => {
    // The venue holds every order request 150 ms. Two fast sockets carry eight orders: six wait in
    // the fast path's FIFO and go out oldest first as sockets free up; none goes to the general client
    // (its connections see only the GET sent after the burst, which overtakes the waiting orders: the
    // resolver asks nothing about an order while its request waits, see test/e2e/outstanding.test.ts).
    const arrived: { what: string; sock: number }[] = [];
    const socks = new Map<Socket, number>();
    const slow = createServer((sock) => {
      socks.set(sock, socks.size);
      onConnection(sock, (c, req) => {
        if (req.startsWith("GET ")) {
          arrived.push({ what: "query", sock: socks.get(sock)! });
          answer(c, req);
          return;
        }
        arrived.push({ what: /"orderLinkId":"([^"]+)"/.exec(req)?.[1] ?? "?", sock: socks.get(sock)! });
        setTimeout(() => c.write(ok(V5_OK).raw), 150);
      });
    });
    const s = stackOf(true, {}, await listenLocal(slow));
    try {
      await s.start();
      arrived.length = 0;
      const burst = Array.from({ length: 8 }, (_, i) => send(s, hftCreate(s, `burst-${i}`)));
      const query = s.client.spotTime();
      const rs = await Promise.all(burst);
      await query;
      expect(rs.every((r) => r.ok)).toBe(true);
      const orders = arrived.filter((a) => a.what !== "query");
      // Once each, oldest first, all on the fast path's two sockets.
      expect(orders.map((a) => a.what)).toEqual(Array.from({ length: 8 }, (_, i) => `burst-${i}`));
      const fastSocks = new Set(orders.map((a) => a.sock));
      expect(fastSocks.size).toBe(2);
      const q = arrived.find((a) => a.what === "query")!;
      expect(fastSocks.has(q.sock)).toBe(false);
    } finally {
      await s.stop();
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });

  it("orders waiting in the FIFO when the connections close fail as not sent", async () => {
    const held = createServer((sock) => onConnection(sock, () => {}));
    const s = stackOf(true, { headersTimeoutMs: 300 }, await listenLocal(held));
    await s.start();
    const burst = Array.from({ length: 4 }, () => send(s, ORDERS[2]![1](s)));
    await new Promise((r) => setTimeout(r, 20));
    const stopping = s.stop();
    const rs = await Promise.all(burst);
    await stopping;
    await new Promise<void>((r) => held.close(() => r()));
    // Two written (unknown outcome after the headers timeout), two never written (not sent).
    expect(rs.every((r) => !r.ok)).toBe(true);
    expect(rs.filter((r) => r.value instanceof OutcomeUnknownError)).toHaveLength(2);
    const notSent = rs.filter((r) => r.value instanceof NetworkError);
    expect(notSent.map((r) => (r.value as NetworkError).cause_code)).toEqual([
      "HFTGATE_NOT_SENT",
      "HFTGATE_NOT_SENT",
    ]);
  });

  it("fast sockets that cannot connect at start are counted with the pre-warm failures", async () => {
    // A port nothing listens on: no pre-warm GET (prewarm 0), so every failure counted is a fast socket.
    const gone = createServer();
    const url = await listenLocal(gone);
    await new Promise<void>((r) => gone.close(() => r()));
    const s = stackOf(true, { prewarm: 0, connectTimeoutMs: 500 }, url);
    try {
      expect(await s.client.start()).toBe(2);
    } finally {
      await s.stop();
    }
  });

  it("with no socket open, an order goes out on the general client, once", async () => {
    const s = stackOf(true);
    await s.start();
    try {
      // Every socket of both clients closed by the venue.
      for (const c of liveSockets.splice(0)) c.destroy();
      await new Promise((r) => setTimeout(r, 50));
      const n = requests.length;
      const a = await send(s, ORDERS[2]![1](s));
      expect(a.ok).toBe(true);
      expect(requests.length - n).toBe(1);
    } finally {
      await s.stop();
    }
  });
});

describe("the v5 answer read as bytes", () => {
  const scan = (text: string) => scanV5Ack(Buffer.from(text));

  it("a plain success gives the result; anything else is left to the full parse", () => {
    expect(scan(V5_OK)).toEqual(JSON.parse(V5_OK).result);
    expect(scan('{"retCode":10001,"retMsg":"x","result":{}}')).toBeUndefined();
    expect(scan('{"retCode":0,"result":{"orderId":"a\\"b","orderLinkId":"c"}}')).toBeUndefined();
    expect(scan('{"retCode":0,"result":{"orderId":"a\\u0041","orderLinkId":"c"}}')).toBeUndefined();
    expect(scan('{"retCode":0,"result":{"orderId":"a","orderLinkId":"c","extra":1}}')).toBeUndefined();
    expect(scan('{"result":{"orderId":"a","orderLinkId":"c"},"retCode":0}')).toBeUndefined();
    // An id that is not ASCII: the full parse reads it.
    expect(scan('{"retCode":0,"result":{"orderId":"é","orderLinkId":"c"}}')).toBeUndefined();
    // Elsewhere in the answer non-ASCII bytes change nothing.
    expect(scan('{"retCode":0,"retMsg":"é","result":{"orderId":"a","orderLinkId":"c"}}')).toEqual({
      orderId: "a",
      orderLinkId: "c",
    });
    // Cut short before its result closes, or not ending in a closing brace: not a success (the full
    // parse then finds it malformed).
    const resultEnd = V5_OK.indexOf("}") + 1;
    for (let n = 0; n < resultEnd; n++) expect(scan(V5_OK.slice(0, n))).toBeUndefined();
    expect(scan(V5_OK.slice(0, -1))).toBeUndefined();
    expect(scan(`${V5_OK}\r\n`)).toEqual(JSON.parse(V5_OK).result);
  });

  it("the ids are copied out of the answer's bytes: kept for the order's life, they keep nothing of the read", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    // V8 frees ArrayBuffer memory concurrently after a collection: on a loaded machine the count read
    // at once may still hold freed buffers (one CI run read 9.7 MB), so each reading waits it out.
    const settled = async (): Promise<number> => {
      gc();
      await new Promise((r) => setTimeout(r, 50));
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const pad = "p".repeat(20_000);
    const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    const answer = (i: number) =>
      `{"retCode":0,"retMsg":"OK","result":{"orderId":"${id(i)}","orderLinkId":"c${i}"},"retExtInfo":{},"pad":"${pad}${i}"}`;
    const kept: string[] = [];
    const before = await settled();
    for (let i = 0; i < 2_000; i++) kept.push(scanV5Ack(Buffer.from(answer(i)))!.orderId);
    // 2,000 answers of 20 kB: 40 MB if each id kept its answer's bytes alive.
    expect((await settled()) - before).toBeLessThan(4_000_000);
    expect(kept[1_234]).toBe(id(1_234));
  });
});
