/**
 * Timestamps on the wire: nanoseconds of the host's monotonic clock (CLOCK_MONOTONIC on Linux, the
 * clock of Node's process.hrtime), comparable between processes on the same host. They stay below 2^53
 * while the host's uptime is under ~104 days; LogonAck also carries wall-clock ms for mapping.
 */
import { performance } from "node:perf_hooks";

/**
 * `performance.now()` reads the same clock (libuv's uv_hrtime) as ms since this process's time origin,
 * as a plain double: no BigInt per call as `process.hrtime.bigint()` makes, and cheaper (several calls
 * per order). The origin's place on the host clock is measured once, from the tightest of 100
 * hrtime readings around it (within a fraction of a µs).
 */
const ORIGIN_NS = originNs();

function originNs(): number {
  performance.now(); // the first call sets up its binding
  let best = Number.POSITIVE_INFINITY;
  let origin = 0;
  for (let i = 0; i < 100; i++) {
    const a = process.hrtime.bigint();
    const ms = performance.now();
    const b = process.hrtime.bigint();
    const span = Number(b - a);
    if (span < best) {
      best = span;
      origin = Number(a) + span / 2 - ms * 1e6;
    }
  }
  return origin;
}

export function monoNs(): number {
  return Math.round(ORIGIN_NS + performance.now() * 1e6);
}
