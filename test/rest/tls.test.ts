/**
 * The venue over TLS, as the real one is (https): the fast path's sockets and undici's connections
 * trust the certificate authorities of `http.caFile` beside Node's own, send the same request and read
 * the same answer; an answer in pieces is read whole on the fast path's TLS socket; without the
 * authority the venue's certificate is refused and nothing is sent. Against a TLS server on 127.0.0.1
 * with a certificate made by openssl for the test (skipped where openssl is missing).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadKeyPair } from "../../src/auth/keys.js";
import { StartupError } from "../../src/engine/startupError.js";
import { readCaFile } from "../../src/engine/startVenue.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import { selfSigned } from "../selfSigned.js";
import { hftCreate as create, eachRequest, sendOnce as send } from "./helpers.js";

const keys = loadKeyPair("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
const dir = mkdtempSync(join(tmpdir(), "hftgate-rest-tls-"));

const files = selfSigned(dir, "127.0.0.1", "venue");
const pair = files && { cert: readFileSync(files.cert, "utf8"), key: readFileSync(files.key, "utf8") };
const answerFor = (link: string) =>
  `{"retCode":0,"retMsg":"OK","result":{"orderId":"id-${link}","orderLinkId":"${link}"},"retExtInfo":{},"time":1}`;
const http200 = (body: string) =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** Every request's bytes, in arrival order. */
const requests: string[] = [];
/** Answer the next order request in pieces, a turn apart. */
let inPieces = false;

function onConnection(sock: Socket): void {
  eachRequest(sock, (req) => {
    if (req.startsWith("GET ")) {
      sock.write(http200('{"serverTime":1}'));
      return;
    }
    requests.push(req);
    const raw = http200(answerFor(/"orderLinkId":"([^"]+)"/.exec(req)?.[1] ?? "?"));
    if (!inPieces) {
      sock.write(raw);
      return;
    }
    inPieces = false;
    const cuts = [0, 17, 60, raw.length - 40, raw.length - 7, raw.length];
    for (let i = 1; i < cuts.length; i++) {
      const piece = raw.slice(cuts[i - 1], cuts[i]);
      setTimeout(() => sock.write(piece), 15 * (i - 1));
    }
  });
}

let server: Server;
let base = "";
const stacks: RestStack[] = [];

/** A started stack, and how many of its connections (undici's pre-warmed, the fast path's) failed. */
async function stack(fastPath: boolean, ca: string | undefined): Promise<{ s: RestStack; failed: number }> {
  const s = createRestStack({
    keys,
    spotBaseUrl: base,
    hftBaseUrl: base,
    http: { connections: 2, keepWarmMs: 0, fastPath, connectTimeoutMs: 1_000, ca },
    presign: false,
    clock: false,
  });
  stacks.push(s);
  // No clock and no pre-signer here: the stack's start is the client's, which counts what failed.
  return { s, failed: await s.client.start() };
}

/** The request without the signature and epoch headers (they differ between two sends). */
const unsigned = (r: string) =>
  r
    .split("\r\n")
    .filter((l) => !/^x-auth-(signature|epoch):/i.test(l))
    .join("\r\n");

describe.skipIf(pair === undefined)("the venue over TLS", () => {
  beforeAll(async () => {
    server = createServer({ key: pair!.key, cert: pair!.cert }, onConnection);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    base = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await Promise.all(stacks.map((s) => s.stop()));
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("with http.caFile's authority, the fast path and undici send the same create and read the same answer", async () => {
    const { s: fast, failed: f1 } = await stack(true, pair!.cert);
    const { s: general, failed: f2 } = await stack(false, pair!.cert);
    // Every connection made it through TLS: undici's two and, on the first, the fast path's two.
    expect([f1, f2]).toEqual([0, 0]);
    const n = requests.length;
    const a = await send(fast, create(fast, "tls-1"));
    const b = await send(general, create(general, "tls-1"));
    expect(a).toEqual({ ok: true, value: { orderId: "id-tls-1", orderLinkId: "tls-1" } });
    expect(b).toEqual(a);
    expect(requests.length - n).toBe(2);
    expect(unsigned(requests[n]!)).toBe(unsigned(requests[n + 1]!));
  });

  it("an answer in pieces is read whole on the fast path's TLS socket", async () => {
    const { s: fast, failed } = await stack(true, pair!.cert);
    expect(failed).toBe(0);
    inPieces = true;
    const a = await send(fast, create(fast, "tls-pieces"));
    expect(inPieces).toBe(false);
    expect(a).toEqual({ ok: true, value: { orderId: "id-tls-pieces", orderLinkId: "tls-pieces" } });
  });

  it("without the authority the venue's certificate is refused: nothing reaches it", async () => {
    const n = requests.length;
    for (const fastPath of [true, false]) {
      const { s, failed } = await stack(fastPath, undefined);
      expect(failed).toBe(fastPath ? 4 : 2);
      const a = await send(s, create(s, `untrusted-${fastPath}`));
      expect(a.ok).toBe(false);
    }
    expect(requests.length).toBe(n);
  });
});

describe("http.caFile at start", () => {
  it("empty: Node's own authorities only", () => {
    expect(readCaFile("")).toBe("");
  });
  it("a file that cannot be read, or holds no certificate, stops the start with the reason", () => {
    const missing = join(tmpdir(), "hftgate-no-such-ca.pem");
    expect(() => readCaFile(missing)).toThrow(StartupError);
    expect(() => readCaFile(missing)).toThrow(/http\.caFile: cannot read .*ENOENT/);
    const junk = join(mkdtempSync(join(tmpdir(), "hftgate-ca-")), "junk.pem");
    writeFileSync(junk, "not a certificate\n");
    expect(() => readCaFile(junk)).toThrow(/holds no PEM certificate/);
    rmSync(junk);
  });
});
