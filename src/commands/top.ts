/**
 * `hftgate top`: a live terminal view of a running gateway (sessions, live orders, recent fills and
 * rejects, per-stage latency, rate-limit credit, trading state, feed health) from its GET
 * /admin/state, redrawn every interval; `q` or Ctrl-C quits. `--once` prints one frame and exits.
 */
import { readFileSync } from "node:fs";
import type { Snapshot } from "../top/render.js";
import {
  bool,
  type CommandSpec,
  command,
  int,
  STATE_FILE_OPTION,
  stateFileArg,
  str,
  UsageError,
} from "./args.js";

export const spec: CommandSpec = {
  name: "top",
  summary: "a live view of a running gateway: sessions, orders, fills, rejects, latency, credit, feeds",
  options: {
    url: {
      type: "string",
      value: "http://HOST:PORT",
      help: "the gateway's HTTP address (else HFTGATE_HTTP_URL, else --file)",
    },
    token: { type: "string", value: "T", help: "the admin token (else HFTGATE_ADMIN_TOKEN, else --file)" },
    interval: { type: "string", value: "MS", help: "refresh interval (default 1000)" },
    once: { type: "boolean", help: "print one frame without colors and exit" },
    file: STATE_FILE_OPTION,
  },
  notes: ["The view shows every session's orders, so it needs the admin token. q or Ctrl-C quits."],
};

interface Target {
  url: string;
  token: string;
}

function target(url: string | undefined, token: string | undefined, file: string): Target {
  let state: Record<string, unknown> = {};
  try {
    state = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    // no state file: flags or the environment must say it
  }
  const u = url ?? process.env.HFTGATE_HTTP_URL ?? (state.httpUrl as string | undefined);
  const t = token ?? process.env.HFTGATE_ADMIN_TOKEN ?? (state.adminToken as string | undefined);
  if (u === undefined)
    throw new UsageError(
      `no gateway address: pass --url, set HFTGATE_HTTP_URL, or start the gateway so it writes ${file}`,
    );
  if (t === undefined)
    throw new UsageError(
      `no admin token: pass --token, set HFTGATE_ADMIN_TOKEN, or start the gateway so it writes ${file}`,
    );
  if (!/^https?:\/\//.test(u)) throw new UsageError(`--url must start with http:// (got ${u})`);
  return { url: u.replace(/\/+$/, ""), token: t };
}

class TopError extends Error {}

async function fetchState(t: Target): Promise<Snapshot> {
  let res: Response;
  try {
    res = await fetch(`${t.url}/admin/state`, {
      headers: { authorization: `Bearer ${t.token}` },
      signal: AbortSignal.timeout(3000),
    });
  } catch (err) {
    throw new TopError(`cannot reach ${t.url}: ${(err as Error).message}`);
  }
  if (res.status === 401) throw new TopError("the gateway refused the admin token");
  if (!res.ok) throw new TopError(`${t.url}/admin/state answered ${res.status}`);
  return (await res.json()) as Snapshot;
}

export const run = command(spec, async (a) => {
  const { renderTop } = await import("../top/render.js");
  const t = target(str(a, "url"), str(a, "token"), stateFileArg(a));
  const every = Math.max(100, int(a, "interval", 1000));
  if (bool(a, "once")) {
    try {
      process.stdout.write(`${renderTop(await fetchState(t), t.url, 200, false).join("\n")}\n`);
      return 0;
    } catch (err) {
      if (!(err instanceof TopError)) throw err;
      process.stderr.write(`hftgate top: ${err.message}\n`);
      return 2;
    }
  }
  const out = process.stdout;
  const tty = out.isTTY === true;
  const stdin = process.stdin;
  return new Promise<number>((done) => {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const stop = (code: number) => {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      if (tty) out.write("\x1b[?25h\n");
      done(code);
    };
    const draw = async () => {
      let body: string;
      try {
        // One row fewer than the terminal: the newline after the frame must not scroll its header off.
        // A terminal that reports no size (0) is not bounded.
        const rows = tty && out.rows > 0 ? out.rows - 1 : Number.POSITIVE_INFINITY;
        body = renderTop(await fetchState(t), t.url, out.columns || 120, tty, rows).join("\n");
      } catch (err) {
        if (!(err instanceof TopError)) throw err;
        body = `hftgate top: ${err.message} (retrying every ${every} ms; q quits)`;
      }
      if (stopped) return;
      out.write(tty ? `\x1b[H\x1b[2J${body}\n` : `${body}\n\n`);
      timer = setTimeout(() => void draw(), every);
    };
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.on("data", (d: Buffer) => {
      const k = d.toString();
      if (k === "q" || k === "Q" || k === "\x03") stop(0);
    });
    process.once("SIGINT", () => stop(0));
    process.once("SIGTERM", () => stop(0));
    if (tty) out.write("\x1b[?25l");
    void draw();
  });
});
