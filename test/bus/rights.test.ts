/**
 * The bus rights as documented: nats-server runs with the `authorization` block of docs/bus.md §6
 * exactly as written there (what `hftgate bus users --account A` prints; passwords from the server's
 * environment), and with nothing more the gateway of A starts its drop copy, a strategy trades over
 * the bus and a reader reads the drop copy. A gateway whose user lacks `$JS.API.INFO` keeps trading
 * locally, but its drop copy is an error on /health (degraded) and in /metrics, not only a log line.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { generateKeyHex } from "../../src/auth/keygen.js";
import { authorizationBlock, passwordVar, ROLES, roles, usersFor } from "../../src/bus/permissions.js";
import { readDropCopy } from "../../src/bus/reader.js";
import { type EngineHandle, startEngine } from "../../src/index.js";
import { Side } from "../../src/protocol/schema.js";
import { next, silent, testConfig, until } from "../e2e/harness.js";
import { instId, natsAs, natsMissing, PASS, remoteClient } from "./fixture.js";
import { NatsCluster } from "./natsCluster.js";

const DOC = resolve(import.meta.dirname, "..", "..", "docs", "bus.md");

/** The code block under `<!-- hftgate bus users --account A -->` in docs/bus.md. */
function documentedBlock(): string {
  const m = /<!-- hftgate bus users --account A -->\n```\n([\s\S]*?)```\n/.exec(readFileSync(DOC, "utf8"));
  if (m === null) throw new Error("docs/bus.md: no block after <!-- hftgate bus users --account A -->");
  return m[1]!;
}

describe("documented bus rights", () => {
  it("docs/bus.md §6 holds the generator's block for account A and names every right", () => {
    const block = documentedBlock();
    const users = usersFor({ accounts: ["A"], roles: ROLES, strategyDropCopy: false });
    expect(block).toBe(authorizationBlock(users));
    const doc = readFileSync(DOC, "utf8");
    const sec6 = doc.slice(doc.indexOf("## 6."), doc.indexOf("<!-- hftgate bus users"));
    for (const u of users)
      for (const subj of [...u.permissions.publish.allow, ...u.permissions.subscribe.allow])
        expect(sec6, `${u.user}: ${subj}`).toContain(`\`${subj}\``);
  });
});

