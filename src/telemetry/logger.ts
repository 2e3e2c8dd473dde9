import { createRequire } from "node:module";
import pino, { type Logger } from "pino";

/**
 * The process logger. Structured JSON by default, pretty in a terminal when pino-pretty is installed.
 * Secrets are kept out twice: known secret-bearing keys are redacted by path, and any string that
 * equals or contains a registered secret value is scrubbed before the line is written.
 */

const REDACT_PATHS = [
  "secret",
  "secretKey",
  "seed",
  "token",
  "adminToken",
  "*.secret",
  "*.secretKey",
  "*.seed",
  "*.token",
  "*.adminToken",
  "keys.secretKey",
  'headers["x-auth-signature"]',
  'headers["X-AUTH-SIGNATURE"]',
];

const secrets = new Set<string>();

/** Registers a value that must never reach a log line (e.g. the secret key, in any case). */
export function registerSecret(value: string | null | undefined): void {
  if (value === null || value === undefined || value.length < 8) return;
  secrets.add(value);
  secrets.add(value.toLowerCase());
  secrets.add(value.toUpperCase());
}

/** Replaces every registered secret inside `s`. */
export function scrub(s: string): string {
  if (secrets.size === 0) return s;
  let out = s;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join("[redacted]");
  return out;
}

function scrubValue(v: unknown, depth = 0): unknown {
  if (typeof v === "string") return scrub(v);
  if (depth > 4 || v === null || typeof v !== "object") return v;
  if (v instanceof Error)
    return { type: v.name, message: scrub(v.message), stack: v.stack && scrub(v.stack) };
  if (Array.isArray(v)) return v.map((x) => scrubValue(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = scrubValue(x, depth + 1);
  return out;
}

function prettyAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve("pino-pretty");
    return true;
  } catch {
    return false;
  }
}

export interface LoggerOptions {
  level?: string;
  pretty?: "auto" | "true" | "false";
  /** Write to this destination instead of stdout (tests). */
  destination?: NodeJS.WritableStream;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const pretty =
    opts.destination === undefined &&
    (opts.pretty === "true" || (opts.pretty !== "false" && process.stdout.isTTY === true)) &&
    prettyAvailable();
  const base: pino.LoggerOptions = {
    level: opts.level ?? "info",
    base: { app: "hftgate" },
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    hooks: {
      logMethod(args, method) {
        for (let i = 0; i < args.length; i++) args[i] = scrubValue(args[i]) as never;
        method.apply(this, args);
      },
    },
  };
  if (pretty) {
    return pino({
      ...base,
      transport: { target: "pino-pretty", options: { colorize: true, translateTime: "HH:MM:ss.l" } },
    });
  }
  return opts.destination ? pino(base, opts.destination as pino.DestinationStream) : pino(base);
}
