import { readFileSync } from "node:fs";
import { type ConfigOf, envName, KNOBS, type Knob, type KnobTable, type KnobType } from "./schema.js";

/** The validated configuration, derived from the knob table in schema.ts (its one source of truth). */
export type Config = ConfigOf<KnobTable>;

/** A configuration problem; the message names the key and the expected form, never a secret value. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const BY_PATH = new Map(KNOBS.map((k) => [k.path, k]));

/** The defaults as a nested object (what config/default.json holds). */
export function defaultsObject(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of KNOBS) setPath(out, k.path, structuredClone(k.def));
  return out;
}

export interface LoadOptions {
  /** A user JSON file whose keys override the defaults. */
  file?: string;
  /** Environment (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  /** Programmatic overrides applied last (tests, embedded use), as knob path -> value. */
  overrides?: Record<string, unknown>;
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const cfg = defaultsObject();
  if (opts.file !== undefined) {
    let text: string;
    try {
      text = readFileSync(opts.file, "utf8");
    } catch (err) {
      throw new ConfigError(
        `cannot read config file ${opts.file}: ${(err as NodeJS.ErrnoException).code ?? "error"}`,
      );
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      // JSON.parse quotes the text around the error, which may be a secret: never pass its message on.
      throw new ConfigError(
        `config file ${opts.file} is not valid JSON (check quoting; values are not shown)`,
      );
    }
    for (const [path, value] of flatten(raw, "")) {
      const knob = BY_PATH.get(path);
      if (knob === undefined) throw new ConfigError(`${opts.file}: unknown key '${path}'`);
      setPath(cfg, path, coerce(knob, value, `${opts.file}: '${path}'`));
    }
  }
  const env = opts.env ?? process.env;
  for (const knob of KNOBS) {
    for (const name of [envName(knob.path), ...(knob.aliases ?? [])]) {
      const v = env[name];
      if (v !== undefined && v !== "") setPath(cfg, knob.path, coerce(knob, v, `environment ${name}`));
    }
  }
  for (const [path, value] of Object.entries(opts.overrides ?? {})) {
    const knob = BY_PATH.get(path);
    if (knob === undefined) throw new ConfigError(`override: unknown key '${path}'`);
    setPath(cfg, path, coerce(knob, value, `override '${path}'`));
  }
  return cfg as unknown as Config;
}

function flatten(v: unknown, prefix: string): Array<[string, unknown]> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    if (prefix === "") throw new ConfigError("config file must hold a JSON object");
    return [[prefix, v]];
  }
  const out: Array<[string, unknown]> = [];
  for (const [k, child] of Object.entries(v)) {
    const path = prefix === "" ? k : `${prefix}.${k}`;
    // A nested object under a known leaf path is a type error reported by coerce, not a recursion.
    if (BY_PATH.has(path)) out.push([path, child]);
    else out.push(...flatten(child, path));
  }
  return out;
}

function describe(t: KnobType): string {
  switch (t.kind) {
    case "int":
      return `an integer from ${t.min} to ${t.max}`;
    case "number":
      return `a number from ${t.min} to ${t.max}`;
    case "bool":
      return "true or false";
    case "string":
      return t.nullable ? "a string or null" : "a non-empty string";
    case "enum":
      return `one of ${t.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "list":
      return t.values
        ? `a list drawn from ${t.values.join(", ")} (comma-separated in the environment)`
        : "a list";
  }
}

function coerce(knob: Knob, value: unknown, where: string): unknown {
  const t = knob.type;
  const shown = t.kind === "string" && t.secret ? "(hidden)" : JSON.stringify(value)?.slice(0, 60);
  const fail = (): never => {
    throw new ConfigError(`${where}: expected ${describe(t)}, got ${shown}`);
  };
  const fromEnv = typeof value === "string";
  switch (t.kind) {
    case "int":
    case "number": {
      const n = fromEnv && value.trim() !== "" ? Number(value) : value;
      if (typeof n !== "number" || !Number.isFinite(n) || n < t.min || n > t.max) return fail();
      if (t.kind === "int" && !Number.isInteger(n)) return fail();
      return n;
    }
    case "bool":
      if (value === true || value === "true" || value === "1") return true;
      if (value === false || value === "false" || value === "0") return false;
      return fail();
    case "string":
      if (value === null && t.nullable) return null;
      if (typeof value !== "string" || (!t.nullable && value === "")) return fail();
      return value;
    case "enum":
      if (typeof value !== "string" || !t.values.includes(value)) return fail();
      return value;
    case "list": {
      const list = fromEnv
        ? value
            .split(",")
            .map((s) => s.trim())
            .filter((s) => s !== "")
        : value;
      if (!Array.isArray(list) || !list.every((x) => typeof x === "string")) return fail();
      if (t.values && !list.every((x) => t.values!.includes(x))) return fail();
      return list;
    }
  }
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let cur = obj;
  for (let i = 0; i < parts.length - 1; i++) {
    const p = parts[i]!;
    if (typeof cur[p] !== "object" || cur[p] === null) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

/** Markdown table of every knob, for the README (kept in sync by a test). */
export function knobTable(): string {
  const rows = KNOBS.map(
    (k) => `| \`${k.path}\` | \`${envName(k.path)}\` | \`${JSON.stringify(k.def)}\` | ${k.doc} |`,
  );
  return ["| key | environment | default | meaning |", "|---|---|---|---|", ...rows].join("\n");
}
