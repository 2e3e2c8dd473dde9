/**
 * Fault injection: rules matched per request (by endpoint key `METHOD /path` or `*`), stream faults
 * and clock skew. Decisions draw from their own seeded generator so a chaos run replays exactly.
 */
import { CREATE_CLIENT_ID } from "./lateCreates.js";
import { Rng } from "./rng.js";

export type FaultKind =
  /** Delay before the request is handled: `ms` plus uniform jitter in [0, jitterMs]. */
  | "latency"
  /** Handle the request, never answer (the socket stays open until the client gives up). */
  | "timeout"
  /** Handle the request, then destroy the connection without a response. */
  | "reset"
  /** Handle the request, then answer `status` (default 503). */
  | "error5xx"
  /**
   * Handle the request at once, answer after `ms` plus uniform jitter in [0, jitterMs]: the venue
   * already holds the order (its streams publish it) while the caller still waits for the answer.
   */
  | "slowAnswer"
  /** Answer 429 without handling the request. */
  | "rate429"
  /**
   * Creates only: hold the create (nothing at the venue yet); it lands right after `queries` (default
   * 1) queries by its client id have answered "not found", or after `ms` on the simulator's clock,
   * or when released; its answer is sent then, if the client still listens (see lateCreates.ts).
   */
  | "lateCreate";

export interface FaultRule {
  kind: FaultKind;
  /** `POST /v5/order/create`, `DELETE /trade/api/v2/order`, or `*` (default). */
  endpoint?: string;
  /** Chance per matching request (default 1). */
  probability?: number;
  /** Apply to the next N matching requests only, then the rule retires. */
  count?: number;
  ms?: number;
  jitterMs?: number;
  status?: number;
  /**
   * `latency` only: "handle" = the venue still handles the request after the delay even when the
   * client gave up waiting (a venue queue that keeps working: the order appears after the caller's
   * deadline). Default "drop": a request whose client went away is not handled.
   */
  abandoned?: "drop" | "handle";
  /** `lateCreate`: not-found queries by client id before the create lands (default 1). */
  queries?: number;
}

export interface StreamFaults {
  dropProbability: number;
  duplicateProbability: number;
  /** Hold a message back and deliver it after the next one. */
  reorderProbability: number;
}

export interface FaultDecision {
  delayMs: number;
  /** `slowAnswer`: handled at once, answered this much later (0 = at once). */
  answerDelayMs?: number;
  /** What happens after handling: answer normally, hang, reset, or replace with 5xx; or 429 first. */
  outcome: "normal" | "timeout" | "reset" | "error5xx" | "rate429" | "lateCreate";
  status: number;
  /** Handle the request after the delay even if its client went away. */
  handleAbandoned?: boolean;
  /** `lateCreate`: the landing deadline (undefined = none) and the queries it waits for. */
  holdMs?: number | undefined;
  queries?: number;
}

const NORMAL: FaultDecision = { delayMs: 0, outcome: "normal", status: 0 };
const CREATES = new Set(Object.keys(CREATE_CLIENT_ID));

export class Faults {
  rules: FaultRule[];
  streams: StreamFaults;
  clockSkewMs: number;
  /**
   * Requests each kind of rule answered, by `<kind> <endpoint>` (`error5xx GET /trade/api/v2/orders`),
   * over the simulator's life (a clear keeps them): how a test knows its fault really fired.
   */
  readonly hits = new Map<string, number>();
  private readonly rng: Rng;

  constructor(seed: number, rules: FaultRule[], streams: StreamFaults, clockSkewMs: number) {
    this.rng = new Rng(seed ^ 0x5eed);
    this.rules = rules.map((r) => ({ ...r }));
    this.streams = { ...streams };
    this.clockSkewMs = clockSkewMs;
  }

  add(rule: FaultRule): void {
    validateRule(rule);
    this.rules.push({ ...rule });
  }

  clear(): void {
    this.rules = [];
    this.streams = { dropProbability: 0, duplicateProbability: 0, reorderProbability: 0 };
    this.clockSkewMs = 0;
  }

