/**
 * The gateway's options, the defaults they resolve to (tokens from the environment when not given),
 * its logger, and the counters it reports (/metrics, tests).
 */
import type { Config } from "../config/load.js";
import type { SessionJournal } from "./durableGate.js";
import type { HttpHooks } from "./engineApi.js";
import type { MarketDataSource } from "./marketData.js";
import type { RestoreResult } from "./restore.js";

export interface GatewayLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * The config's own command API knobs (`gateway.*`, docs/config.md), each optional here: `host`
 * (127.0.0.1), `port` (7700; 0 picks an ephemeral port), `transport` ("auto" uses native
 * uWebSockets.js when it loads, else `ws`), `badTokenDelayMs` (500: slows guessing), `resumeRing`
 * (4096 sequenced frames kept per session for resume), `maxBufferedBytes` (1 MiB unsent per
 * connection, then it is closed as a slow consumer), `sessionRetentionMs` (a disconnected named
 * session kept for resume 24 h) and `maxRetainedSessions` (256; beyond it the longest idle goes).
 */
export type GatewaySection = Partial<
  Pick<
    Config["gateway"],
    | "host"
    | "port"
    | "transport"
    | "badTokenDelayMs"
    | "resumeRing"
    | "maxBufferedBytes"
    | "sessionRetentionMs"
    | "maxRetainedSessions"
  >
>;

/** The market data knobs the command API reads (`marketData.*`): 64 subscriptions, 256 KiB. */
export type MarketDataLimits = Partial<
  Pick<Config["marketData"], "maxSubscriptionsPerSession" | "maxBufferedBytes">
>;

/** The config's sections as they are (`{ ...config.gateway, … }`), plus what is no config knob. */
export interface GatewayConfig extends GatewaySection {
  /** Required logon token; when omitted, the HFTGATE_TOKEN environment variable. */
  token?: string | null;
  /** Token for privileged sessions (SessionInfo.admin = true); HFTGATE_ADMIN_TOKEN when omitted; none if unset. */
  adminToken?: string | null;
  /** Default heartbeat interval when Logon asks for 0; 1000 ms. */
  heartbeatMs?: number;
  /** Intervals without inbound traffic before the connection is dropped; 3. */
  missedHeartbeats?: number;
  /** A connection that has not logged on within this time is closed; 5000 ms. */
  logonTimeoutMs?: number;
  /**
   * Journal for restart = resume: every sequenced frame of a named session and every session event is
   * appended to it, and no sequenced frame reaches a socket before the journal holds it durably.
   */
  journal?: SessionJournal;
  /** Named sessions of earlier runs (rebuilt from the journal) that this gateway continues. */
  restored?: RestoreResult;
  http?: HttpHooks;
  logger?: GatewayLogger;
  /** Market data for Subscribe (the hub, src/marketdata); without it Subscribe gets SubscribeReject 120. */
  marketData?: MarketDataSource;
  /** Instruments one connection may subscribe, unsent bytes above which its market data pauses. */
  marketDataLimits?: MarketDataLimits;
}

/** The scalar options with their defaults applied (the objects stay on GatewayConfig). */
export type GatewaySettings = Required<
  Omit<
    GatewayConfig,
    "http" | "logger" | "token" | "adminToken" | "journal" | "restored" | "marketData" | "marketDataLimits"
  >
> & {
  token: string;
  adminToken: string;
};

/** Applies the defaults; throws when no token is configured (nothing may log on without one). */
export function resolveSettings(config: GatewayConfig): GatewaySettings {
  const token = config.token || process.env.HFTGATE_TOKEN;
  if (!token) throw new Error("gateway token is required (config gateway.token or HFTGATE_TOKEN)");
  const adminToken = config.adminToken || process.env.HFTGATE_ADMIN_TOKEN || "";
  return {
    token,
    adminToken,
    host: config.host ?? "127.0.0.1",
    port: config.port ?? 7700,
    transport: config.transport ?? "auto",
    badTokenDelayMs: config.badTokenDelayMs ?? 500,
    heartbeatMs: config.heartbeatMs ?? 1000,
    missedHeartbeats: config.missedHeartbeats ?? 3,
    logonTimeoutMs: config.logonTimeoutMs ?? 5000,
    resumeRing: config.resumeRing ?? 4096,
    maxBufferedBytes: config.maxBufferedBytes ?? 1 << 20,
    sessionRetentionMs: config.sessionRetentionMs ?? 86_400_000,
    maxRetainedSessions: config.maxRetainedSessions ?? 256,
  };
}

export const stderrLogger: GatewayLogger = {
  info: () => {},
  warn: (obj, msg) => process.stderr.write(`hftgate gateway WARN: ${msg} ${JSON.stringify(obj)}\n`),
};

/** Counters for /metrics and tests; one object, shared by the gateway's parts. */
export interface GatewayStats {
  framesIn: number;
  errors: number;
  rejects: number;
  slowConsumers: number;
  badTokens: number;
  /** Connections closed (1011) holding more than a connection may while the journal cannot write. */
  journalHeldCloses: number;
}

export function newGatewayStats(): GatewayStats {
  return { framesIn: 0, errors: 0, rejects: 0, slowConsumers: 0, badTokens: 0, journalHeldCloses: 0 };
}
