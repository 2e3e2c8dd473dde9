/**
 * The bench's call counter: V8's precise coverage read into calls per operation, by origin; and the
 * live counter in this process counts a function called a known number of times.
 */
import { describe, expect, it } from "vitest";
import { callCountHandlers, countCalls } from "../../bench/lib/calls.js";

const fn = (functionName: string, count: number) => ({
  functionName,
  ranges: [{ startOffset: 0, count }],
});

describe("bench call counts", () => {
  it("splits calls per operation into the project's, Node's and the dependencies'", () => {
    const r = countCalls(
      [
        { url: "file:///w/dist/src/journal/codec.js", functions: [fn("encode", 400), fn("rare", 3)] },
        { url: "node:internal/buffer", functions: [fn("checkInt", 800), fn("", 0)] },
        { url: "file:///w/node_modules/undici/lib/x.js", functions: [fn("dispatch", 100)] },
      ],
      100,
    );
    expect(r.calls_per_op).toEqual({ all: 13, project: 4, node: 8, dependencies: 1 });
    expect(r.functions_every_op).toEqual({ all: 3, project: 1, node: 1, dependencies: 1 });
    expect(r.project_every_op).toEqual(["encode src/journal/codec.js"]);
    expect(r.top[0]).toBe("checkInt node:internal/buffer: 8");
  });

  it("counts the calls of a function in this process over a block", async () => {
    const h = callCountHandlers();
    const marker = (x: number) => (x * 7) % 13;
    await h.callsStart!({});
    let acc = 0;
    for (let i = 0; i < 250; i++) acc += marker(i);
    const r = (await h.callsStop!({ operations: 50 })) as ReturnType<typeof countCalls>;
    expect(acc).toBeGreaterThan(0);
    // 250 calls over 50 operations: 5 per operation, in this test file (the project's code).
    const line = r.top.find((t) => t.startsWith("marker "));
    expect(line, r.top.join("\n")).toMatch(/: 5$/);
  });
});
