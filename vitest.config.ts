import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration tests open real sockets on loopback; forks keep native addons isolated.
    pool: "forks",
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
