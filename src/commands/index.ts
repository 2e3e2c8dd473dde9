/**
 * The `hftgate` subcommands. Each lives in its own module (src/commands/<file>.ts) exporting `spec`
 * (its options and help, see args.ts) and `run(argv)`; adding a command is one row here and one module.
 * A module imports what its work needs inside `run`, so `--help` loads only the specs.
 */
import type { CommandSpec } from "./args.js";

export interface CommandModule {
  readonly spec: CommandSpec;
  run(argv: readonly string[]): Promise<number>;
}

/** name -> module file, in the order `hftgate --help` lists them. */
export const COMMANDS: Readonly<Record<string, string>> = {
  start: "start",
  sim: "sim",
  demo: "demo",
  keygen: "keygen",
  sign: "sign",
  replay: "replay",
  top: "top",
  bench: "bench",
  tail: "tail",
  config: "config",
  bus: "bus",
  preflight: "preflight",
};

export async function loadCommand(name: string): Promise<CommandModule | undefined> {
  const file = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (file === undefined) return undefined;
  return (await import(/* @vite-ignore */ `./${file}.js`)) as CommandModule;
}

export async function usage(): Promise<string> {
  const rows: string[] = [];
  for (const name of Object.keys(COMMANDS)) {
    const m = await loadCommand(name);
    rows.push(`  ${name.padEnd(8)} ${m?.spec.summary ?? ""}`);
  }
  return `usage: hftgate <command> [options]\n\ncommands:\n${rows.join("\n")}\n\nhftgate <command> --help shows a command's options.\n`;
}
