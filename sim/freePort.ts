/**
 * A free loopback TCP port for a server that is told its port before it starts (nats-server, a gateway
 * child process, the FIX acceptor in a test). A port the kernel hands out for `listen(0)` comes from
 * the ephemeral range, the same range every outgoing connection's local port is taken from, so in a
 * busy test run a port found free is often someone's client port a moment later. Ports are picked
 * below that range instead (at random, checked by binding them), where only servers that name their
 * port live; when none is found there, the kernel's choice.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Ports tried below the ephemeral range: from here up to the range's first port. */
const LOWEST = 10_000;
const TRIES = 20;

/** The ephemeral range's first port (Linux's `ip_local_port_range`), or undefined elsewhere. */
export function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST ? low : undefined;
  } catch {
    return undefined;
  }
}

const low = ephemeralLow();
/** Ports handed out by this process: never the same one twice while another is still fresh. */
const handedOut = new Set<number>();

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(undefined));
    s.listen(port, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolve(a !== null && typeof a === "object" ? a.port : undefined));
    });
  });
}

export async function freePort(): Promise<number> {
  if (low !== undefined) {
    for (let i = 0; i < TRIES; i++) {
      const p = LOWEST + Math.floor(Math.random() * (low - LOWEST));
      if (handedOut.has(p)) continue;
      if ((await tryListen(p)) === p) {
        if (handedOut.size > 1_000) handedOut.clear();
        handedOut.add(p);
        return p;
      }
    }
  }
  const p = await tryListen(0);
  if (p === undefined) throw new Error("no free loopback port");
  return p;
}
