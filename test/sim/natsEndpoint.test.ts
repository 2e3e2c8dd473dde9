/**
 * The simulator's built-in NATS endpoint against the official client, and the same cases against a
 * real nats-server (when installed) so the endpoint is held to the server's observable behaviour:
 * auth, `*` / `>` subscriptions, UNSUB (with a maximum), permission refusals that keep the connection,
 * headers, the raw protocol split across WebSocket frames (verbose +OK, PING/PONG, MSG), a removed user's
 * connection ended, kill and restart on the same port. Then the built-in endpoint alone under
 * pressure: a consumer that stops reading is cut off as a slow consumer (the others keep their
 * messages), and a stop never waits on a peer (one that never answers the close handshake, one that
 * never sends a request).
 */
import net from "node:net";
import { type NatsConnection, headers as natsHeaders, wsconnect } from "@nats-io/nats-core";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  findNatsServer,
  type NatsBackend,
  type NatsBackendKind,
  NatsEndpoint,
  type NatsUser,
  startNatsBackend,
} from "../../sim/index.js";

const BIN = findNatsServer();
const PUB: NatsUser = { user: "pub", password: "pub-pw-1" };
const LIMITED: NatsUser = {
  user: "limited",
  password: "limited-pw-2",
  permissions: {
    publish: { deny: [">"] },
    subscribe: { allow: ["x.1.>", "x.*.order"] },
  },
};

const wsFactory = async (u: string) => ({
  socket: new WebSocket(u) as unknown as globalThis.WebSocket,
  encrypted: false,
});

let backend: NatsBackend | undefined;
const open: NatsConnection[] = [];

afterEach(async () => {
  for (const nc of open.splice(0)) await nc.close().catch(() => {});
  await backend?.stop();
  backend = undefined;
});

async function client(
  b: NatsBackend,
  u: NatsUser,
  extra: Record<string, unknown> = {},
): Promise<NatsConnection> {
  const nc = await wsconnect({
    servers: b.wsUrl,
    wsFactory,
    user: u.user,
    pass: u.password,
    reconnect: false,
    ...extra,
  } as Parameters<typeof wsconnect>[0]);
  open.push(nc);
  return nc;
}

