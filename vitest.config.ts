import { defineConfig } from "vitest/config";
import { serialGlobs } from "./test/serialFiles";

export default defineConfig({
  test: {
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration tests open real sockets on loopback; forks keep native addons isolated.
    pool: "forks",
    // A worker runs its files in turn on one module graph: a fresh process per file cost 1-2 s of
    // start-up and imports each (about 150 s of the suite on two cores). Tests leave no global state.
    isolate: false,
    // Two at a time for the files that only compute; the ones in test/serialFiles.ts one at a time after.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: serialGlobs,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "serial",
          include: serialGlobs,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
