import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// vite 8 (Oxc) emits decorator metadata from tsconfig's emitDecoratorMetadata;
// tsyringe's injection by type depends on it.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // the durable-run crash matrix (minutes of child processes) is its own CI part: `npm run test:crash`
    // agentkit call's 2-minute wait on a person runs with the human-paced runs (vitest.reliability.config.ts)
    exclude: [
      "test/reliability/**",
      "test/agentkit-cli/call-waits.test.ts",
      "node_modules/**",
      ...(process.env["RUNS_CRASH"] ? [] : ["test/askers/runs/durable-crash.test.ts"]),
    ],
    pool: "forks",
    // Two files at a time at least (vitest's default on 2 cores is one): most of a
    // file's time is spent waiting on what it drives — subprocesses, the real
    // CLIs, PostgreSQL, Chromium, sockets — not on this process's core.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll's deadline when a test names none: vitest's default is 1 s, which a poll that waits on a socket, a
    // database or Chromium overruns on 2 loaded cores; a poll only takes long when it is failing anyway.
    expect: { poll: { timeout: 10_000 } },
    execArgv: ["--throw-deprecation"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/file-hygiene.setup.ts"],
  },
});
