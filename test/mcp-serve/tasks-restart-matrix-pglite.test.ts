/**
 * @module test/mcp-serve/tasks-restart-matrix-pglite.test
 * The restart matrix on PGlite (tasks-restart-kit.ts): the serving process
 * SIGKILLed at seeded random points while tasks are open, restarted on the
 * same directory, every task driven to its end; none lost, none run twice.
 * `AGENTKIT_TASKS_RESTART_RUNS` rounds (default 20), seeded by
 * `AGENTKIT_TASKS_RESTART_SEED` (default 38). PGlite's start takes seconds to
 * tens of seconds on a loaded machine: the limit grows with the rounds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { envCount, killAll, restartMatrix } from "./tasks-restart-kit.js";

const RUNS = envCount("AGENTKIT_TASKS_RESTART_RUNS", 20);
const SEED = envCount("AGENTKIT_TASKS_RESTART_SEED", 38);
const dir = mkdtempSync(join(tmpdir(), "akt-tasks-matrix-pglite-"));
afterEach(() => killAll());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("MCP tasks restart matrix (PGlite)", () => {
  it(
    `${RUNS} rounds, SIGKILL at seeded points (seed ${SEED}): every task ends completed or failed as it should, none lost, none run twice`,
    async () => {
      const rounds = await restartMatrix({ dataDir: join(dir, "db") }, dir, RUNS, SEED);
      expect(rounds).toHaveLength(RUNS);
      console.log(rounds.join("\n"));
    },
    RUNS * 240_000,
  );
});
