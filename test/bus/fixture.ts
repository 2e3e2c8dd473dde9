/**
 * Shared pieces of the bus tests: NATS users for accounts A and B, gateways on the bus against one
 * simulator (venue "exchange", one API key per account), NATS connections as a given user.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { findNatsServer, type SimHandle, startSimulator } from "../../sim/index.js";
import { generateKeyHex } from "../../src/auth/keygen.js";
import { inboxOf, type NatsUserEntry, roles } from "../../src/bus/permissions.js";
import { GatewayClient, natsTransport } from "../../src/client/index.js";
import { type EngineHandle, startEngine } from "../../src/index.js";
import { captureLogger, testConfig } from "../e2e/harness.js";
import { NatsCluster } from "./natsCluster.js";

export const natsMissing = findNatsServer() === undefined;
if (natsMissing)
  process.stderr.write(
    "bus tests skipped: no nats-server binary (Debian package nats-server; .ci/run installs it)\n",
  );

export const PASS = "bus-test-password";
export const TOKEN = "test-token-0123456789";

export function users(accounts: readonly string[]): NatsUserEntry[] {
  return [
    ...accounts.map((a) => roles.gateway(a, `gw-${a}`, PASS)),
    ...accounts.map((a) => roles.strategy(a, `strat-${a}`, PASS)),
    ...accounts.map((a) => roles.reader(a, `risk-${a}`, PASS)),
    roles.admin(accounts, "admin", PASS),
  ];
}

export function natsAs(servers: string[], user: string): Promise<NatsConnection> {
  return connect({
    servers,
    user,
    pass: PASS,
    inboxPrefix: inboxOf(user),
    reconnectTimeWait: 100,
    maxReconnectAttempts: -1,
  });
}

export interface BusWorld {
  cluster: NatsCluster;
  sim: SimHandle;
  dir: string;
  keys: Record<string, { secretKey: string; apiKey: string }>;
  /** Starts (or restarts) the gateway of `account` on the bus. */
  gateway(account: string, extra?: Record<string, unknown>): Promise<EngineHandle>;
  /** The gateways' last warnings and errors (for a failed wait's message). */
  warnings(): string[];
  stop(): Promise<void>;
}

export async function busWorld(size: 1 | 3, accounts: readonly string[]): Promise<BusWorld> {
  const cluster = await NatsCluster.start(size, users(accounts));
  const keys = Object.fromEntries(accounts.map((a) => [a, generateKeyHex()]));
  const sim = await startSimulator({
    apiKeys: accounts.map((a) => keys[a]!.apiKey),
    market: { synthetic: false, tickMs: 0 },
  });
  const dir = mkdtempSync(join(tmpdir(), "hftgate-busw-"));
  const handles: EngineHandle[] = [];
  // The gateways' last warnings, kept in memory: shown only when a wait fails.
  const tail = captureLogger("warn", 40);
  return {
    cluster,
    sim,
    dir,
    keys,
    async gateway(account, extra = {}) {
      const adir = join(dir, account);
      const h = await startEngine(
        testConfig(
          {
            "venue.kind": "exchange",
            "venue.spotBaseUrl": sim.baseUrl,
            "venue.hftBaseUrl": sim.baseUrl,
            "keys.secretKey": keys[account]!.secretKey,
            "shutdown.timeoutMs": 500,
            "bus.nats.servers": cluster.servers,
            "bus.nats.user": `gw-${account}`,
            "bus.nats.password": PASS,
            "bus.account": account,
            "bus.dropCopy.replicas": size,
            "bus.dropCopy.spoolDir": join(adir, "dropcopy"),
            ...extra,
          },
          adir,
        ),
        { logger: tail.logger },
      );
      handles.push(h);
      if (!(await h.bus!.whenUp(10_000))) throw new Error(`gateway ${account}: bus not up`);
      return h;
    },
    warnings: () => [...tail.lines],
    async stop() {
      for (const h of handles) await h.stop("test").catch(() => {});
      await sim.stop();
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A strategy client of `account` over the bus. */
export function remoteClient(
  nc: NatsConnection,
  account: string,
  sessionName: string,
  extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {},
): GatewayClient {
  return new GatewayClient({
    transport: natsTransport({ nc, account }),
    token: TOKEN,
    sessionName,
    heartbeatMs: 1000,
    ...extra,
  });
}

/** Instrument id by category and symbol. */
export function instId(h: EngineHandle, venue: string, symbol: string): number {
  const i = h.instruments.all().find((x) => x.venue === venue && x.symbol === symbol);
  if (!i) throw new Error(`no instrument ${venue} ${symbol}`);
  return i.id;
}
