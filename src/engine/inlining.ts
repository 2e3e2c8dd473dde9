/**
 * V8's inlining budget for the order path (`engine.inlining`). The create and cancel paths run through
 * many small functions in many modules; with V8's default budgets TurboFan stops inlining a chain
 * after ~920 bytes of callee bytecode, so a sequential order still makes hundreds of calls and its
 * code is spread over many compiled functions. A wider budget lets the optimizer fuse more of each
 * path into its callers (docs/benchmarks.md, "A wider inlining budget", has the paired runs).
 *
 * The flags are process-wide and affect functions optimized after they are set, so the engine sets
 * them first thing at start, before any order-path code has run hot. `v8` leaves the process's flags
 * as they are (V8's defaults, or whatever the command line gave).
 */
import { setFlagsFromString } from "node:v8";

/** The V8 flags of each `engine.inlining` setting. */
export const INLINING_FLAGS = {
  v8: [],
  // About twice V8's budgets (460, 920, 4,600). Four times as much fused no more of the order path's
  // cost away in paired runs and made the longest optimizing compile ~10× longer (~100 ms).
  wide: [
    "--max-inlined-bytecode-size=600",
    "--max-inlined-bytecode-size-cumulative=2000",
    "--max-inlined-bytecode-size-absolute=6000",
  ],
} as const satisfies Record<string, readonly string[]>;

export type InliningMode = keyof typeof INLINING_FLAGS;

/** Sets the flags of `mode` for this process; returns them (for the start log). */
export function applyInlining(mode: InliningMode): readonly string[] {
  const flags = INLINING_FLAGS[mode];
  for (const f of flags) setFlagsFromString(f);
  return flags;
}
