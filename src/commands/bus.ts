/**
 * `hftgate bus users`: the nats-server `authorization` block for the bus (docs/bus.md §6), from the one
 * generator of the rights (`usersFor` / `authorizationBlock` in src/bus/permissions.ts). Passwords are
 * nats-server variable references (`$NATS_PASSWORD_GW_A`, read from nats-server's environment) unless
 * `--random-passwords` prints generated ones.
 */
import { bool, type CommandSpec, command, strs, UsageError } from "./args.js";

export const spec: CommandSpec = {
  name: "bus",
  summary: "print the nats-server users and rights of the NATS bus (hftgate bus users --account A)",
  positionals: "users",
  minPositionals: 1,
  options: {
    account: {
      type: "string",
      multiple: true,
      value: "NAME",
      help: "an account on the bus (repeatable; comma-separated lists too)",
    },
    role: {
      type: "string",
      multiple: true,
      value: "ROLE",
      help: "gateway, strategy, reader, admin (repeatable; default all four)",
    },
    "strategy-drop-copy": { type: "boolean", help: "strategies may also read their account's drop copy" },
    "random-passwords": {
      type: "boolean",
      help: "write generated passwords into the block instead of $NATS_PASSWORD_<USER> references",
    },
  },
  notes: [
    "Users: gw-<account>, strat-<account>, reader-<account>, admin. Include the output in the",
    'nats-server configuration (include "users.conf"); with the default references, set',
    "NATS_PASSWORD_GW_A=... (one per user) in nats-server's environment and the same password as",
    "bus.nats.password (HFTGATE_BUS_NATS_PASSWORD) of the gateway of A.",
  ],
};

export const run = command(spec, async (args) => {
  const { ROLES, authorizationBlock, usersFor } = await import("../bus/permissions.js");
  const { checkAccount } = await import("../bus/subjects.js");
  const sub = args.positionals[0];
  if (sub !== "users" || args.positionals.length > 1)
    throw new UsageError(`unknown subcommand '${args.positionals.join(" ")}' (users)`);
  const split = (name: string) =>
    strs(args, name)
      .flatMap((s) => s.split(","))
      .map((s) => s.trim())
      .filter((s) => s !== "");
  const accounts = split("account");
  if (accounts.length === 0) throw new UsageError("--account is required");
  for (const a of accounts) {
    try {
      checkAccount(a);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  const asked = split("role");
  for (const r of asked)
    if (!(ROLES as readonly string[]).includes(r))
      throw new UsageError(`unknown role '${r}' (one of ${ROLES.join(", ")})`);
  const roles = ROLES.filter((r) => asked.length === 0 || asked.includes(r));
  let password: ((user: string) => string) | undefined;
  if (bool(args, "random-passwords")) {
    const { randomBytes } = await import("node:crypto");
    password = () => randomBytes(18).toString("base64url");
  }
  const users = usersFor({ accounts, roles, strategyDropCopy: bool(args, "strategy-drop-copy"), password });
  process.stdout.write(authorizationBlock(users));
  return 0;
});
