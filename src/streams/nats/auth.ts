/**
 * How the socket credential `{api_key, expires, signature}` is presented in the NATS CONNECT. The
 * venue does not publish it (docs/venue-api.md §6.5, §11 q9), so it is a knob (`hft.nats.auth`):
 *
 * | mode          | CONNECT fields                                             |
 * |---------------|------------------------------------------------------------|
 * | userPass      | `user` = api_key, `pass` = signature  [assumed default]    |
 * | token         | `auth_token` = signature                                   |
 * | tokenJoined   | `auth_token` = `api_key:expires:signature`                 |
 * | connectFields | extra fields `api_key`, `expires`, `signature` (Bybit-style names) |
 *
 * userPass is the default: NATS CONNECT has exactly one slot for an identity plus a secret, and the
 * credential is exactly an identity (a WebSocket-specific key) plus a server-computed secret.
 */
import type { SocketCredential } from "./credentials.js";

export const NATS_AUTH_MODES = ["userPass", "token", "tokenJoined", "connectFields"] as const;
export type NatsAuthMode = (typeof NATS_AUTH_MODES)[number];

type Mapper = (c: SocketCredential) => Record<string, unknown>;

const MAPPERS: Readonly<Record<NatsAuthMode, Mapper>> = {
  userPass: (c) => ({ user: c.apiKey, pass: c.signature }),
  token: (c) => ({ auth_token: c.signature }),
  tokenJoined: (c) => ({ auth_token: `${c.apiKey}:${c.expires}:${c.signature}` }),
  connectFields: (c) => ({ api_key: c.apiKey, expires: c.expires, signature: c.signature }),
};

/** The CONNECT fields for one credential (merged into the CONNECT by the client's authenticator). */
export function connectFields(mode: NatsAuthMode, c: SocketCredential): Record<string, unknown> {
  return MAPPERS[mode](c);
}
