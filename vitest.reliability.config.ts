import { defineConfig } from "vitest/config";

// The reliability suite (`npm run test:reliability`): load, faults, bad input
// and leaks against real loopback sockets and subprocesses. Files run one at a
// time (the load and leak counts need the machine to themselves); the reporter
// rewrites RELIABILITY.md after a run of the whole suite.
export default defineConfig({
  test: {
    include: ["test/reliability/**/*.test.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    execArgv: ["--throw-deprecation"],
    globalSetup: ["test/global-setup.ts"],
    reporters: ["default", "./test/reliability/reliability-reporter.ts"],
  },
});