  /** Per-request decision; the common no-rules case returns a shared constant. */
  decide(endpoint: string): FaultDecision {
    if (this.rules.length === 0) return NORMAL;
    let delayMs = 0;
    let answerDelayMs = 0;
    let outcome: FaultDecision["outcome"] = "normal";
    let status = 0;
    let handleAbandoned = false;
    let late: FaultRule | undefined;
    for (let i = 0; i < this.rules.length; i++) {
      const r = this.rules[i]!;
      if (r.endpoint !== undefined && r.endpoint !== "*" && r.endpoint !== endpoint) continue;
      if (r.kind === "lateCreate" && !CREATES.has(endpoint)) continue;
      if (r.probability !== undefined && this.rng.next() >= r.probability) continue;
      if (r.count !== undefined) {
        r.count--;
        if (r.count <= 0) {
          this.rules.splice(i, 1);
          i--;
        }
      }
      const hit = `${r.kind} ${r.endpoint ?? "*"}`;
      this.hits.set(hit, (this.hits.get(hit) ?? 0) + 1);
      if (r.kind === "latency") {
        delayMs += (r.ms ?? 0) + (r.jitterMs ? this.rng.next() * r.jitterMs : 0);
        if (r.abandoned === "handle") handleAbandoned = true;
      } else if (r.kind === "slowAnswer") {
        answerDelayMs += (r.ms ?? 0) + (r.jitterMs ? this.rng.next() * r.jitterMs : 0);
      } else if (outcome === "normal") {
        outcome = r.kind;
        status = r.kind === "error5xx" ? (r.status ?? 503) : r.kind === "rate429" ? 429 : 0;
        if (r.kind === "lateCreate") late = r;
      }
    }
    if (delayMs === 0 && answerDelayMs === 0 && outcome === "normal") return NORMAL;
    return late === undefined
      ? { delayMs, answerDelayMs, outcome, status, handleAbandoned }
      : {
          delayMs,
          answerDelayMs,
          outcome,
          status,
          handleAbandoned,
          holdMs: late.ms,
          queries: late.queries ?? 1,
        };
  }

  /** Stream message fate: how many copies to send now (0 = dropped), or hold for reordering. */
  streamFate(): "drop" | "dup" | "hold" | "send" {
    const s = this.streams;
    if (s.dropProbability === 0 && s.duplicateProbability === 0 && s.reorderProbability === 0) return "send";
    if (this.rng.next() < s.dropProbability) return "drop";
    if (this.rng.next() < s.duplicateProbability) return "dup";
    if (this.rng.next() < s.reorderProbability) return "hold";
    return "send";
  }
}

const KINDS = new Set(["latency", "timeout", "reset", "error5xx", "slowAnswer", "rate429", "lateCreate"]);

/** Throws a readable error for a malformed rule (admin API input). */
export function validateRule(rule: FaultRule): void {
  if (rule === null || typeof rule !== "object") throw new Error("fault rule must be an object");
  if (!KINDS.has(rule.kind)) throw new Error(`fault rule kind must be one of ${[...KINDS].join(", ")}`);
  if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) {
    throw new Error("fault rule probability must be in [0, 1]");
  }
  if (rule.count !== undefined && !(Number.isInteger(rule.count) && rule.count > 0)) {
    throw new Error("fault rule count must be a positive integer");
  }
  if (rule.endpoint !== undefined && typeof rule.endpoint !== "string")
    throw new Error("fault rule endpoint must be a string");
  if ((rule.kind === "latency" || rule.kind === "slowAnswer") && rule.ms !== undefined && !(rule.ms >= 0))
    throw new Error("fault rule ms must be >= 0");
  if (rule.kind === "lateCreate") {
    if (rule.endpoint !== undefined && rule.endpoint !== "*" && !CREATES.has(rule.endpoint))
      throw new Error(`lateCreate applies to creates only: ${[...CREATES].join(" or ")}`);
    if (rule.queries !== undefined && !(Number.isInteger(rule.queries) && rule.queries > 0))
      throw new Error("fault rule queries must be a positive integer");
    if (rule.ms !== undefined && !(rule.ms >= 0)) throw new Error("fault rule ms must be >= 0");
  }
}
