/**
 * `hftgate`: the gateway engine inside your own process. `startEngine(loadConfig({ overrides }))`
 * starts the venue connection (or the embedded simulator), the engine and the command API;
 * `handle.client({ sessionName })` is a GatewayClient on an in-process link (no socket) with the same
 * API and events as the WebSocket client of `hftgate/client`, which this entry re-exports with the
 * protocol's enums. The NATS bus's users and rights (`usersFor`, `authorizationBlock`: what
 * `hftgate bus users` prints) and the configuration's explanation (`explainConfig`) are here too.
 * Embedded, the engine logs to the logger it is given (`createLogger` makes one with hftgate's secret
 * redaction; default: JSON on stderr) and journals only into the `journal.dir` it is given
 * (src/engine/embedded.ts).
 */

export {
  authorizationBlock,
  type NatsUserEntry,
  type Role,
  roles,
  type UsersRequest,
  usersFor,
} from "./bus/permissions.js";
export * from "./client/index.js";
export {
  type Config,
  ConfigError,
  type Explained,
  explainConfig,
  type LoadOptions,
  loadConfig,
  type ValueSource,
} from "./config/load.js";
export { startEngine } from "./engine/embedded.js";
export type { EngineHandle, StartOptions } from "./engine/engineHandle.js";
export { type InProcessClientOptions, InProcessTransport, inProcessClient } from "./engine/inProcess.js";
export { StartupError } from "./engine/lifecycle.js";
// A minimal FIX 4.4 initiator with the signed Logon (tools and scripts; docs/fix.md).
export { FixInitiator, type InitiatorOptions } from "./fix/initiator.js";
export { logonPayload, signLogon } from "./fix/logonSig.js";
export { createLogger, type LoggerOptions } from "./telemetry/logger.js";
