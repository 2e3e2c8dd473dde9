/**
 * REST suite: signing (native / pure-JS / pre-signed lookup), request assembly, and the create-order
 * round trip through the REST layer (undici, and the fast path's own socket) versus a raw-socket floor
 * and the reference-client pattern (global fetch + sign per call), all in one run, with the main
 * thread's CPU per request of the floor and both REST paths. The trivial server runs in a child process; when
 * `taskset` exists the server and this process are both pinned to vCPU 0 (reported as `placement`).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { sign as nodeSign } from "node:crypto";
import { existsSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { cpus } from "node:os";
import { Client, type Dispatcher, Pool } from "undici";
import { EpochSource } from "../../src/auth/epoch.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { Presigner } from "../../src/auth/presigner.js";
import { RequestSigner } from "../../src/auth/requestSigner.js";
import { nativeSigner, pureJsSigner } from "../../src/auth/signer.js";
import { buildCatalogue } from "../../src/rest/catalogue.js";
import { VenueClient } from "../../src/venue/client.js";
import type { HftCreateParams } from "../../src/venue/hft/create.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import { createRestStack, HOT_PREFIXES } from "../../src/venue/stack.js";
import { threadCpuNs, threadIds } from "../lib/placement.js";
import { newHistogram, ratio, recordNs, summarize, timeSync } from "../lib/stats.js";

export const name = "rest";

const SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const keys = loadKeyPair(SECRET);
const GRID = makeGrid("0.1", "0.001");
const PARAMS: HftCreateParams = {
  category: "linear",
  symbol: "BTCUSDT",
  side: "buy",
  orderType: "limit",
  qty: "0.002",
  price: "64000.1",
  positionIdx: 1,
  timeInForce: "GTC",
  orderLinkId: "bench-0000000001",
};

// The trivial exchange: answers every request with a fixed v5 create ack, keep-alive.
const SERVER_SRC = `
const http = require("node:http");
const body = JSON.stringify({retCode:0,retMsg:"OK",result:{orderId:"7f3c0a52-1e9b-4c1d-9d7e-2b0f6a1c3e44",orderLinkId:"bench-0000000001"},retExtInfo:{},time:1756460699970});
const len = String(Buffer.byteLength(body));
const s = http.createServer((req, res) => {
  req.on("data", () => {});
  req.on("end", () => { res.writeHead(200, {"content-type":"application/json","content-length":len}); res.end(body); });
});
s.keepAliveTimeout = 60000;
s.listen(0, "127.0.0.1", () => process.stdout.write(s.address().port + "\\n"));
`;

function hasTaskset(): boolean {
  return existsSync("/usr/bin/taskset") || existsSync("/bin/taskset");
}

async function startServer(pin: boolean): Promise<{ child: ChildProcess; port: number }> {
  const cmd = pin ? "taskset" : process.execPath;
  const args = pin ? ["-c", "0", process.execPath, "-e", SERVER_SRC] : ["-e", SERVER_SRC];
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) => resolve(Number(String(d).trim())));
    child.once("error", reject);
    child.once("exit", (c) => reject(new Error(`bench server exited (${c})`)));
  });
  return { child, port };
}

/** Raw-socket floor: pre-built request bytes on one keep-alive socket; waits for the whole response. */
async function openFloor(
  port: number,
  request: Buffer,
): Promise<{ once: () => Promise<void>; close: () => void }> {
  const sock: Socket = connect(port, "127.0.0.1");
  sock.setNoDelay(true);
  await new Promise<void>((r) => sock.once("connect", () => r()));
  let expect = 0;
  let got = 0;
  let done: (() => void) | undefined;
  sock.on("data", (d: Buffer) => {
    if (expect === 0) {
      const s = d.toString("latin1");
      const h = s.indexOf("\r\n\r\n");
      const m = /content-length: *(\d+)/i.exec(s);
      expect = h + 4 + Number(m![1]);
    }
    got += d.length;
    if (got >= expect && done !== undefined) {
      got -= expect;
      const f = done;
      done = undefined;
      f();
    }
  });
  return {
    once: () =>
      new Promise<void>((r) => {
        done = r;
        sock.write(request);
      }),
    close: () => sock.destroy(),
  };
}

