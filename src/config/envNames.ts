/**
 * `HFTGATE_*` environment names that are not configuration knobs but are read by other parts of the
 * project (clients, benchmarks, test harnesses). `hftgate start` refuses any other unknown
 * `HFTGATE_*` name (a misspelled knob would otherwise be ignored); these pass, as a test harness or a
 * client shell may set them for the whole process tree. A test keeps this list complete.
 */
export interface OtherEnvName {
  readonly name: string;
  /** Who reads it. */
  readonly readBy: "client" | "bench" | "test";
  readonly doc: string;
}

export const OTHER_ENV_NAMES: readonly OtherEnvName[] = [
  { name: "HFTGATE_URL", readBy: "client", doc: "command API URL for `hftgate demo` and the examples" },
  { name: "HFTGATE_HTTP_URL", readBy: "client", doc: "the gateway's HTTP address for `hftgate top`" },
  {
    name: "HFTGATE_VENUE_URL",
    readBy: "client",
    doc: "the venue's REST base URL for the demo's market prices",
  },
  { name: "HFTGATE_BENCH_PROFILE", readBy: "bench", doc: "directory for CPU profiles of the gateway" },
  {
    name: "HFTGATE_BENCH_PROFILE_HEAP",
    readBy: "bench",
    doc: "1: the profiles of HFTGATE_BENCH_PROFILE sample allocations (collected ones included) instead of CPU",
  },
  {
    name: "HFTGATE_BENCH_GATEWAY_B",
    readBy: "bench",
    doc: "a build's directory: the e2e suite also runs this build's and that build's gateways side by side (A/B, `vs_gateway`)",
  },
  {
    name: "HFTGATE_BENCH_CALLS",
    readBy: "bench",
    doc: "1: the e2e suite counts the JavaScript calls per sequential order of the gateway and the bare forwarders (V8 precise coverage, after the timed phases)",
  },
  {
    name: "HFTGATE_BENCH_BARE_IN_GATEWAY",
    readBy: "bench",
    doc: "1: the e2e suite also runs a journaled bare forwarder inside the gateway's process, driven and counted like the others (diagnosis)",
  },
  {
    name: "HFTGATE_BENCH_BARE_WORK",
    readBy: "bench",
    doc: "1 (or a list such as work,work-store): the e2e suite also runs the bare forwarder doing the gateway's per-order component work, whole or with components left out (bench/lib/bareWork.ts; diagnosis)",
  },
  {
    name: "HFTGATE_BENCH_ROTATE_ALL",
    readBy: "bench",
    doc: "0: the e2e suite's forwarders (the gateway's same-driver session, the bare forwarders) keep fixed places in its timed blocks, as runs before the default changed did; by default they take turns at going first, rotated every block",
  },
  {
    name: "HFTGATE_BENCH_BARE_POLLUTE_KB",
    readBy: "bench",
    doc: "diagnosis: the journal-off bare forwarder writes this many KB of fresh memory (a 64 MB ring) after each answer",
  },
  {
    name: "HFTGATE_BENCH_BARE_CODE_FNS",
    readBy: "bench",
    doc: "diagnosis: the journal-off bare forwarder runs this many distinct generated functions after each answer (a longer code path)",
  },
  {
    name: "HFTGATE_BENCH_BARE_SPIN_US",
    readBy: "bench",
    doc: "diagnosis: the journal-off bare forwarder burns this many µs of CPU per order (before its HTTP write; after its answer with HFTGATE_BENCH_BARE_SPIN_AT=after)",
  },
  {
    name: "HFTGATE_BENCH_BARE_SPIN_AT",
    readBy: "bench",
    doc: "after: HFTGATE_BENCH_BARE_SPIN_US is spent after the answer is sent; otherwise before the HTTP write",
  },
  {
    name: "HFTGATE_BENCH_GATEWAY_B_FIRST",
    readBy: "bench",
    doc: "1 or 0: the A/B run's gateway B (1) or A (0) starts, warms and is driven first; unset: a coin toss per run",
  },
  {
    name: "HFTGATE_BENCH_GATEWAY_B_NODE_ARGS",
    readBy: "bench",
    doc: "Node flags for the A/B run's gateway B only (space-separated): a flag against none on one build",
  },
  {
    name: "HFTGATE_BENCH_GATEWAY_B_OVERRIDES",
    readBy: "bench",
    doc: "JSON config knob overrides for the A/B run's gateway B only: a setting against none on one build",
  },
  {
    name: "HFTGATE_BENCH_GATEWAY_NODE_ARGS",
    readBy: "bench",
    doc: "Node flags for the bench's gateway process only (space-separated; diagnosis)",
  },
  { name: "HFTGATE_BENCH_OVERRIDES", readBy: "bench", doc: "JSON knob overrides for A/B runs" },
  {
    name: "HFTGATE_BENCH_PENDING_UPDATES",
    readBy: "bench",
    doc: "1: the e2e same-driver session logs on without NoPendingUpdates (A/B of the PendingCancel)",
  },
  { name: "HFTGATE_BENCH_E2E", readBy: "bench", doc: "runs only the end-to-end configurations matching it" },
  { name: "HFTGATE_BENCH_SIZES", readBy: "bench", doc: "JSON phase sizes (smaller runs for diagnosis)" },
  { name: "HFTGATE_BENCH_DIR", readBy: "bench", doc: "directory of the journal benchmark's files" },
  {
    name: "HFTGATE_BENCH_RESTART_MB",
    readBy: "bench",
    doc: "MB of journal history the restart bench writes (default 1024)",
  },
  {
    name: "HFTGATE_BENCH_RESTART_RUNS",
    readBy: "bench",
    doc: "starts the restart bench times per case (default 3)",
  },
  { name: "HFTGATE_BENCH_KEEP", readBy: "bench", doc: "the restart bench keeps its directory" },
  { name: "HFTGATE_KEEP_RUNS", readBy: "test", doc: "keep the journal of a failing chaos run" },
  { name: "HFTGATE_KILL_SEEDS", readBy: "test", doc: "seeds of the kill-truth test" },
  { name: "HFTGATE_KILL_SCENARIOS", readBy: "test", doc: "scenarios of the kill-truth test" },
  { name: "HFTGATE_KILL_DEBUG", readBy: "test", doc: "print the kill-truth harness's progress" },
  { name: "HFTGATE_CHAOS_RESULTS", readBy: "test", doc: "file the chaos tests write their rows to" },
  { name: "HFTGATE_READINESS_OUTAGE_MS", readBy: "test", doc: "listing outage of the readiness test" },
  { name: "HFTGATE_READINESS_TAIL_MS", readBy: "test", doc: "traffic after recovery in the readiness test" },
  { name: "HFTGATE_OPS_DEBUG", readBy: "test", doc: "print the operations harness's gateway log lines" },
  { name: "HFTGATE_PYTHON", readBy: "test", doc: "the Python interpreter of the Python client's tests" },
  { name: "HFTGATE_GOLDEN", readBy: "test", doc: "golden codec frames for the Python client's tests" },
  { name: "HFTGATE_PROTOCOL_MD", readBy: "test", doc: "PROTOCOL.md path for the Python client's tests" },
  { name: "HFTGATE_SYMBOL", readBy: "test", doc: "instrument of the Python client's live test" },
  { name: "HFTGATE_REST_PRICE", readBy: "test", doc: "resting price of the Python client's live test" },
  { name: "HFTGATE_CROSS_PRICE", readBy: "test", doc: "crossing price of the Python client's live test" },
  { name: "HFTGATE_QTY", readBy: "test", doc: "quantity of the Python client's live test" },
  {
    name: "HFTGATE_MD_SYMBOL",
    readBy: "test",
    doc: "market-data instrument of the Python client's live test",
  },
];
