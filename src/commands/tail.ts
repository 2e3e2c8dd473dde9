/**
 * `hftgate tail`: prints an account's drop copy live (docs/bus.md §4), from the start of what the
 * stream retains or from `--from SEQ` (the last printed sequence + 1 continues a stopped tail exactly).
 * `--status` prints every account's trading state on the bus instead.
 */
import { bool, type CommandSpec, command, str, UsageError } from "./args.js";

export const spec: CommandSpec = {
  name: "tail",
  summary: "print an account's drop copy from the NATS bus live (or every account's trading state)",
  options: {
    servers: {
      type: "string",
      value: "LIST",
      help: "NATS servers, host:port comma-separated (env HFTGATE_BUS_NATS_SERVERS)",
    },
    user: { type: "string", value: "NAME", help: "NATS user (env HFTGATE_BUS_NATS_USER)" },
    account: { type: "string", value: "NAME", help: "the account whose drop copy to print" },
    from: { type: "string", value: "SEQ", help: "first stream sequence (default 1: everything retained)" },
    count: { type: "string", value: "N", help: "stop after N events (default: until Ctrl-C)" },
    json: { type: "boolean", help: "one JSON object per line instead of text" },
    status: { type: "boolean", help: "print every account's trading state on the bus and exit" },
  },
  notes: [
    "The NATS password comes from HFTGATE_BUS_NATS_PASSWORD. A tail stopped after sequence S",
    "continues exactly with --from S+1 (docs/bus.md).",
  ],
};

export const run = command(spec, async (args) => {
  const v = {
    servers: str(args, "servers"),
    user: str(args, "user"),
    account: str(args, "account"),
    from: str(args, "from"),
    count: str(args, "count"),
    json: bool(args, "json"),
    status: bool(args, "status"),
  };
  // Loaded here, so `--help` needs only the spec.
  const { connect } = await import("@nats-io/transport-node");
  const { accountStates } = await import("../bus/admin.js");
  const { inboxOf } = await import("../bus/permissions.js");
  const { readDropCopy } = await import("../bus/reader.js");
  const { checkAccount } = await import("../bus/subjects.js");
  const env = process.env;
  const servers = String(v.servers ?? env.HFTGATE_BUS_NATS_SERVERS ?? "")
    .split(",")
    .filter(Boolean);
  if (servers.length === 0) throw new UsageError("no NATS servers (--servers or HFTGATE_BUS_NATS_SERVERS)");
  const user = v.user ?? env.HFTGATE_BUS_NATS_USER;
  const nc = await connect({
    servers,
    ...(user ? { user, pass: env.HFTGATE_BUS_NATS_PASSWORD ?? "", inboxPrefix: inboxOf(user) } : {}),
    name: "hftgate-tail",
  });
  try {
    if (v.status) {
      for (const s of await accountStates(nc))
        process.stdout.write(
          `${s.account}\t${["?", "active", "reducing", "halted"][s.state] ?? s.state}\t${s.text}\n`,
        );
      return 0;
    }
    if (v.account === undefined) throw new UsageError("--account is required (or --status)");
    const account = checkAccount(v.account);
    const count = v.count === undefined ? Number.POSITIVE_INFINITY : Number(v.count);
    const fromSeq = v.from === undefined ? 1 : Number(v.from);
    if (!(count > 0) || !Number.isSafeInteger(fromSeq) || fromSeq < 1)
      throw new UsageError("--count and --from take positive integers");
    let n = 0;
    let done: () => void = () => {};
    const finished = new Promise<void>((r) => {
      done = r;
    });
    const reading = await readDropCopy(nc, {
      account,
      fromSeq,
      onEvent: (e) => {
        if (n >= count) return;
        const line = v.json
          ? JSON.stringify({
              seq: e.streamSeq,
              dcSeq: e.dcSeq,
              timeMs: e.timeMs,
              session: e.session,
              type: e.msg.name,
              seqInSession: e.msg.header.seq,
              body: e.msg.body,
            })
          : `#${e.streamSeq} dc=${e.dcSeq} ${new Date(e.timeMs).toISOString()} ${e.session || "(account)"} ${e.msg.name} ${JSON.stringify(e.msg.body)}`;
        process.stdout.write(`${line}\n`);
        if (++n >= count) done();
      },
    });
    process.once("SIGINT", () => done());
    await finished;
    await reading.stop();
    return 0;
  } finally {
    await nc.close();
  }
});
