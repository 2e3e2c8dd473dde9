#!/usr/bin/env node
/**
 * `hftgate <command> [args]`. Each command lives in its own module under src/commands/ and exports
 * `run(argv)`; this file only dispatches, so adding a command never touches another's code.
 */
const COMMANDS: Record<string, { file: string; help: string }> = {
  start: { file: "start", help: "run the gateway (embedded simulator venue unless configured otherwise)" },
  sim: { file: "sim", help: "run the exchange simulator standalone: --port N [--api-key HEX]..." },
  demo: { file: "demo", help: "a small strategy that trades through a running gateway" },
  keygen: { file: "keygen", help: "print a new Ed25519 key pair as JSON" },
  sign: {
    file: "sign",
    help: "sign a request: --method M --path P --epoch E (secret from HFTGATE_SECRET_KEY)",
  },
  replay: { file: "replay", help: "print order histories from a journal file" },
  bench: { file: "bench", help: "run the benchmark suites" },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(8)} ${c.help}`);
  return `usage: hftgate <command> [options]\n\ncommands:\n${lines.join("\n")}\n`;
}

async function main(): Promise<void> {
  const [name, ...rest] = process.argv.slice(2);
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(usage());
    return;
  }
  const cmd = COMMANDS[name];
  if (cmd === undefined) {
    process.stderr.write(`hftgate: unknown command '${name}'\n\n${usage()}`);
    process.exitCode = 2;
    return;
  }
  const mod = (await import(`./commands/${cmd.file}.js`)) as {
    run(argv: string[]): Promise<number | undefined>;
  };
  const code = await mod.run(rest);
  if (typeof code === "number") process.exitCode = code;
}

main().catch((err: unknown) => {
  process.stderr.write(`hftgate: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