describe.skipIf(natsMissing)("a bus with exactly the documented rights", () => {
  let nats: NatsCluster;
  let sim: SimHandle;
  let dir: string;
  let gwA: EngineHandle;
  let gwB: EngineHandle;
  const conns: NatsConnection[] = [];

  beforeAll(async () => {
    // The documented block as written, plus one gateway user of account B without $JS.API.INFO.
    const gwBUser = roles.gateway("B", "gw-B", PASS);
    gwBUser.permissions.publish.allow = gwBUser.permissions.publish.allow.filter((s) => s !== "$JS.API.INFO");
    const block = documentedBlock();
    const extra = JSON.stringify(gwBUser, null, 2).replace(/\n/g, "\n    ");
    const conf = block.replace(/\n {2}\]\n\}\n$/, `,\n    ${extra}\n  ]\n}\n`);
    expect(conf).toContain(block.slice(0, -7)); // A's users untouched
    const env = Object.fromEntries(
      ["gw-A", "strat-A", "reader-A", "admin"].map((u) => [passwordVar(u).slice(1), PASS]),
    );
    nats = await NatsCluster.start(1, conf, env);
    const keys = { A: generateKeyHex(), B: generateKeyHex() };
    sim = await startSimulator({
      apiKeys: [keys.A.apiKey, keys.B.apiKey],
      market: { synthetic: false, tickMs: 0 },
    });
    dir = mkdtempSync(join(tmpdir(), "hftgate-rights-"));
    const gateway = (account: "A" | "B") =>
      startEngine(
        testConfig(
          {
            "venue.kind": "exchange",
            "venue.spotBaseUrl": sim.baseUrl,
            "venue.hftBaseUrl": sim.baseUrl,
            "keys.secretKey": keys[account].secretKey,
            "shutdown.timeoutMs": 500,
            "bus.nats.servers": nats.servers,
            "bus.nats.user": `gw-${account}`,
            "bus.nats.password": PASS,
            "bus.account": account,
            "bus.dropCopy.spoolDir": join(dir, account, "dropcopy"),
          },
          join(dir, account),
        ),
        { logger: silent },
      );
    [gwA, gwB] = await Promise.all([gateway("A"), gateway("B")]);
  }, 60_000);
  afterAll(async () => {
    for (const nc of conns) await nc.close().catch(() => {});
    await gwA?.stop("test");
    await gwB?.stop("test");
    await sim?.stop();
    await nats?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the gateway's drop copy starts, a strategy trades over the bus, a reader reads the drop copy", async () => {
    await until(() => gwA.bus!.dropCopy!.state === "streaming", 10_000, "drop copy of A streaming");
    const strat = await natsAs(nats.servers, "strat-A");
    const reader = await natsAs(nats.servers, "reader-A");
    conns.push(strat, reader);
    const c = remoteClient(strat, "A", "rights-a");
    await c.connect();
    const acked = next(c, "ack");
    const no = c.placeOrder({
      instrumentId: instId(gwA, "linear", "ETHUSDT"),
      side: Side.Buy,
      priceTicks: 300_000,
      qtyLots: 1,
    });
    expect((await acked).clOrdNo).toBe(no);
    const seen: string[] = [];
    const reading = await readDropCopy(reader, {
      account: "A",
      onEvent: (e) => seen.push(`${e.session}:${e.msg.name}`),
    });
    await until(() => seen.includes("rights-a:Ack"), 10_000, "Ack in the drop copy");
    await reading.stop();
    await c.logout();
    const health = (await (await fetch(`${gwA.httpUrl}/health`)).json()) as {
      bus: { up: boolean; error?: string; dropCopy: { state: string } };
    };
    expect(health.bus).toMatchObject({ up: true, dropCopy: { state: "streaming" } });
    expect(health.bus.error).toBeUndefined();
    const page = await (await fetch(`${gwA.httpUrl}/metrics`)).text();
    expect(page).toMatch(/^hftgate_dropcopy_up 1$/m);
    expect(page).toMatch(/^hftgate_dropcopy_error 0$/m);
    expect(page).toMatch(/^hftgate_bus_error 0$/m);
  }, 30_000);

  it("a drop copy that cannot start is an error on /health and in /metrics", async () => {
    expect(gwB.bus!.up).toBe(true);
    await until(() => gwB.bus!.dropCopy!.state === "error", 10_000, "drop copy of B in error");
    const res = await fetch(`${gwB.httpUrl}/health`);
    expect(res.status).toBe(200); // orders are still taken
    const health = (await res.json()) as {
      status: string;
      bus: { error?: string; dropCopy: { state: string; error?: string } };
    };
    expect(health.status).toBe("degraded");
    expect(health.bus.dropCopy.state).toBe("error");
    expect(health.bus.error).toMatch(/^drop copy: /);
    expect(health.bus.dropCopy.error).toBeTruthy();
    const page = await (await fetch(`${gwB.httpUrl}/metrics`)).text();
    expect(page).toMatch(/^hftgate_dropcopy_error 1$/m);
    expect(page).toMatch(/^hftgate_bus_error 1$/m);
    expect(page).toMatch(/^hftgate_dropcopy_up 0$/m);
    // Local trading goes on meanwhile.
    const local = gwB.client({ sessionName: "local-b" });
    await local.connect();
    const acked = next(local, "ack");
    local.placeOrder({
      instrumentId: instId(gwB, "linear", "ETHUSDT"),
      side: Side.Buy,
      priceTicks: 300_001,
      qtyLots: 1,
    });
    await acked;
    await local.logout();
  }, 30_000);
});
