/**
 * Preflight's one way to the venue's REST surfaces: GET only (an endpoint of another method is refused
 * here, so no check can place, cancel or change anything), signed like the gateway signs (METHOD +
 * decoded path?query + epoch, the epoch on the venue's clock once the offset is known), every answer
 * kept whole (status, body, headers) and every rate-limit header name remembered. Off the hot path:
 * plain undici `request` on its own agent, closed at the end.
 */
import { Agent, request } from "undici";
import type { KeyPair } from "../auth/keys.js";
import { encodeQuery, signedMessage, wireTarget } from "../auth/signedMessage.js";
import { makeSigner, type Signer } from "../auth/signer.js";
import { buildCatalogue, type Catalogue, type EndpointId } from "../rest/catalogue.js";

export interface ProbeAnswer {
  readonly status: number;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  readonly body: unknown;
  /** Round trip in ms (request sent → body read). */
  readonly ms: number;
}

export interface ProbeOptions {
  keys: KeyPair;
  spotBaseUrl: string;
  hftBaseUrl: string;
  timeoutMs: number;
  pathOverrides?: Partial<Record<EndpointId, string>>;
}

/** The headers a venue may use to tell its limits (the venue documents none; these are the usual). */
const RATE_HEADER = /^(x-)?(rate-?limit|ratelimit)|^retry-after$|^x-bapi-limit|^x-mbx-used-weight/i;

export class ProbeMethodError extends Error {
  override readonly name = "ProbeMethodError";
}

export class VenueProbe {
  /** Rate-limit header names seen on any answer, lower case. */
  readonly rateHeaders = new Set<string>();
  /** `METHOD path` of every request sent, in order. */
  readonly sent: string[] = [];
  /** Added to the local clock for the epoch (the clock check sets it). */
  offsetMs = 0;
  private readonly signer: Signer;
  private readonly catalogue: Catalogue;
  private readonly agent: Agent;

  constructor(private readonly o: ProbeOptions) {
    this.signer = makeSigner(o.keys);
    this.catalogue = buildCatalogue([], o.pathOverrides);
    this.agent = new Agent({ connections: 2, keepAliveTimeout: 2_000, connect: { timeout: o.timeoutMs } });
  }

  get apiKey(): string {
    return this.o.keys.apiKey;
  }

  /** GET an endpoint of the catalogue; `signed` defaults to the catalogue's flag. */
  async get(
    id: EndpointId,
    query: ReadonlyArray<readonly [string, string]> = [],
    signed?: boolean,
  ): Promise<ProbeAnswer> {
    const ep = this.catalogue[id];
    if (ep.method !== "GET") throw new ProbeMethodError(`preflight reads only: ${ep.id} is ${ep.method}`);
    const base = ep.surface === "hft" ? this.o.hftBaseUrl : this.o.spotBaseUrl;
    const target = wireTarget(ep.path, encodeQuery(query));
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (signed ?? ep.signed) {
      const epoch = String(Math.round(Date.now() + this.offsetMs));
      headers["x-auth-apikey"] = this.o.keys.apiKey;
      headers["x-auth-epoch"] = epoch;
      headers["x-auth-signature"] = this.signer.signHex(signedMessage("GET", target, epoch));
    }
    this.sent.push(`GET ${ep.path}`);
    const t0 = performance.now();
    const res = await request(base.replace(/\/+$/, "") + target, {
      method: "GET",
      headers,
      dispatcher: this.agent,
      headersTimeout: this.o.timeoutMs,
      bodyTimeout: this.o.timeoutMs,
    });
    const text = await res.body.text();
    const ms = performance.now() - t0;
    for (const name of Object.keys(res.headers))
      if (RATE_HEADER.test(name)) this.rateHeaders.add(name.toLowerCase());
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, body, ms };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** A v5 envelope's `retCode` (0 = success); undefined when the body is not one. */
export function retCodeOf(body: unknown): number | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const c = (body as Record<string, unknown>).retCode;
  return typeof c === "number" ? c : undefined;
}

/** The venue's own words: `message` (Spot/Futures) or `retMsg` (v5), cut to one short line. */
export function venueText(body: unknown): string {
  if (body === null || typeof body !== "object") return "";
  const b = body as Record<string, unknown>;
  const m = typeof b.retMsg === "string" ? b.retMsg : typeof b.message === "string" ? b.message : "";
  return m.replace(/\s+/g, " ").slice(0, 160);
}
