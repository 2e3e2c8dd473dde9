/**
 * Command-line parsing for every `hftgate` subcommand, on `node:util` parseArgs (strict: unknown
 * options and missing values are refused). A command declares its options once, with a line of help
 * each; `--help` / `-h` and the usage text come from the same table.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";

export interface OptionSpec {
  readonly type: "string" | "boolean";
  readonly short?: string;
  /** Repeatable: the values collect into an array. */
  readonly multiple?: boolean;
  /** Placeholder in the help text for a string option (`--port N`). */
  readonly value?: string;
  readonly help: string;
}

export interface CommandSpec {
  readonly name: string;
  /** One line for `hftgate --help`. */
  readonly summary: string;
  /** Positional arguments as shown in the usage line (`<journal>`, `[suite...]`); none when absent. */
  readonly positionals?: string;
  /** Fewest positionals the command needs. */
  readonly minPositionals?: number;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Extra lines after the options (where values come from, examples). */
  readonly notes?: readonly string[];
}

/** Parsed values: string options as string (or string[] when multiple), boolean options as true. */
export interface Parsed {
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
  readonly positionals: readonly string[];
}

export class UsageError extends Error {
  override readonly name = "UsageError";
}

const HELP: OptionSpec = { type: "boolean", short: "h", help: "show this help and exit" };

export function helpText(spec: CommandSpec): string {
  const opts = { ...spec.options, help: HELP };
  const rows = Object.entries(opts).map(([name, o]) => {
    const short = o.short ? `-${o.short}, ` : "";
    const value = o.type === "string" ? ` ${o.value ?? "VALUE"}` : "";
    return [`  ${short}--${name}${value}${o.multiple ? " (repeatable)" : ""}`, o.help] as const;
  });
  const width = Math.max(...rows.map(([l]) => l.length)) + 2;
  const pos = spec.positionals ? ` ${spec.positionals}` : "";
  const lines = [
    `usage: hftgate ${spec.name}${pos}${Object.keys(spec.options).length > 0 ? " [options]" : ""}`,
    "",
    spec.summary,
    "",
    "options:",
    ...rows.map(([l, h]) => `${l.padEnd(width)}${h}`),
  ];
  if (spec.notes && spec.notes.length > 0) lines.push("", ...spec.notes);
  return `${lines.join("\n")}\n`;
}

/** Parses argv against the spec; throws UsageError with a message for the user. */
export function parseCommand(spec: CommandSpec, argv: readonly string[]): Parsed & { help: boolean } {
  const options: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {};
  for (const [name, o] of Object.entries({ ...spec.options, help: HELP })) {
    options[name] = {
      type: o.type,
      ...(o.short !== undefined ? { short: o.short } : {}),
      ...(o.multiple ? { multiple: true } : {}),
    };
  }
  let r: ReturnType<typeof parseArgs>;
  try {
    r = parseArgs({
      args: [...argv],
      options,
      allowPositionals: spec.positionals !== undefined,
      strict: true,
    });
  } catch (err) {
    // Node's messages name the option ("Unknown option '--x'"); the hint points at --help.
    const msg = (err as Error).message.replace(/\. To specify a positional argument.*$/s, "");
    throw new UsageError(msg);
  }
  const help = r.values.help === true;
  if (!help && r.positionals.length < (spec.minPositionals ?? 0))
    throw new UsageError(`missing argument: ${spec.positionals}`);
  return { values: r.values, positionals: r.positionals, help };
}

/** A command's `run(argv)`: parsing, `--help` and usage errors (also those thrown by `body`) handled here. */
export function command(
  spec: CommandSpec,
  body: (p: Parsed) => Promise<number>,
): (argv: readonly string[]) => Promise<number> {
  return async (argv) => {
    const p = parse(spec, argv);
    if (typeof p === "number") return p;
    try {
      return await body(p);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      return usageFailed(spec, err);
    }
  };
}

function usageFailed(spec: CommandSpec, err: UsageError): number {
  const usage = helpText(spec).split("\n", 1)[0];
  process.stderr.write(
    `hftgate ${spec.name}: ${err.message}\n${usage}\n(hftgate ${spec.name} --help lists the options)\n`,
  );
  return 2;
}

/**
 * Parsing for a command's `run`: parses, answers `--help` (exit 0) and usage errors
 * (message on stderr, exit 2). Returns the parsed arguments, or the exit code when done.
 */
export function parse(spec: CommandSpec, argv: readonly string[]): Parsed | number {
  try {
    const p = parseCommand(spec, argv);
    if (p.help) {
      process.stdout.write(helpText(spec));
      return 0;
    }
    return p;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return usageFailed(spec, err);
  }
}

export function str(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === "string" ? v : undefined;
}

export function strs(p: Parsed, name: string): string[] {
  const v = p.values[name];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string");
  return typeof v === "string" ? [v] : [];
}

export function bool(p: Parsed, name: string): boolean {
  return p.values[name] === true;
}

/** A non-negative integer option, or the fallback; throws UsageError naming the option. */
export function int(p: Parsed, name: string, fallback: number): number;
export function int(p: Parsed, name: string, fallback?: number): number | undefined;
export function int(p: Parsed, name: string, fallback?: number): number | undefined {
  const v = str(p, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === "" || !Number.isInteger(n) || n < 0)
    throw new UsageError(`--${name} must be a non-negative integer (got ${JSON.stringify(v)})`);
  return n;
}

/** The file `hftgate start` writes its connection to (config `engine.stateFile`, this default). */
const STATE_FILE_DEFAULT = "var/gateway.json";

/** `--file`, for the commands that find a running gateway through its state file (demo, top). */
export const STATE_FILE_OPTION: OptionSpec = {
  type: "string",
  value: "FILE",
  help: `the state file hftgate start writes (default ${STATE_FILE_DEFAULT})`,
};

/** The state file `--file` names, else the default, as an absolute path. */
export function stateFileArg(p: Parsed): string {
  return resolve(str(p, "file") ?? STATE_FILE_DEFAULT);
}
