/**
 * Secret scan: looks for the secret key's hex (any letter case) in everything a run wrote — process
 * output, every file under a directory (journal files are binary: scanned byte-wise), metrics pages.
 * Also looks for the raw 32 seed bytes and their base64, the other shapes a careless dump would take.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export interface Artifact {
  name: string;
  data: string | Buffer;
}

/** Every regular file under `dir` (recursively) as an artifact. */
export function filesUnder(dir: string): Artifact[] {
  const out: Artifact[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile() && statSync(p).size > 0) out.push({ name: p, data: readFileSync(p) });
  }
  return out;
}

/** Names of the artifacts that contain the secret in any form. */
export function leaks(secretHex: string, artifacts: readonly Artifact[]): string[] {
  const hex = secretHex.toLowerCase();
  const raw = Buffer.from(hex, "hex");
  const b64 = raw.toString("base64");
  const out: string[] = [];
  for (const a of artifacts) {
    const buf = typeof a.data === "string" ? Buffer.from(a.data, "utf8") : a.data;
    const text = buf.toString("latin1");
    if (text.toLowerCase().includes(hex) || buf.includes(raw) || text.includes(b64)) out.push(a.name);
  }
  return out;
}

/** Names of the artifacts that contain `needle` (case-insensitive), e.g. a gateway token. */
export function mentions(needle: string, artifacts: readonly Artifact[]): string[] {
  const n = needle.toLowerCase();
  return artifacts
    .filter((a) =>
      (typeof a.data === "string" ? a.data : a.data.toString("latin1")).toLowerCase().includes(n),
    )
    .map((a) => a.name);
}
