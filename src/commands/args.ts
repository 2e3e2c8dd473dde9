/** Minimal `--flag value` / `--flag=value` / `--bool` parser; repeated flags collect into arrays. */
export interface ParsedArgs {
  readonly flags: Map<string, string[]>;
  readonly positionals: string[];
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const flags = new Map<string, string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    let key: string;
    let value: string;
    if (eq !== -1) {
      key = a.slice(2, eq);
      value = a.slice(eq + 1);
    } else {
      key = a.slice(2);
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("--")) {
        value = next;
        i++;
      } else {
        value = "true";
      }
    }
    const list = flags.get(key) ?? [];
    list.push(value);
    flags.set(key, list);
  }
  return { flags, positionals };
}

export function flag(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return v === undefined ? undefined : v[v.length - 1];
}

export function flagAll(args: ParsedArgs, name: string): string[] {
  return args.flags.get(name) ?? [];
}
