/**
 * Every `hftgate` subcommand, through the built CLI as a user runs it: `--help` prints the command's
 * options and exits 0 without doing anything else; an unknown option, a missing option value or a
 * stray argument is refused with a message on stderr and exit 2.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { helpText, parseCommand, UsageError } from "../../src/commands/args.js";
import { COMMANDS, loadCommand } from "../../src/commands/index.js";

const CLI = resolve(import.meta.dirname, "..", "..", "dist", "src", "cli.js");

interface Run {
  code: number;
  out: string;
  err: string;
}

function cli(args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      // No HFTGATE_* variables, and a timeout: a command that starts serving instead of answering fails.
      { env: { PATH: process.env.PATH ?? "" }, timeout: 15_000, encoding: "utf8" },
      (err, out, errOut) => {
        const code = err === null ? 0 : typeof err.code === "number" ? err.code : -1;
        done({ code, out, err: errOut });
      },
    );
  });
}

const names = Object.keys(COMMANDS);

describe.skipIf(!existsSync(CLI))("hftgate subcommands (built CLI)", () => {
  it("lists every command in hftgate --help", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    for (const n of names) expect(r.out).toMatch(new RegExp(`^  ${n} +\\S`, "m"));
  });

  it.each(names)("hftgate %s --help prints its options and exits 0", async (name) => {
    const spec = (await loadCommand(name))!.spec;
    const r = await cli([name, "--help"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.startsWith(`usage: hftgate ${name}`)).toBe(true);
    for (const opt of [...Object.keys(spec.options), "help"]) expect(r.out).toContain(`--${opt}`);
    expect(r.out).toBe(helpText(spec));
  });

  it.each(names)("hftgate %s refuses an unknown option with exit 2", async (name) => {
    const r = await cli([name, "--no-such-option", "1"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("Unknown option '--no-such-option'");
    expect(r.err).toContain(`hftgate ${name} --help`);
    expect(r.out).toBe("");
  });

  it("refuses an unknown command, a missing value and a stray argument", async () => {
    const [cmd, missing, stray] = await Promise.all([
      cli(["no-such-command"]),
      cli(["sim", "--port"]),
      cli(["start", "extra"]),
    ]);
    expect(cmd.code).toBe(2);
    expect(cmd.err).toContain("unknown command 'no-such-command'");
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/--port.*argument missing/);
    expect(stray.code).toBe(2);
    expect(stray.err).toContain("Unexpected argument 'extra'");
  });

  it("hftgate help <command> and -h are the command's --help", async () => {
    const [a, b, c] = await Promise.all([
      cli(["help", "replay"]),
      cli(["replay", "--help"]),
      cli(["replay", "-h"]),
    ]);
    expect(a.code).toBe(0);
    expect(a.out).toBe(b.out);
    expect(c).toEqual(b);
  });
});

describe("argument parsing", () => {
  const spec = {
    name: "x",
    summary: "test",
    positionals: "<file>",
    minPositionals: 1,
    options: {
      port: { type: "string", value: "N", help: "a port" },
      key: { type: "string", multiple: true, help: "keys" },
      live: { type: "boolean", help: "flag" },
    },
  } as const;

  it("reads values, repeated options, booleans and positionals", () => {
    const p = parseCommand(spec, ["f", "--port", "7", "--key=a", "--key", "b", "--live"]);
    expect(p.values).toMatchObject({ port: "7", key: ["a", "b"], live: true });
    expect(p.positionals).toEqual(["f"]);
    expect(p.help).toBe(false);
  });

  it("refuses unknown options, a boolean given a value, and a missing positional", () => {
    expect(() => parseCommand(spec, ["f", "--nope"])).toThrow(UsageError);
    expect(() => parseCommand(spec, ["f", "--live=yes"])).toThrow(UsageError);
    expect(() => parseCommand(spec, [])).toThrow(/missing argument: <file>/);
    expect(parseCommand(spec, ["--help"]).help).toBe(true);
  });
});
