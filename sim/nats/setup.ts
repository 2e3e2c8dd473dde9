/**
 * Starting the NATS server of the simulator's HFT streams: which backend (`SimNatsMode`), its
 * publisher account, and the simulator's `nats` option for it.
 */
import { randomBytes } from "node:crypto";
import type { NatsBackend, NatsBackendKind, NatsUser } from "./backend.js";
import { type CredentialAuth, NatsEndpoint } from "./endpoint.js";
import { findNatsServer, NatsServer } from "./server.js";
import type { SimNatsOptions } from "./streams.js";

/** `auto`: nats-server when installed, else built-in; `server`: nats-server or fail; `off`: none. */
export type SimNatsMode = "auto" | "builtin" | "server" | "off";

/**
 * Starts a backend with `users` ("nats-server" throws when the binary is missing); `pidFile`: where
 * a nats-server records its pid, and an earlier starter's orphan is looked for (server.ts);
 * `credentialAuth`: how issued socket credentials must appear in the CONNECT (endpoint.ts).
 */
export async function startNatsBackend(
  kind: NatsBackendKind,
  users: NatsUser[],
  pidFile?: string,
  credentialAuth: CredentialAuth = "userPass",
): Promise<NatsBackend> {
  if (kind === "builtin") return NatsEndpoint.start({ users, credentialAuth });
  // nats-server's user list takes user/pass only; the other readings need the built-in endpoint.
  if (credentialAuth !== "userPass")
    throw new Error(`credential mapping ${credentialAuth} needs the built-in NATS endpoint`);
  const bin = findNatsServer();
  if (bin === undefined) throw new Error("nats-server not found (Debian package nats-server)");
  return NatsServer.start({ users, bin, ...(pidFile !== undefined ? { pidFile } : {}) });
}

/** The simulator's `nats` option for a backend: its publisher account, its user authority. */
export function simNatsOptions(
  backend: NatsBackend,
  publisher: { user: string; password: string },
): SimNatsOptions {
  return {
    url: backend.wsUrl,
    ...publisher,
    authority: (users) => backend.setUsers(users),
    // The built-in endpoint takes the simulator's messages in-process.
    ...(backend instanceof NatsEndpoint ? { local: backend } : {}),
  };
}

export interface SimNatsSetup {
  server: NatsBackend;
  /** The simulator's `nats` option (publisher account + user authority). */
  sim: SimNatsOptions;
}

/**
 * For a gateway with the embedded simulator: the NATS server of the HFT streams (`mode`, see
 * SimNatsMode), with a random publisher password; the simulator installs every socket credential it
 * issues as a user, presented in the CONNECT as `credentialAuth` says. Undefined when off. `pidFile`:
 * see NatsServerOptions.pidFile.
 */
export async function startSimNats(
  mode: SimNatsMode,
  pidFile?: string,
  credentialAuth: CredentialAuth = "userPass",
): Promise<SimNatsSetup | undefined> {
  if (mode === "off") return undefined;
  let kind: NatsBackendKind = mode === "server" ? "nats-server" : "builtin";
  // `auto` takes nats-server only for the mapping it can express (user/pass).
  if (mode === "auto" && credentialAuth === "userPass" && findNatsServer() !== undefined)
    kind = "nats-server";
  const publisher = { user: "hftgate-sim", password: randomBytes(18).toString("base64url") };
  const server = await startNatsBackend(kind, [publisher], pidFile, credentialAuth);
  return { server, sim: simNatsOptions(server, publisher) };
}
