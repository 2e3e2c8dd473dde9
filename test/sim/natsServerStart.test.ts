/**
 * Starting nats-server for the simulator: a server that ends before it is ready (here: its port is
 * taken) is a typed error that carries the server's own last words, not a bare exit code. With ports
 * of its own choosing, a port taken between the probe and the bind is retried on new ports.
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { findNatsServer, NatsExitError, NatsServer } from "../../sim/index.js";

const BIN = findNatsServer();

describe.skipIf(BIN === undefined)("nats-server start", () => {
  it("a fixed port already taken: NatsExitError with the server's reason", async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, "127.0.0.1", () => r()));
    const port = (holder.address() as { port: number }).port;
    try {
      const err = await NatsServer.start({ users: [{ user: "u", password: "p-1" }], port }).then(
        (s) => s.stop().then(() => undefined),
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(NatsExitError);
      expect(String((err as Error).message)).toMatch(/exited \(\d+\) before it was ready: .*\S/);
    } finally {
      await new Promise<void>((r) => holder.close(() => r()));
    }
  });

  it("ports of its own choosing: starts, on two different ports", async () => {
    const s = await NatsServer.start({ users: [{ user: "u", password: "p-1" }] });
    try {
      expect(s.running).toBe(true);
      expect(s.port).not.toBe(s.wsPort);
    } finally {
      await s.stop();
    }
  });
});
