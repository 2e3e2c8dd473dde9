/**
 * The NATS server behind the simulator's HFT streams: a real `nats-server` child process when the
 * binary is installed, else the simulator's built-in endpoint (`endpoint.ts`). Both hold the
 * user list the simulator's issued socket credentials go into, both can be killed and restarted on
 * the same port (chaos tests), and both are reached by clients at `wsUrl`. Starting one: `setup.ts`.
 */
import { randomBytes } from "node:crypto";
/** A NATS user as the server's authorization list holds it. */
export interface NatsUser {
  user: string;
  password: string;
  permissions?: {
    publish?: { allow?: string[]; deny?: string[] };
    subscribe?: { allow?: string[]; deny?: string[] };
  };
}

/**
 * Connections without credentials: may subscribe to the public market data subjects only
 * (docs/venue-api.md §6.4 marks them public), never publish. Its password is never used (a CONNECT without credentials is
 * this user: nats-server's `no_auth_user`, and the built-in endpoint's rule).
 */
export const PUBLIC_READER: NatsUser = {
  user: "public-reader",
  password: randomBytes(18).toString("base64url"),
  permissions: {
    publish: { deny: [">"] },
    subscribe: { allow: ["v1.f.public.>", "v1.f.ex1.public.>", "_INBOX.>"] },
  },
};

export type NatsBackendKind = "nats-server" | "builtin";

export interface NatsBackend {
  readonly kind: NatsBackendKind;
  /** `ws://127.0.0.1:PORT` of the WebSocket listener. */
  readonly wsUrl: string;
  readonly running: boolean;
  /** Replaces the user list; resolves once it is in force (connections of removed users end). */
  setUsers(users: NatsUser[]): Promise<void>;
  /** A crash: connections dropped, nothing listening until `restart()`. */
  kill(): Promise<void>;
  /** Back on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}
