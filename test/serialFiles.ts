// The test files that run one at a time after the rest: they start processes (gateway, simulator,
// nats-server, Python) or drive a real gateway over sockets with real-time budgets, so two of them must
// not compete for a two-core CI box. vitest.config.ts reads this list; test/arch/serialFiles.test.ts
// keeps it complete.
export const serialDirs = [
  "test/chaos/",
  "test/e2e/",
  "test/bus/",
  "test/clients/",
  "test/package/",
  "test/cli/",
  "test/fix/",
  "test/preflight/",
];

export const serialFiles = [
  "test/protocol/noCodegen.test.ts",
  "test/streams/natsSim.test.ts",
  "test/engine/readiness.test.ts",
  "test/engine/throttle.test.ts",
  "test/engine/drain.test.ts",
  "test/engine/inProcess.test.ts",
  "test/engine/inlining.test.ts",
  "test/journal/checkpoint.test.ts",
  "test/journal/engineStart.test.ts",
  "test/journal/lock.test.ts",
  "test/journal/mapped.test.ts",
  "test/telemetry/grafana.test.ts",
  "test/auth/presigner.test.ts",
  "test/arch/rules.test.ts",
  "test/arch/venueRules.test.ts",
  "test/auth/cli.test.ts",
  "test/auth/signedMessage.test.ts",
  "test/gateway/foreign.test.ts",
  "test/gateway/journalHold.test.ts",
  "test/journal/replayCli.test.ts",
  "test/journal/writeFailure.test.ts",
  "test/sim/auth.test.ts",
  "test/sim/market.test.ts",
  "test/bench/runner.test.ts",
  "test/bench/bareDriver.test.ts",
  "test/rest/tls.test.ts",
];

export const serialGlobs = [...serialDirs.map((d) => `${d}**/*.test.ts`), ...serialFiles];

export function isSerial(file: string): boolean {
  return serialFiles.includes(file) || serialDirs.some((d) => file.startsWith(d));
}
