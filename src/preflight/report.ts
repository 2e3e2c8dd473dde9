/**
 * What `hftgate preflight` reports: one result per check (status, what was seen, what to change), the
 * venue it looked at, and the verdict (every required check passed). Text for a terminal, the same
 * object as JSON for a script. Nothing here holds a secret: the API key is public and is shortened.
 */

export type CheckStatus = "pass" | "warn" | "fail" | "skip";

export interface CheckResult {
  readonly id: string;
  readonly title: string;
  readonly status: CheckStatus;
  /** A failure of a required check fails the preflight (exit code 1). */
  readonly required: boolean;
  /** What was seen, in one line. */
  readonly detail: string;
  /** What to change, when something should be. */
  readonly fix?: string;
  /** Figures and names the check measured (offset, counts, accepted mappings…). */
  readonly data?: Readonly<Record<string, unknown>>;
  /** The venue facts (ids of docs/going-live.md's table) a pass confirms. */
  readonly verifies: readonly string[];
}

export interface PreflightReport {
  /** `exchange`, or `sim` (the embedded simulator, started for the preflight). */
  readonly venue: string;
  readonly spotBaseUrl: string;
  readonly hftBaseUrl: string;
  /** The API key, shortened (`d75a9801…511a`). */
  readonly apiKey: string;
  readonly checks: readonly CheckResult[];
  /** Every required check passed. */
  readonly ok: boolean;
  /** Every request preflight sent to the REST surfaces (`GET path`): reads only. */
  readonly requests: readonly string[];
}

export function shortKey(apiKey: string): string {
  return apiKey.length > 16 ? `${apiKey.slice(0, 8)}…${apiKey.slice(-4)}` : apiKey;
}

export function verdict(checks: readonly CheckResult[]): boolean {
  return checks.every((c) => !c.required || c.status === "pass" || c.status === "warn");
}

const MARK: Readonly<Record<CheckStatus, string>> = {
  pass: "PASS",
  warn: "WARN",
  fail: "FAIL",
  skip: "SKIP",
};

export function renderText(r: PreflightReport): string {
  const lines = [
    `hftgate preflight: venue ${r.venue} (Spot ${r.spotBaseUrl}, HFT ${r.hftBaseUrl}), API key ${r.apiKey}`,
    "",
  ];
  const width = Math.max(...r.checks.map((c) => c.id.length));
  for (const c of r.checks) {
    const req = c.required ? "" : " (not required)";
    lines.push(`  ${MARK[c.status]}  ${c.id.padEnd(width)}  ${c.title}${req}: ${c.detail}`);
    if (c.fix !== undefined && c.status !== "pass") lines.push(`  ${" ".repeat(6 + width)}  → ${c.fix}`);
  }
  const failed = r.checks.filter((c) => c.required && c.status === "fail").map((c) => c.id);
  lines.push(
    "",
    failed.length === 0
      ? `ready: every required check passed (${r.requests.length} read-only requests, no order placed)`
      : `not ready: ${failed.length} required check${failed.length === 1 ? "" : "s"} failed (${failed.join(", ")})`,
  );
  return `${lines.join("\n")}\n`;
}
