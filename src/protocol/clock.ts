/**
 * Timestamps on the wire: nanoseconds of the host's monotonic clock (Node's process.hrtime, i.e.
 * CLOCK_MONOTONIC on Linux), comparable between processes on the same host. They stay below 2^53
 * while the host's uptime is under ~104 days; LogonAck also carries wall-clock ms for mapping.
 */
export function monoNs(): number {
  return Number(process.hrtime.bigint());
}
