#!/usr/bin/env node
/** `hftgate <command> [options]`: dispatches to src/commands (the table is in src/commands/index.ts). */
import { loadCommand, usage } from "./commands/index.js";

async function main(): Promise<void> {
  const [name, ...rest] = process.argv.slice(2);
  if (name === undefined || name === "--help" || name === "-h") {
    process.stdout.write(await usage());
    return;
  }
  if (name === "help") {
    const cmd = rest[0] === undefined ? undefined : await loadCommand(rest[0]);
    if (cmd === undefined) process.stdout.write(await usage());
    else process.exitCode = await cmd.run(["--help"]);
    return;
  }
  const cmd = await loadCommand(name);
  if (cmd === undefined) {
    process.stderr.write(`hftgate: unknown command '${name}'\n\n${await usage()}`);
    process.exitCode = 2;
    return;
  }
  process.exitCode = await cmd.run(rest);
}

main().catch((err: unknown) => {
  process.stderr.write(`hftgate: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
