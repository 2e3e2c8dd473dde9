/**
 * Where the demo connects: gateway URL and token from flags, else the environment
 * (HFTGATE_URL / HFTGATE_TOKEN), else the file `hftgate start` writes (var/gateway.json). The venue's
 * public market data (used only to price orders near the market) comes from `--venue`,
 * HFTGATE_VENUE_URL, or the same file when it names the venue.
 */
import { readFileSync } from "node:fs";

export class DemoError extends Error {
  override readonly name = "DemoError";
}

export interface VenueUrls {
  /** Base of the HFT REST surface (public `/v5/market/tickers`). */
  hftBaseUrl: string;
  /** Base of the Spot Socket.IO streams (public order books). */
  streamUrl: string;
}

export interface DemoTarget {
  url: string;
  token: string;
  /** Where url/token came from, for the report. */
  source: "flags" | "env" | "file";
  venue: VenueUrls | undefined;
  /** The state file's venue kind ("sim" / "exchange") when the connection came from that file. */
  venueKind: string | undefined;
}

export interface TargetInputs {
  url?: string | undefined;
  token?: string | undefined;
  venue?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  /** Path of the start command's connection file. */
  file: string;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** First non-empty string among dotted paths of `o` (the file's field names are read leniently). */
function pick(o: Json, paths: readonly string[]): string | undefined {
  for (const p of paths) {
    let v: unknown = o;
    for (const k of p.split(".")) v = isObj(v) ? v[k] : undefined;
    const s = str(v);
    if (s !== undefined) return s;
  }
  return undefined;
}

function readFileJson(file: string): Json | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (isObj(v)) return v;
  } catch {
    // fall through to the error below
  }
  throw new DemoError(`${file} is not a JSON object; restart the gateway or pass --url and --token`);
}

function oneVenue(url: string): VenueUrls {
  return { hftBaseUrl: url, streamUrl: url };
}

/** Resolves the target; throws DemoError naming what is missing. */
export function resolveTarget(i: TargetInputs): DemoTarget {
  const file = readFileJson(i.file);
  let source: DemoTarget["source"];
  let url: string | undefined;
  let token: string | undefined;
  if (i.url !== undefined || i.token !== undefined) {
    source = "flags";
    url = i.url ?? str(i.env.HFTGATE_URL);
    token = i.token ?? str(i.env.HFTGATE_TOKEN);
  } else if (str(i.env.HFTGATE_URL) !== undefined) {
    source = "env";
    url = str(i.env.HFTGATE_URL);
    token = str(i.env.HFTGATE_TOKEN);
  } else {
    source = "file";
    url = file && pick(file, ["url", "wsUrl", "gatewayUrl", "gateway.url"]);
    token = str(i.env.HFTGATE_TOKEN) ?? (file && pick(file, ["token", "gateway.token"]));
  }
  if (url === undefined) {
    throw new DemoError(
      `no gateway URL: pass --url ws://HOST:PORT, set HFTGATE_URL, or start the gateway (npm start) so it writes ${i.file}`,
    );
  }
  if (!/^wss?:\/\//.test(url))
    throw new DemoError(`gateway URL must start with ws:// or wss:// (got ${url})`);
  if (token === undefined) {
    throw new DemoError(
      `no gateway token: pass --token, set HFTGATE_TOKEN, or start the gateway so it writes ${i.file}`,
    );
  }
  let venue: VenueUrls | undefined;
  const flagVenue = i.venue ?? str(i.env.HFTGATE_VENUE_URL);
  if (flagVenue !== undefined) venue = oneVenue(flagVenue);
  else if (file) {
    const one = pick(file, ["venueUrl", "venue.url", "venue.baseUrl", "simUrl", "sim.url", "sim.baseUrl"]);
    const hft = pick(file, ["venue.hftBaseUrl", "hftBaseUrl"]);
    const stream = pick(file, ["venue.streamUrl", "streamUrl", "venue.spotBaseUrl"]);
    if (hft !== undefined || stream !== undefined) {
      venue = { hftBaseUrl: hft ?? one ?? stream!, streamUrl: stream ?? one ?? hft! };
    } else if (one !== undefined) venue = oneVenue(one);
  }
  const kind = file && source === "file" ? file.venue : undefined;
  return { url, token, source, venue, venueKind: typeof kind === "string" ? kind : undefined };
}

/** True when every venue URL points at this host (the simulator or a local stub, not the exchange). */
export function isLocalVenue(v: VenueUrls): boolean {
  return [v.hftBaseUrl, v.streamUrl].every((u) => {
    try {
      const h = new URL(u).hostname;
      return h === "127.0.0.1" || h === "localhost" || h === "::1" || h === "[::1]";
    } catch {
      return false;
    }
  });
}
