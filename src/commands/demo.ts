/**
 * `hftgate demo` / `npm run demo`: a small strategy that trades through a running gateway and prints
 * what happened with per-order latencies. Exit 0 when every order reached a final state, 1 when some
 * did not, 2 when the gateway cannot be reached (or is not configured).
 */
import { resolve } from "node:path";
import { formatReport } from "../demo/report.js";
import { runDemo } from "../demo/strategy.js";
import { DemoError, resolveTarget } from "../demo/target.js";
import { flag, parseArgs } from "./args.js";

const USAGE = `usage: hftgate demo [--url ws://HOST:PORT] [--token T] [--venue URL] [--session NAME] [--live]
  connection: flags, else HFTGATE_URL / HFTGATE_TOKEN, else var/gateway.json (written by hftgate start)
  --venue: the venue's base URL for best bid/ask (else HFTGATE_VENUE_URL or var/gateway.json)
  --live: allow placing orders when the venue is not on this host
`;

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (flag(args, "help") !== undefined || flag(args, "h") !== undefined) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    const target = resolveTarget({
      url: flag(args, "url"),
      token: flag(args, "token"),
      venue: flag(args, "venue"),
      env: process.env,
      file: resolve(flag(args, "file") ?? "var/gateway.json"),
    });
    const result = await runDemo({
      url: target.url,
      token: target.token,
      venue: target.venue,
      live: flag(args, "live") === "true",
      // `hftgate start` on its embedded simulator does not name the venue URL in its state file yet:
      // then the HFT price comes from one minimum-size market order.
      probe: target.venue === undefined && target.venueKind === "sim",
      sessionName: flag(args, "session"),
      log: (line) => process.stderr.write(`demo: ${line}\n`),
    });
    process.stdout.write(formatReport(result));
    return result.allFinal ? 0 : 1;
  } catch (err) {
    if (err instanceof DemoError) {
      process.stderr.write(`hftgate demo: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
