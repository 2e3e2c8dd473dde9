/**
 * The e2e bench's per-process counters read /proc: a process's CPU time, and its wake-ups and syscalls
 * (context switches of its main thread, read and write syscalls of all its threads).
 */
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cpuTimeNs, threadCpuNs, wakeCounters } from "../../bench/lib/placement.js";

const linux = process.platform === "linux";

describe.runIf(linux)("bench /proc counters", () => {
  it("counts this process's write and read syscalls", () => {
    const fd = openSync("/dev/null", "r+");
    const b = Buffer.alloc(8);
    try {
      const [, , r0, w0] = wakeCounters(process.pid);
      for (let i = 0; i < 50; i++) writeSync(fd, b);
      for (let i = 0; i < 30; i++) readSync(fd, b);
      const [, , r1, w1] = wakeCounters(process.pid);
      // Reading /proc itself is two more reads per call; nothing else in this thread writes meanwhile.
      expect(w1 - w0).toBeGreaterThanOrEqual(50);
      expect(w1 - w0).toBeLessThan(60);
      expect(r1 - r0).toBeGreaterThanOrEqual(30);
    } finally {
      closeSync(fd);
    }
  });

  it("counts the main thread's voluntary switches when it sleeps", async () => {
    const [v0] = wakeCounters(process.pid);
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 5));
    const [v1] = wakeCounters(process.pid);
    expect(v1 - v0).toBeGreaterThanOrEqual(5);
  });

  it("reports CPU time in ns that grows with work, and NaN for a process that does not exist", () => {
    const t0 = threadCpuNs(process.pid, process.pid);
    const all0 = cpuTimeNs(process.pid);
    // Spin until this thread's own count shows 5 ms of CPU (on a loaded machine that takes longer
    // than 5 ms of wall time), bounded by 5 s.
    const until = performance.now() + 5_000;
    let t1 = t0;
    while (t1 - t0 < 5e6 && performance.now() < until) t1 = threadCpuNs(process.pid, process.pid);
    expect(t1 - t0).toBeGreaterThanOrEqual(5e6);
    // The process's count (all its threads) holds its main thread's. Not a difference of two sums: a
    // thread of the test runner that ends between them takes its time out of the second.
    const main = threadCpuNs(process.pid, process.pid);
    expect(all0).toBeGreaterThan(0);
    expect(cpuTimeNs(process.pid)).toBeGreaterThanOrEqual(main);
    expect(wakeCounters(2 ** 22 + 7).every(Number.isNaN)).toBe(true);
    expect(Number.isNaN(cpuTimeNs(2 ** 22 + 7))).toBe(true);
  });
});
