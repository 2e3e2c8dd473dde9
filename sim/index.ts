/** The exchange simulator's public surface. */
export type { SimAccount } from "./account.js";
export { publicKeyFromHex } from "./auth.js";
export { type DeepPartial, defaultOptions, resolveOptions, type SimOptions } from "./config.js";
export type { Exchange } from "./exchange.js";
export type { FaultKind, FaultRule, StreamFaults } from "./faults.js";
export { ephemeralLow, freePort } from "./freePort.js";
export { type SimHandle, startSimulator } from "./handle.js";
export { INSTRUMENTS, type SimInstrument } from "./instruments.js";
export type { NatsBackend, NatsBackendKind, NatsUser } from "./nats/backend.js";
export {
  CREDENTIAL_AUTH,
  type CredentialAuth,
  NatsEndpoint,
  type NatsEndpointCounters,
} from "./nats/endpoint.js";
export { findNatsServer, NatsExitError, NatsServer } from "./nats/server.js";
export {
  type SimNatsMode,
  type SimNatsSetup,
  simNatsOptions,
  startNatsBackend,
  startSimNats,
} from "./nats/setup.js";
export {
  type NatsAuthority,
  type NatsGrant,
  type NatsPublisherFaults,
  PRIVATE_PREFIX,
  type SimNatsCounters,
  type SimNatsOptions,
  subAccountIdOf,
} from "./nats/streams.js";
export type { FaultControl, SimControl, SimCounters } from "./simControl.js";
export {
  BALANCE_EVENT,
  BOOK_EVENT,
  CANDLE_EVENT,
  ORDER_EVENT,
  SOCKET_PATH,
  TRADES_EVENT,
} from "./streams.js";
