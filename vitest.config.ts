import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e tests start servers on port 0 and use their own Redis key prefixes,
    // so files can run in parallel; two workers match the 2-core machines.
    maxWorkers: 2,
  },
});
