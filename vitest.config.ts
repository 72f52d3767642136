import { defineConfig } from "vitest/config";

// vite 8 (Oxc) emits decorator metadata from tsconfig's emitDecoratorMetadata;
// tsyringe's injection by type depends on it.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // the durable-run crash matrix (minutes of child processes) is its own CI part: `npm run test:crash`
    exclude: ["test/reliability/**", "node_modules/**", ...(process.env["RUNS_CRASH"] ? [] : ["test/askers/runs/durable-crash.test.ts"])],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    execArgv: ["--throw-deprecation"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/file-hygiene.setup.ts"],
  },
});
