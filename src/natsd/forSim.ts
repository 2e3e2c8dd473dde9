/**
 * For venue `sim`: a loopback nats-server for the HFT private streams when the binary is installed
 * (`sim.nats` = auto), with a random publisher password for the simulator; the simulator installs
 * every socket credential it issues as a user. Without the binary the HFT surface is polled.
 */
import { randomBytes } from "node:crypto";
import type { SimNatsOptions } from "../../sim/index.js";
import { findNatsServer, NatsServer } from "./natsServer.js";

export interface SimNatsSetup {
  server: NatsServer;
  /** The simulator's `nats` option (publisher account + user authority). */
  sim: SimNatsOptions;
}

/** Undefined when `mode` is off or no nats-server is installed. */
export async function startSimNats(mode: "auto" | "off"): Promise<SimNatsSetup | undefined> {
  if (mode === "off") return undefined;
  const bin = findNatsServer();
  if (bin === undefined) return undefined;
  const publisher = { user: "hftgate-sim", password: randomBytes(18).toString("base64url") };
  const server = await NatsServer.start({ users: [publisher], bin });
  return {
    server,
    sim: { url: server.wsUrl, ...publisher, authority: (users) => server.setUsers(users) },
  };
}
