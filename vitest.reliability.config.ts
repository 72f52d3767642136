import { defineConfig } from "vitest/config";

// The reliability suite (`npm run test:reliability`): load, faults, bad input
// and leaks against real loopback sockets and subprocesses. Its files run one
// at a time (the load and leak counts need the machine to themselves), except
// the human-paced runs: real CLIs waiting minutes on a person, mostly idle,
// which run in their own project at the same time as the rest so the suite is
// not seven minutes longer. The reporter rewrites RELIABILITY.md after a run
// of the whole suite.
const shared = {
  pool: "forks",
  execArgv: ["--throw-deprecation"],
  globalSetup: ["test/global-setup.ts"],
  // expect.poll's deadline: vitest's 1 s default is too short for a loaded machine (see vitest.config.ts)
  expect: { poll: { timeout: 10_000 } },
} as const;

export default defineConfig({
  test: {
    reporters: ["default", "./test/reliability/reliability-reporter.ts"],
    projects: [
      {
        test: {
          ...shared,
          name: "reliability",
          include: ["test/reliability/**/*.test.ts"],
          exclude: ["test/reliability/human-paced.test.ts"],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          ...shared,
          name: "human-paced",
          include: ["test/reliability/human-paced.test.ts"],
          // all eight runs at once (vitest's default is five at a time)
          maxConcurrency: 8,
          testTimeout: 660_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          ...shared,
          // agentkit call's 2-minute wait on an inbox answer: it spawns the
          // built CLI (dist/), so it runs where no build is under way (CI: beside
          // the Node 24 part, not beside `npm test`, which rebuilds dist/).
          name: "call-waits",
          include: ["test/agentkit-cli/call-waits.test.ts"],
          testTimeout: 300_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
