/**
 * Loading the configuration: defaults from the knob table (schema.ts), then a JSON file, then
 * `HFTGATE_*` environment variables, then programmatic overrides; every value validated once, unknown
 * keys and unknown `HFTGATE_*` names refused, and where each value came from kept (`hftgate config`).
 */
import { readFileSync } from "node:fs";
import { OTHER_ENV_NAMES } from "./envNames.js";
import { jsonErrorAt } from "./jsonError.js";
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

/** Where a knob's effective value came from. */
export type ValueSource = "default" | "file" | `env ${string}` | "override";

export interface Explained {
  readonly config: Config;
  /** Knob path -> where its value came from. */
  readonly sources: ReadonlyMap<string, ValueSource>;
}

export function loadConfig(opts: LoadOptions = {}): Config {
  return explainConfig(opts).config;
}

/** Loads like `loadConfig` and says where each value came from (default, file, env NAME, override). */
export function explainConfig(opts: LoadOptions = {}): Explained {
  const cfg = defaultsObject();
  const sources = new Map<string, ValueSource>(KNOBS.map((k) => [k.path, "default"]));
  if (opts.file !== undefined) {
    for (const [path, value] of readFile(opts.file)) {
      const knob = BY_PATH.get(path);
      if (knob === undefined)
        throw new ConfigError(`${opts.file}: unknown key '${path}'${hint(path, PATHS)}`);
      setPath(cfg, path, coerce(knob, value, `${opts.file}: '${path}'`));
      sources.set(path, "file");
    }
  }
  const env = opts.env ?? process.env;
  checkEnvNames(env);
  for (const knob of KNOBS) {
    for (const name of [envName(knob.path), ...(knob.aliases ?? [])]) {
      const v = env[name];
      if (v !== undefined && v !== "") {
        setPath(cfg, knob.path, coerce(knob, v, `environment ${name}`));
        sources.set(knob.path, `env ${name}`);
      }
    }
  }
  for (const [path, value] of Object.entries(opts.overrides ?? {})) {
    const knob = BY_PATH.get(path);
    if (knob === undefined) throw new ConfigError(`override: unknown key '${path}'${hint(path, PATHS)}`);
    setPath(cfg, path, coerce(knob, value, `override '${path}'`));
    sources.set(path, "override");
  }
  return { config: cfg as unknown as Config, sources };
}

function readFile(file: string): Array<[string, unknown]> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(
      `cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? "error"}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // JSON.parse quotes the text around the error, which may be a secret: never pass its message on.
    const at = jsonErrorAt(text);
    const where = at === undefined ? "" : ` at line ${at.line}, column ${at.column}: ${at.reason}`;
    throw new ConfigError(`config file ${file} is not valid JSON${where} (values are not shown)`);
  }
  return flatten(raw, "");
}

/** Every `HFTGATE_*` name a knob reads (its derived name and its aliases). */
export const KNOB_ENV_NAMES: ReadonlySet<string> = new Set(
  KNOBS.flatMap((k) => [envName(k.path), ...(k.aliases ?? [])]),
);
const KNOWN_ENV = [...KNOB_ENV_NAMES, ...OTHER_ENV_NAMES.map((o) => o.name)];
const KNOWN_ENV_SET = new Set(KNOWN_ENV);
const PATHS = KNOBS.map((k) => k.path);

/** An unknown `HFTGATE_*` name is refused like an unknown file key: a misspelled knob is no default. */
function checkEnvNames(env: NodeJS.ProcessEnv): void {
  const unknown = Object.keys(env)
    .filter((n) => n.startsWith("HFTGATE_") && !KNOWN_ENV_SET.has(n))
    .sort();
  if (unknown.length === 0) return;
  const rows = unknown.map((n) => `'${n}'${hint(n, KNOWN_ENV)}`);
  throw new ConfigError(
    `unknown environment variable${unknown.length > 1 ? "s" : ""} ${rows.join(", ")} (docs/config.md lists every name)`,
  );
}

/** "; did you mean X?" for the closest known name, when one is close enough to be a typo. */
function hint(name: string, known: readonly string[]): string {
  let best = "";
  let bestD = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const d = distance(name.toUpperCase(), k.toUpperCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return bestD <= Math.max(2, Math.floor(name.length / 4)) ? ` (did you mean ${best}?)` : "";
}

/** Levenshtein distance (two rows). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
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

/** A knob's type in words (docs/config.md). */
export function typeText(t: KnobType): string {
  switch (t.kind) {
    case "int":
      return `integer ${t.min}..${t.max}`;
    case "number":
      return `number ${t.min}..${t.max}`;
    case "bool":
      return "boolean";
    case "string":
      return `${t.secret ? "secret " : ""}string${t.nullable ? " or null" : ""}`;
    case "enum":
      return t.values.join(" \\| ");
    case "list":
      return t.values ? `list of ${t.values.join(", ")}` : "list";
  }
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** Markdown table of every knob: key, environment name(s), type, default, meaning (docs/config.md). */
export function knobTable(): string {
  const rows = KNOBS.map((k) => {
    const envs = [envName(k.path), ...(k.aliases ?? [])].map((n) => `\`${n}\``).join(", ");
    return `| \`${k.path}\` | ${envs} | ${typeText(k.type)} | \`${cell(JSON.stringify(k.def))}\` | ${cell(k.doc)} |`;
  });
  return ["| key | environment | type | default | meaning |", "|---|---|---|---|---|", ...rows].join("\n");
}

/** docs/config.md: generated from the knob table (`hftgate config --markdown`); a test keeps it equal. */
export function configReference(): string {
  const others = OTHER_ENV_NAMES.map((o) => `| \`${o.name}\` | ${o.readBy} | ${cell(o.doc)} |`);
  return [
    "# Configuration reference",
    "",
    "<!-- Generated from src/config/schema.ts by `npm run docs:config` (hftgate config --markdown); do not edit. -->",
    "",
    "Every knob has a default; a JSON file (`hftgate start --config FILE`) overrides defaults, an",
    "environment variable overrides the file. The file nests keys by their dots",
    '(`{"gateway": {"port": 7700}}`); the environment name is derived from the key',
    "(`gateway.port` -> `HFTGATE_GATEWAY_PORT`; lists are comma-separated there). An unknown key in the",
    "file and an unknown `HFTGATE_*` variable are refused at start, naming the closest known one; a file",
    "that is not JSON is refused with the line and column of the error. `hftgate config [--config FILE]`",
    "prints the effective configuration and where each value came from (default, file, env), secrets",
    "hidden.",
    "",
    "## Knobs",
    "",
    knobTable(),
    "",
    "## Other `HFTGATE_*` variables",
    "",
    "Read by the clients, benchmarks and test harnesses, not by the gateway; `hftgate start` lets them pass.",
    "",
    "| variable | read by | meaning |",
    "|---|---|---|",
    ...others,
    "",
  ].join("\n");
}
