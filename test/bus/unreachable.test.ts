/**
 * A bus whose NATS server never answers: local trading is not its concern, but /health's bus entry
 * names the error once NATS has been unreachable for the configured time, and a stop does not wait
 * for a first connection that never comes.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { Bus } from "../../src/bus/bus.js";
import type { GatewayEngine } from "../../src/gateway/engineApi.js";
import type { Gateway } from "../../src/gateway/gateway.js";

/** A loopback port nothing listens on (taken, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => (a !== null && typeof a === "object" ? resolve(a.port) : reject(new Error("no port"))));
    });
  });
}

const quiet = { info() {}, warn() {}, error() {} };

describe("a bus without a reachable NATS server", () => {
  it("reports bus.error after downErrorMs and stops at once", async () => {
    const bus = new Bus({
      servers: [`127.0.0.1:${await closedPort()}`],
      user: null,
      password: null,
      account: "T",
      sessions: false,
      maxConnections: 1,
      control: false,
      dropCopy: undefined,
      fsync: "none",
      fsyncIntervalMs: 100,
      log: quiet,
      downErrorMs: 150,
    });
    // Nothing of the gateway is touched before a connection is up.
    bus.start({} as Gateway, {} as GatewayEngine);
    expect(bus.health()).toMatchObject({ up: false, dropCopy: { state: "off" } });
    expect(bus.health().error).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    expect(bus.health().error).toMatch(/^NATS not reachable for \d+ s$/);
    // Before, close() awaited the first connection attempt, which never ends: the test would time out.
    await bus.close();
    expect(bus.health().error).toBeUndefined(); // stopped: no longer an error
  });
});
