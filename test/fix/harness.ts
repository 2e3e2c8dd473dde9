/**
 * The FIX tests' rig: the QuickFIX initiator (test/fix/qf/initiator.cpp) compiled once per source
 * hash under the temp dir, driven line by line; and `hftgate start` as a child process with the FIX
 * acceptor on, trading at an in-process simulator over real sockets.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { KeyPair } from "../../src/auth/keys.js";
import { GatewayProcess, ROOT } from "../chaos/harness/child.js";
import { ADMIN_TOKEN, TOKEN } from "../chaos/harness/engineRig.js";
import { freePort } from "../chaos/harness/processRig.js";
import { secretHex } from "../chaos/harness/venue.js";

export const DICTIONARY = join(ROOT, "fix", "FIX44-hftgate.xml");
const SOURCE = join(ROOT, "test", "fix", "qf", "initiator.cpp");

/** Why the QuickFIX tests cannot run here ("" when they can). */
export function quickfixMissing(): string {
  if (spawnSync("g++", ["--version"]).status !== 0) return "g++ is not installed";
  const pc = spawnSync("pkg-config", ["--exists", "quickfix"]);
  if (pc.status !== 0) return "QuickFIX (Debian libquickfix-dev) is not installed";
  if (!existsSync("/usr/include/openssl/evp.h")) return "OpenSSL headers (libssl-dev) are not installed";
  return "";
}

/** The initiator binary, compiled once per source hash (cached in the temp dir). */
export function initiatorBinary(): string {
  const src = readFileSync(SOURCE);
  const hash = createHash("sha256").update(src).digest("hex").slice(0, 16);
  const dir = join(tmpdir(), "hftgate-qf");
  const bin = join(dir, `initiator-${hash}`);
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const flags = spawnSync("pkg-config", ["--cflags", "--libs", "quickfix"], {
    encoding: "utf8",
  }).stdout.trim();
  const tmp = `${bin}.${process.pid}`;
  const r = spawnSync(
    "sh",
    ["-c", `g++ -std=c++14 -O1 -w '${SOURCE}' -o '${tmp}' ${flags} -lcrypto -lpthread`],
    { encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`could not build the QuickFIX initiator:\n${r.stderr}`);
  renameSync(tmp, bin);
  return bin;
}

/** One received message: its fields in order (tag, value), and the raw text (SOH as |). */
export interface QfMsg {
  raw: string;
  fields: [number, string][];
  get(tag: number): string | undefined;
}

function parseRaw(raw: string): QfMsg {
  const fields: [number, string][] = raw
    .split("|")
    .filter((x) => x.includes("="))
    .map((kv) => {
      const i = kv.indexOf("=");
      return [Number(kv.slice(0, i)), kv.slice(i + 1)];
    });
  return { raw, fields, get: (t) => fields.find((f) => f[0] === t)?.[1] };
}

/** A QuickFIX initiator process. */
export class QfClient {
  readonly lines: string[] = [];
  readonly inbox: QfMsg[] = [];
  private readonly child: ChildProcess;
  private readonly waiters: (() => void)[] = [];
  readonly store: string;

  constructor(
    bin: string,
    port: number,
    readonly sender: string,
    seedHex: string,
    opts: { reset?: boolean; store?: string; password?: string } = {},
  ) {
    this.store = opts.store ?? mkdtempSync(join(tmpdir(), `hftgate-qf-${sender}-`));
    const args = ["127.0.0.1", String(port), sender, "HFTGATE", seedHex, DICTIONARY, this.store];
    args.push(opts.reset ? "Y" : "N");
    if (opts.password !== undefined) args.push(opts.password);
    this.child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"] });
    const rl = createInterface({ input: this.child.stdout! });
    rl.on("line", (line) => {
      this.lines.push(line);
      if (line.startsWith("IN ")) this.inbox.push(parseRaw(line.slice(3)));
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr!.on("data", (d: Buffer) => this.lines.push(`STDERR ${d.toString()}`));
  }

  cmd(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }
  start(): void {
    this.cmd("START");
  }
  /** Sends an application message: `35=D|11=...` (`60=now` is filled in). */
  send(fields: string): void {
    this.cmd(`SEND ${fields}`);
  }

  /** Waits until `pred` holds (re-checked on every line). */
  async until<T>(pred: () => T | undefined | false, ms = 5_000, what = "condition"): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = pred();
      if (v) return v;
      if (Date.now() > end)
        throw new Error(
          `${this.sender}: ${what} not seen within ${ms} ms:\n${this.lines.slice(-15).join("\n")}`,
        );
      await new Promise<void>((r) => {
        const t = setTimeout(r, 50);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** The first received message (after `from`) matching all `tags`. */
  find(tags: Record<number, string>, from = 0): QfMsg | undefined {
    return this.inbox.slice(from).find((m) => Object.entries(tags).every(([t, v]) => m.get(Number(t)) === v));
  }
  async expect(tags: Record<number, string>, ms = 5_000, from = 0): Promise<QfMsg> {
    return this.until(() => this.find(tags, from), ms, JSON.stringify(tags));
  }
  get loggedOn(): boolean {
    return this.lines.includes("LOGON");
  }
  /** Validation complaints QuickFIX sent the gateway (Reject 3), if any. */
  rejectsSent(): string[] {
    return this.lines.filter((l) => l.startsWith("OUTADM") && l.includes("|35=3|"));
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.cmd("STOP");
    await new Promise<void>((r) => {
      const t = setTimeout(() => {
        this.child.kill("SIGKILL");
        r();
      }, 3_000);
      this.child.once("exit", () => {
        clearTimeout(t);
        r();
      });
    });
  }
}

/** `hftgate start` with the FIX acceptor, trading at `baseUrl` with the account `keys`. */
export class FixGateway {
  readonly dir = mkdtempSync(join(tmpdir(), "hftgate-fix-"));
  readonly cfgFile = join(this.dir, "config.json");
  gp: GatewayProcess;
  fixPort = 0;

  constructor(
    private readonly baseUrl: string,
    keys: KeyPair,
    private readonly sessions: string[],
    private readonly dropCopy: string[],
  ) {
    this.gp = new GatewayProcess(this.cfgFile, { HFTGATE_SECRET_KEY: secretHex(keys) });
  }

  async start(): Promise<void> {
    if (this.fixPort === 0) {
      this.fixPort = await freePort();
      const cfg = {
        venue: {
          kind: "exchange",
          spotBaseUrl: this.baseUrl,
          hftBaseUrl: this.baseUrl,
          streamUrl: this.baseUrl,
          spotExchanges: ["coinswitchx"],
        },
        gateway: { port: await freePort(), token: TOKEN, adminToken: ADMIN_TOKEN, badTokenDelayMs: 50 },
        journal: { enabled: true, dir: join(this.dir, "journal"), fsync: "interval", fsyncIntervalMs: 100 },
        engine: { stateFile: join(this.dir, "gateway.json") },
        streams: { pollIntervalMs: 100 },
        orders: { unknownQueryIntervalMs: 50 },
        log: { level: "info", pretty: "false" },
        fix: { port: this.fixPort, sessions: this.sessions, dropCopy: this.dropCopy },
      };
      writeFileSync(this.cfgFile, JSON.stringify(cfg));
    }
    await this.gp.start();
  }

  async close(): Promise<void> {
    await this.gp.stop().catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }
}