function collect(nc: NatsConnection, subject: string, out: string[], max?: number): void {
  nc.subscribe(subject, {
    max,
    callback: (err, m) => {
      if (err === null) out.push(`${subject} <- ${m.subject} ${m.string()}`);
      else out.push(`${subject} !! ${err.message}`);
    },
  });
}

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The raw client protocol over one WebSocket, frames sent as given; the server's bytes as text. */
async function raw(b: NatsBackend, frames: string[]): Promise<string> {
  const ws = new WebSocket(b.wsUrl);
  let got = "";
  ws.on("message", (d: Buffer) => {
    got += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  await until(() => got.startsWith("INFO "), 2_000, "INFO");
  for (const f of frames) {
    ws.send(Buffer.from(f));
    await new Promise((r) => setTimeout(r, 20));
  }
  await until(() => got.includes("PONG\r\n") || got.includes("-ERR"), 2_000, "PONG");
  ws.close();
  return got.slice(got.indexOf("\r\n") + 2);
}

const KINDS: Array<[NatsBackendKind, boolean]> = [
  ["builtin", false],
  ["nats-server", BIN === undefined],
];

for (const [kind, skip] of KINDS) {
  describe.skipIf(skip)(`NATS protocol subset: ${kind}`, () => {
    it("refuses a wrong password with an authorization error", async () => {
      backend = await startNatsBackend(kind, [PUB]);
      const err = await client(backend, { user: PUB.user, password: "wrong" }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.name).toBe("AuthorizationError");
      expect(err?.message).toMatch(/authorization violation/i);
    });

    it("delivers by `*` and `>` wildcards, honours UNSUB and an UNSUB maximum", async () => {
      backend = await startNatsBackend(kind, [PUB]);
      const sub = await client(backend, PUB);
      const pub = await client(backend, PUB);
      const got: string[] = [];
      collect(sub, "a.*.c", got);
      collect(sub, "a.>", got);
      collect(sub, "a.b", got);
      collect(sub, "m.n", got, 2);
      await sub.flush();
      for (const s of ["a.b.c", "a.b", "a", "a.x.y.z", "m.n", "m.n", "m.n"]) pub.publish(s, s.toUpperCase());
      await pub.flush();
      await sub.flush();
      expect(got.sort()).toEqual(
        [
          "a.*.c <- a.b.c A.B.C",
          "a.> <- a.b.c A.B.C",
          "a.> <- a.b A.B",
          "a.b <- a.b A.B",
          "a.> <- a.x.y.z A.X.Y.Z",
          "m.n <- m.n M.N",
          "m.n <- m.n M.N",
        ].sort(),
      );
      const s2 = sub.subscribe("u.v");
      const n = { c: 0 };
      void (async () => {
        for await (const _ of s2) n.c++;
      })();
      await sub.flush();
      pub.publish("u.v", "1");
      await pub.flush();
      await sub.flush();
      s2.unsubscribe();
      await sub.flush();
      pub.publish("u.v", "2");
      await pub.flush();
      await sub.flush();
      expect(n.c).toBe(1);
    });

    it("refuses a subscription or publish outside the user's permissions and keeps the connection", async () => {
      backend = await startNatsBackend(kind, [PUB, LIMITED]);
      const nc = await client(backend, LIMITED);
      const pub = await client(backend, PUB);
      const got: string[] = [];
      collect(nc, "x.1.trade", got);
      collect(nc, "x.*.order", got);
      collect(nc, "x.>", got);
      await nc.flush();
      await until(() => got.some((g) => g.includes("!!")), 2_000, "refusal");
      nc.publish("x.1.trade", "mine");
      await nc.flush();
      for (const s of ["x.1.trade", "x.2.order", "x.2.trade"]) pub.publish(s, s);
      await pub.flush();
      await nc.flush();
      expect(nc.isClosed()).toBe(false);
      expect(got.sort()).toEqual([
        "x.*.order <- x.2.order x.2.order",
        "x.1.trade <- x.1.trade x.1.trade",
        'x.> !! Permissions Violation for Subscription to "x.>"',
      ]);
    });

    it("a connection without credentials is the public reader: public subjects only, no publish", async () => {
      backend = await startNatsBackend(kind, [PUB]);
      const anon = await wsconnect({ servers: backend.wsUrl, wsFactory, reconnect: false } as Parameters<
        typeof wsconnect
      >[0]);
      open.push(anon);
      const pub = await client(backend, PUB);
      const got: string[] = [];
      collect(anon, "v1.f.public.>", got);
      collect(anon, "v1.f.ex1.private.subAccountId.*.order", got);
      await anon.flush();
      await until(() => got.some((g) => g.includes("!!")), 2_000, "refusal");
      pub.publish("v1.f.public.futures.ltp.BTC/USDT", "p");
      await pub.flush();
      await anon.flush();
      expect(anon.isClosed()).toBe(false);
      expect(got.sort()).toEqual([
        'v1.f.ex1.private.subAccountId.*.order !! Permissions Violation for Subscription to "v1.f.ex1.private.subAccountId.*.order"',
        "v1.f.public.> <- v1.f.public.futures.ltp.BTC/USDT p",
      ]);
    });

    it("carries headers (HPUB → HMSG)", async () => {
      backend = await startNatsBackend(kind, [PUB]);
      const sub = await client(backend, PUB);
      const pub = await client(backend, PUB);
      const seen: string[] = [];
      sub.subscribe("h.1", {
        callback: (_e, m) => {
          seen.push(`${m.headers?.get("X-Seq")} ${m.string()}`);
        },
      });
      await sub.flush();
      const h = natsHeaders();
      h.set("X-Seq", "42");
      pub.publish("h.1", "body", { headers: h });
      await pub.flush();
      await sub.flush();
      expect(seen).toEqual(["42 body"]);
    });

    it("speaks the raw protocol across split frames: verbose +OK, PONG, MSG", async () => {
      backend = await startNatsBackend(kind, [PUB]);
      const connect = `CONNECT {"verbose":true,"pedantic":false,"user":"pub","pass":"pub-pw-1","protocol":1}\r\n`;
      const out = await raw(backend, [
        connect.slice(0, 17),
        `${connect.slice(17)}SUB r.`,
        "s 7\r\nPUB r.s 5\r\nhel",
        "lo\r\nPI",
        "NG\r\n",
      ]);
      expect(out).toBe("+OK\r\n+OK\r\n+OK\r\nMSG r.s 7 5\r\nhello\r\nPONG\r\n");
    });

    it("ends a connection whose user was removed; the user is refused from then on", async () => {
      backend = await startNatsBackend(kind, [PUB, LIMITED]);
      const nc = await client(backend, LIMITED);
      const other = await client(backend, PUB);
      await backend.setUsers([PUB]);
      await nc.closed();
      expect(nc.isClosed()).toBe(true);
      expect(other.isClosed()).toBe(false);
      await expect(client(backend, LIMITED)).rejects.toThrow(/authorization violation/i);
    });

    it("killed: clients see the close and cannot connect; restarted on the same URL", async () => {
      backend = await startNatsBackend(kind, [PUB]);
      const url = backend.wsUrl;
      const nc = await client(backend, PUB);
      await backend.kill();
      await nc.closed();
      expect(backend.running).toBe(false);
      await expect(client(backend, PUB)).rejects.toThrow();
      await backend.restart();
      expect(backend.wsUrl).toBe(url);
      const again = await client(backend, PUB);
      await again.flush();
    });
  });
}

/** A raw TCP client that completes the WebSocket handshake by hand, then does only what it is told. */
async function rawSocket(
  port: number,
): Promise<{ sock: net.Socket; got: () => string; closed: Promise<void> }> {
  const sock = net.connect(port, "127.0.0.1");
  let got = "";
  sock.on("data", (d: Buffer) => {
    got += d.toString("latin1");
  });
  sock.on("error", () => {});
  const closed = new Promise<void>((resolve) => sock.once("close", () => resolve()));
  await new Promise<void>((resolve) => sock.once("connect", () => resolve()));
  sock.write(
    "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
  );
  await until(() => got.includes("INFO "), 2_000, "handshake and INFO");
  return { sock, got: () => got, closed };
}

/** One masked client frame (binary) carrying `text`. */
function frame(text: string): Buffer {
  const body = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(body.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([0x82, 0x80 | body.length]), mask, masked]);
}

describe("built-in NATS endpoint under pressure", () => {
  it("cuts off a consumer that stops reading (slow consumer) and keeps delivering to the others", async () => {
    const ep = await NatsEndpoint.start({ users: [PUB], maxPendingBytes: 2 * 1024 * 1024 });
    backend = ep;
    const stuck = await rawSocket(ep.wsPort);
    stuck.sock.write(
      frame(`CONNECT {"verbose":false,"user":"pub","pass":"pub-pw-1"}\r\nSUB big.> 1\r\nPING\r\n`),
    );
    await until(() => stuck.got().includes("PONG"), 2_000, "subscribed");
    stuck.sock.pause(); // reads nothing from now on
    const fine = await client(ep, PUB);
    let seen = 0;
    fine.subscribe("big.>", {
      callback: () => {
        seen++;
      },
    });
    await fine.flush();
    const kb = "x".repeat(1024);
    // 16 MiB in all, 64 KiB per turn of the event loop (the reading client keeps up): past the
    // kernel's socket buffers and the 2 MiB limit for the one that does not read.
    for (let i = 0; i < 16 * 1024; i++) {
      ep.publish("big.m", kb);
      if (i % 64 === 63) await new Promise((r) => setImmediate(r));
    }
    await until(() => seen === 16 * 1024, 20_000, "every message to the reading client");
    expect(ep.counters.slowConsumers).toBe(1);
    expect(fine.isClosed()).toBe(false);
    // What it finds once it reads again: the messages it could hold, then nats-server's close.
    stuck.sock.resume();
    await until(() => stuck.got().includes("Slow Consumer (Pending Bytes)"), 10_000, "slow consumer close");
    stuck.sock.destroy();
  }, 60_000);

  it("stops at once, whatever its peers do: no close answer, no request, a slow consumer", async () => {
    const ep = await NatsEndpoint.start({ users: [PUB] });
    // A peer the endpoint closes (a protocol error) that never answers the close handshake.
    const mute = await rawSocket(ep.wsPort);
    mute.sock.write(frame("BOGUS\r\n"));
    await until(() => mute.got().includes("-ERR"), 2_000, "protocol error");
    // A TCP connection that never sends its HTTP request.
    const idle = net.connect(ep.wsPort, "127.0.0.1");
    idle.on("error", () => {});
    const idleClosed = new Promise<void>((resolve) => idle.once("close", () => resolve()));
    await new Promise<void>((resolve) => idle.once("connect", () => resolve()));
    const nc = await client(ep, PUB);
    const t0 = Date.now();
    await ep.stop();
    const ms = Date.now() - t0;
    await Promise.all([mute.closed, idleClosed, nc.closed()]);
    // Not the WebSocket close timeout (30 s) nor the HTTP header timeout (60 s): nothing waited on a peer.
    expect(ms).toBeLessThan(5_000);
    expect(ep.running).toBe(false);
    await expect(client(ep, PUB)).rejects.toThrow();
  }, 20_000);
});
