import { defineConfig } from "vitest/config";

// vite 8 (Oxc) emits decorator metadata from tsconfig's emitDecoratorMetadata;
// tsyringe's injection by type depends on it.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/reliability/**", "node_modules/**"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    execArgv: ["--throw-deprecation"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/file-hygiene.setup.ts"],
  },
});