/** CPU time of this process's main thread in ns (the scheduler's accounting; NaN off Linux). */
const mainThreadNs = (): number => threadCpuNs(process.pid, process.pid);

/** Times `n` calls into `h`; adds the main thread's CPU over them to `cpu.ns` (and `n` to `cpu.n`). */
async function block(
  fn: () => Promise<unknown>,
  n: number,
  h: ReturnType<typeof newHistogram>,
  cpu?: { ns: number; n: number },
) {
  const c0 = cpu === undefined ? 0 : mainThreadNs();
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    recordNs(h, process.hrtime.bigint() - t0);
  }
  if (cpu !== undefined) {
    cpu.ns += mainThreadNs() - c0;
    cpu.n += n;
  }
}

async function timeLoop(fn: () => Promise<unknown>, n: number, warm: number) {
  for (let i = 0; i < warm; i++) await fn();
  const h = newHistogram();
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    recordNs(h, process.hrtime.bigint() - t0);
  }
  return summarize(h);
}

/** Times a sync function in chunks, yielding between chunks so the pre-signer's refill timer can run. */
async function timeChunked(fn: () => unknown, n: number, chunk = 500) {
  // Untimed warm-up, also chunked: the optimising compiler shares the pinned vCPU and must finish first.
  for (let done = 0; done < n; done += chunk) {
    for (let i = 0; i < chunk; i++) fn();
    await sleep(1);
  }
  const h = newHistogram();
  for (let done = 0; done < n; done += chunk) {
    for (let i = 0; i < chunk; i++) {
      const t0 = process.hrtime.bigint();
      fn();
      recordNs(h, process.hrtime.bigint() - t0);
    }
    await sleep(1);
  }
  return summarize(h);
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

export async function run(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const pin = hasTaskset();
  const allCpus = `0-${cpus().length - 1}`;
  if (pin) execFileSync("taskset", ["-a", "-cp", "0", String(process.pid)], { stdio: "ignore" });
  out.placement = pin
    ? "bench process and the trivial server (a child process) pinned to vCPU 0 with taskset"
    : "not pinned (no taskset); server in a child process";
  try {
    // ---- signing ----
    const native = nativeSigner(keys);
    const pure = pureJsSigner(keys);
    let e = 1719905777483;
    const nativeS = timeSync(() => native.signHex(`POST/v5/order/create${e++}`), 20_000, 2_000);
    const pureS = timeSync(() => pure.signHex(`POST/v5/order/create${e++}`), 1_000, 100);
    const fixed = 5_000_000;
    const ring = new Presigner(keys, {
      prefixes: HOT_PREFIXES,
      clockMs: () => fixed,
      horizonMs: 1000,
      refillMs: 60_000,
      batch: 128,
    });
    await ring.start();
    let k = 0;
    const lookupS = timeSync(() => ring.get(0, fixed + (k++ % 1000)), 200_000);
    await ring.stop();
    out.sign = {
      native_inline: nativeS,
      pure_js: pureS,
      presigned_lookup: lookupS,
      pure_vs_native_p50: ratio(pureS.p50_us, nativeS.p50_us),
    };

    // ---- request assembly: validated params -> method, path, headers, body ----
    const epochs = new EpochSource();
    const presigner = new Presigner(keys, {
      prefixes: HOT_PREFIXES,
      clockMs: () => epochs.clockMs(),
      horizonMs: 200,
      refillMs: 20,
    });
    await presigner.start();
    const catalogue = buildCatalogue(presigner.prefixes);
    const hotClient = new VenueClient({
      apiKey: keys.apiKey,
      signer: new RequestSigner(native, epochs, presigner),
      catalogue,
      spotBaseUrl: "http://127.0.0.1:9",
      hftBaseUrl: "http://127.0.0.1:9",
    });
    const coldClient = new VenueClient({
      apiKey: keys.apiKey,
      signer: new RequestSigner(native, new EpochSource()),
      catalogue,
      spotBaseUrl: "http://127.0.0.1:9",
      hftBaseUrl: "http://127.0.0.1:9",
    });
    const h0 = presigner.hits;
    const m0 = presigner.misses;
    const asmPresigned = await timeChunked(() => hotClient.prepareHftCreate(PARAMS, GRID), 100_000);
    const hits = presigner.hits - h0;
    const misses = presigner.misses - m0;
    const asmInline = timeSync(() => coldClient.prepareHftCreate(PARAMS, GRID), 10_000, 1_000);
    const spotParams = {
      symbol: "BTC/INR",
      side: "buy",
      price: "61250.5",
      quantity: "0.0015",
      exchange: "c2c1",
      clientOrderId: "bench-1",
    } as const;
    const spotGrid = makeGrid("0.5", "0.0001");
    const asmSpot = await timeChunked(() => hotClient.prepareSpotCreate(spotParams, spotGrid), 50_000);
    await presigner.stop();
    await hotClient.close();
    await coldClient.close();
    out.assembly = {
      hft_create_presigned: asmPresigned,
      presign_hit_ratio: Math.round((hits / Math.max(1, hits + misses)) * 10_000) / 10_000,
      hft_create_inline_sign: asmInline,
      spot_create_presigned: asmSpot,
      target: "p99 <= 2 us presigned; <= 1000 us in every case",
    };

    // ---- round trip: REST client vs raw-socket floor vs fetch + sign per call ----
    const { child, port } = await startServer(pin);
    try {
      const base = `http://127.0.0.1:${port}`;
      const before = new Set(threadIds());
      const stack = createRestStack({
        keys,
        spotBaseUrl: base,
        hftBaseUrl: base,
        http: { connections: 1, prewarm: 1 },
        presign: { horizonMs: 200, refillMs: 20 },
        clock: false,
      });
      // The same requests on the fast path's own socket (http.fastPath, the gateway's default for
      // order requests): its template write and minimal reader against the floor's bare socket.
      const fastStack = createRestStack({
        keys,
        spotBaseUrl: base,
        hftBaseUrl: base,
        http: { connections: 1, prewarm: 1, fastPath: true },
        presign: { horizonMs: 200, refillMs: 20 },
        clock: false,
      });
      await stack.start();
      await fastStack.start();
      // The pre-sign worker is background work: keep it off the hot vCPU, as a deployment would.
      const moved = pin && cpus().length > 1 ? threadIds().filter((t) => !before.has(t)) : [];
      for (const t of moved) execFileSync("taskset", ["-cp", "1", t], { stdio: "ignore" });
      out.presign_worker_placement =
        moved.length > 0 ? `pre-sign worker threads (${moved.length}) moved to vCPU 1` : "with the bench";
      stack.client.setGrid("hft", "BTCUSDT", GRID);
      fastStack.client.setGrid("hft", "BTCUSDT", GRID);
      const prep = stack.client.prepareHftCreate(PARAMS);
      const hdr = prep.headers;
      let raw = `POST /v5/order/create HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: keep-alive\r\n`;
      for (let i = 0; i < hdr.length; i += 2) raw += `${hdr[i]}: ${hdr[i + 1]}\r\n`;
      raw += `content-length: ${Buffer.byteLength(prep.body!)}\r\n\r\n${prep.body}`;
      const rawBytes = Buffer.from(raw, "latin1");
      const bodyObj = JSON.parse(prep.body!);
      const url = `${base}/v5/order/create`;
      const fetchOnce = async () => {
        const epoch = String(Date.now());
        const sig = nodeSign(null, Buffer.from(`POST/v5/order/create${epoch}`), keys.privateKey).toString(
          "hex",
        );
        const r = await fetch(url, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "X-AUTH-APIKEY": keys.apiKey,
            "X-AUTH-SIGNATURE": sig,
            "X-AUTH-EPOCH": epoch,
          },
          body: JSON.stringify(bodyObj),
        });
        return r.json();
      };
      const clientOnce = () => stack.client.createHftOrder(PARAMS);
      const fastOnce = () => fastStack.client.createHftOrder(PARAMS);
      // undici's two dispatchers with the same request and a do-nothing handler: what the Pool layer
      // costs over a single Client ("undici at its leanest", docs/benchmarks.md).
      const opts: Dispatcher.DispatchOptions = {
        method: "POST",
        path: "/v5/order/create",
        headers: prep.headers,
        body: prep.body,
      };
      const pool = new Pool(base, { connections: 1, pipelining: 1 });
      const one = new Client(base, { pipelining: 1 });
      const via = (d: Dispatcher) => () =>
        new Promise<void>((done, fail) => {
          d.dispatch(opts, {
            onConnect() {},
            onHeaders: () => true,
            onData: () => true,
            onComplete: () => done(),
            onError: fail,
          });
        });
      const poolOnce = via(pool);
      const singleOnce = via(one);
      // Floor and client alternate in blocks on the same server, so drift and noise hit both alike.
      const floor = await openFloor(port, rawBytes);
      for (let i = 0; i < 2_000; i++) await floor.once();
      for (let i = 0; i < 2_000; i++) await clientOnce();
      for (let i = 0; i < 2_000; i++) await fastOnce();
      for (let i = 0; i < 2_000; i++) await poolOnce();
      for (let i = 0; i < 2_000; i++) await singleOnce();
      const hF = newHistogram();
      const hR = newHistogram();
      const hP = newHistogram();
      const hC = newHistogram();
      const hX = newHistogram();
      const cpuF = { ns: 0, n: 0 };
      const cpuR = { ns: 0, n: 0 };
      const cpuX = { ns: 0, n: 0 };
      const h1 = stack.presigner!.hits;
      const m1 = stack.presigner!.misses;
      for (let round = 0; round < 20; round++) {
        await block(floor.once, 1_000, hF, cpuF);
        await block(clientOnce, 1_000, hR, cpuR);
        await block(fastOnce, 1_000, hX, cpuX);
        await block(poolOnce, 1_000, hP);
        await block(singleOnce, 1_000, hC);
      }
      floor.close();
      await Promise.all([pool.close(), one.close()]);
      const rtHits = stack.presigner!.hits - h1;
      const rtMisses = stack.presigner!.misses - m1;
      const fetchS = await timeLoop(fetchOnce, 3_000, 500);
      const floorS = summarize(hF);
      const restS = summarize(hR);
      const fastS = summarize(hX);
      await Promise.all([stack.stop(), fastStack.stop()]);
      const perReq = (c: { ns: number; n: number }) => Math.round(c.ns / c.n / 10) / 100;
      out.round_trip = {
        raw_socket_floor: floorS,
        rest_client_create: restS,
        fetch_sign_per_call: fetchS,
        undici_pool_dispatch: summarize(hP),
        undici_client_dispatch: summarize(hC),
        rest_vs_floor_p50: ratio(restS.p50_us, floorS.p50_us),
        rest_vs_floor_p99: ratio(restS.p99_us, floorS.p99_us),
        fast_path_create: fastS,
        fast_vs_floor_p50: ratio(fastS.p50_us, floorS.p50_us),
        fast_vs_floor_p99: ratio(fastS.p99_us, floorS.p99_us),
        // This process's main thread only (the server is another process, the pre-signer a worker).
        cpu_us_per_request: {
          raw_socket_floor: perReq(cpuF),
          rest_client: perReq(cpuR),
          fast_path: perReq(cpuX),
        },
        fast_vs_floor_cpu: ratio(perReq(cpuX), perReq(cpuF)),
        fetch_vs_floor_p50: ratio(fetchS.p50_us, floorS.p50_us),
        presign_hit_ratio: Math.round((rtHits / Math.max(1, rtHits + rtMisses)) * 10_000) / 10_000,
        connections: 1,
        target: "rest p50 <= 1.7x floor",
      };
    } finally {
      child.kill();
    }
  } finally {
    if (pin) execFileSync("taskset", ["-a", "-cp", allCpus, String(process.pid)], { stdio: "ignore" });
  }
  return out;
}
