/**
 * The allocation-profile reader (bench/lib/heapProfile.ts): bytes under a bench frame count as the
 * bench's, whatever they call; the rest by area and function; and a real sampling profile of this
 * process, taken around a known allocation, is read with that allocation under its own function.
 */
import { Session } from "node:inspector";
import { describe, expect, it } from "vitest";
import { type HeapProfile, summarizeHeap } from "../../bench/lib/heapProfile.js";

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

describe("heapProfile", () => {
  it("splits the bench's own allocations from the rest", () => {
    const p: HeapProfile = {
      head: {
        callFrame: frame("(root)", ""),
        selfSize: 0,
        children: [
          {
            callFrame: frame("create", "file:///repo/dist/src/orders/store.js"),
            selfSize: 100,
            children: [
              {
                callFrame: frame("timeBlock", "file:///repo/dist/bench/lib/floors.js"),
                selfSize: 50,
                children: [{ callFrame: frame("slice", "node:buffer"), selfSize: 30, children: [] }],
              },
            ],
          },
          { callFrame: frame("slice", "node:buffer"), selfSize: 20, children: [] },
        ],
      },
    };
    const s = summarizeHeap(p);
    expect(s.total).toBe(200);
    expect(s.bench).toBe(80);
    expect(s.areas).toEqual([
      ["src/orders", 100],
      ["node:buffer", 20],
    ]);
    expect(s.functions[0]).toEqual(["create src/orders:1", 100]);
  });

  it("reads a real sampling profile: a known allocation under its own function", async () => {
    const ses = new Session();
    ses.connect();
    const post = (m: string, params?: object) =>
      new Promise<unknown>((ok, fail) => ses.post(m, params, (e, r) => (e ? fail(e) : ok(r))));
    await post("HeapProfiler.startSampling", {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    let keep = 0;
    function allocateKnownArrays(): void {
      // 20,000 arrays of 64 small integers, on the heap: at least 20,000 × 512 bytes of elements.
      for (let i = 0; i < 20_000; i++) keep += new Array<number>(64).fill(i).length;
    }
    allocateKnownArrays();
    const { profile } = (await post("HeapProfiler.stopSampling")) as { profile: HeapProfile };
    ses.disconnect();
    expect(keep).toBe(1_280_000);
    const s = summarizeHeap(profile);
    const mine = s.functions
      .filter(([f]) => f.startsWith("allocateKnownArrays "))
      .reduce((t, [, b]) => t + b, 0);
    // Sampled, so not exact: within a factor of two of the elements' bytes.
    expect(mine).toBeGreaterThan(20_000 * 512 * 0.5);
    expect(mine).toBeLessThan(20_000 * 512 * 4);
  });
});
