/**
 * @module test/mcp-serve/tasks-restart-matrix-postgres.test
 * The restart matrix on a real PostgreSQL (tasks-restart-kit.ts, the server
 * test/helpers/postgres.ts starts): the serving process SIGKILLed at seeded
 * random points while tasks are open, restarted on the same database, every
 * task driven to its end; none lost, none run twice.
 * `AGENTKIT_TASKS_RESTART_RUNS` rounds (default 20), seeded by
 * `AGENTKIT_TASKS_RESTART_SEED` (default 38).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { migrateInboxStore } from "../../src/askers/index.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { envCount, killAll, restartMatrix } from "./tasks-restart-kit.js";

const RUNS = envCount("AGENTKIT_TASKS_RESTART_RUNS", 20);
const SEED = envCount("AGENTKIT_TASKS_RESTART_SEED", 38);
const dir = mkdtempSync(join(tmpdir(), "akt-tasks-matrix-pg-"));
let pg: TestPostgres;
beforeAll(async () => {
  pg = await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString, roles: false });
}, 90_000);
afterEach(() => killAll());
afterAll(async () => {
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("MCP tasks restart matrix (PostgreSQL)", () => {
  it(
    `${RUNS} rounds, SIGKILL at seeded points (seed ${SEED}): every task ends completed or failed as it should, none lost, none run twice`,
    async () => {
      const rounds = await restartMatrix({ databaseUrl: pg.connectionString }, dir, RUNS, SEED);
      expect(rounds).toHaveLength(RUNS);
      console.log(rounds.join("\n"));
    },
    RUNS * 120_000,
  );
});
