/**
 * `hftgate demo` / `npm run demo`: a small strategy that trades through a running gateway and prints
 * what happened with per-order latencies. Exit 0 when every order reached a final state, 1 when some
 * did not, 2 when the gateway cannot be reached (or is not configured).
 */
import { DemoError, resolveTarget } from "../demo/target.js";
import { bool, type CommandSpec, command, STATE_FILE_OPTION, stateFileArg, str } from "./args.js";

export const spec: CommandSpec = {
  name: "demo",
  summary: "a small strategy that places and cancels a few orders through a running gateway",
  options: {
    url: {
      type: "string",
      value: "ws://HOST:PORT",
      help: "the gateway's command API (else HFTGATE_URL, else --file)",
    },
    token: { type: "string", value: "T", help: "logon token (else HFTGATE_TOKEN, else --file)" },
    venue: {
      type: "string",
      value: "URL",
      help: "read best bid/ask from the venue's public data at this URL instead of through the gateway",
    },
    session: { type: "string", value: "NAME", help: "session name (default: a fresh one)" },
    live: { type: "boolean", help: "allow placing orders when the venue is not on this host" },
    file: STATE_FILE_OPTION,
  },
  notes: [
    "Exit 0 when every order reached a final state, 1 when some did not, 2 when the gateway cannot be reached.",
  ],
};

export const run = command(spec, async (args) => {
  const { formatReport } = await import("../demo/report.js");
  const { runDemo } = await import("../demo/strategy.js");
  try {
    const target = resolveTarget({
      url: str(args, "url"),
      token: str(args, "token"),
      venue: str(args, "venue"),
      env: process.env,
      file: stateFileArg(args),
    });
    // Prices come through the gateway's market data unless a venue URL is named explicitly.
    const explicitVenue = str(args, "venue") !== undefined || !!process.env.HFTGATE_VENUE_URL;
    const result = await runDemo({
      url: target.url,
      token: target.token,
      venue: explicitVenue ? target.venue : undefined,
      live: bool(args, "live"),
      venueKind: target.venueKind,
      // On the embedded simulator, an instrument the gateway has no book for yet is priced by one
      // minimum-size market order.
      probe: target.venueKind === "sim",
      sessionName: str(args, "session"),
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
});
