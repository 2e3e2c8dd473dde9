/**
 * Whose journal it is: the venue (kind and base URL) and the account (a fingerprint of the API key,
 * which is public; never the secret). Every file a gateway opens carries it at its head, and start-up
 * refuses to replay a journal of another venue or account. Also the per-venue directory name that
 * `{venue}` in `journal.dir` stands for.
 */
import { createHash } from "node:crypto";
import { JournalError } from "./records.js";

export interface JournalIdentity {
  /** `sim` (the embedded simulator) or `exchange`. */
  readonly venue: string;
  /** The venue's Spot base URL as an origin (`https://coinswitch.co`); `embedded` for the simulator. */
  readonly url: string;
  /** First 16 hex digits of the SHA-256 of the API key's 32 bytes; `embedded` for the simulator. */
  readonly account: string;
}

/**
 * Text of the `note` record (seq 0) at the head of a binary file; NDJSON files carry the identity in
 * their `hdr` line instead. A note, so older readers skip it like any other.
 */
export const IDENTITY_NOTE = "journal-identity ";

/** The embedded simulator starts empty with every process: its journal is not tied to keys or a URL. */
const EMBEDDED = "embedded";

/** First 16 hex digits of SHA-256 over the API key's bytes (the Ed25519 public key). */
export function accountFingerprint(apiKeyHex: string): string {
  return createHash("sha256").update(Buffer.from(apiKeyHex, "hex")).digest("hex").slice(0, 16);
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The identity of a start: venue `sim`, or venue `exchange` at `spotBaseUrl` with the key `apiKey`. */
export function journalIdentity(venue: string, spotBaseUrl: string, apiKeyHex: string): JournalIdentity {
  if (venue === "sim") return { venue, url: EMBEDDED, account: EMBEDDED };
  return { venue, url: origin(spotBaseUrl), account: accountFingerprint(apiKeyHex) };
}

export function sameIdentity(a: JournalIdentity, b: JournalIdentity): boolean {
  return a.venue === b.venue && a.url === b.url && a.account === b.account;
}

/** `venue exchange at https://coinswitch.co, account 1a2b3c4d5e6f7a8b` (for errors and logs). */
export function describeIdentity(i: JournalIdentity): string {
  return i.venue === "sim" ? "the embedded simulator" : `venue ${i.venue} at ${i.url}, account ${i.account}`;
}

export function identityText(i: JournalIdentity): string {
  return `${IDENTITY_NOTE}${JSON.stringify({ venue: i.venue, url: i.url, account: i.account })}`;
}

/** The identity an identity note or an NDJSON header holds; undefined when it holds none. */
export function parseIdentity(v: unknown): JournalIdentity | undefined {
  let o = v;
  if (typeof v === "string") {
    if (!v.startsWith(IDENTITY_NOTE)) return undefined;
    try {
      o = JSON.parse(v.slice(IDENTITY_NOTE.length));
    } catch {
      return undefined;
    }
  }
  if (typeof o !== "object" || o === null) return undefined;
  const { venue, url, account } = o as Record<string, unknown>;
  if (typeof venue !== "string" || typeof url !== "string" || typeof account !== "string") return undefined;
  return { venue, url, account };
}

/** What `{venue}` in `journal.dir` stands for: `sim`, or the Spot host (`coinswitch.co`, `127.0.0.1_8080`). */
export function venueDirName(venue: string, spotBaseUrl: string): string {
  if (venue === "sim") return "sim";
  let host: string;
  try {
    host = new URL(spotBaseUrl).host;
  } catch {
    throw new JournalError(`venue.spotBaseUrl is not a URL: cannot name the journal directory`);
  }
  return host.replace(/[^A-Za-z0-9._-]/g, "_");
}

export const VENUE_PLACEHOLDER = "{venue}";

/** `journal.dir` with `{venue}` replaced (a directory without the placeholder is used as it is). */
export function expandJournalDir(template: string, venue: string, spotBaseUrl: string): string {
  if (!template.includes(VENUE_PLACEHOLDER)) return template;
  return template.split(VENUE_PLACEHOLDER).join(venueDirName(venue, spotBaseUrl));
}
