/**
 * @module test/agentkit-cli/inbox-migrate.test
 * `agentkit inbox migrate` as a real process against a real PostgreSQL
 * server: it creates the tables and the worker and page roles (and again,
 * harmlessly), refuses a password on
 * its command line, reads the URL from a variable, and explains an
 * unreachable database in one line. Needs `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgModule } from "../../src/askers/inbox/pg-peer.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { requireBuild, runAgentkit } from "./agentkit-process.js";

let pg: TestPostgres;
beforeAll(async () => {
  requireBuild();
  pg = await startPostgres();
});
afterAll(() => pg?.stop());

async function query(sql: string, values?: readonly unknown[]): Promise<Array<Record<string, unknown>>> {
  const pool = new (pgModule().Pool)({ connectionString: pg.connectionString, max: 1 });
  try {
    return (await pool.query(sql, values)).rows;
  } finally {
    await pool.end();
  }
}

async function tables(schema: string): Promise<string[]> {
  return (await query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [schema])).map((r) =>
    String(r.table_name),
  );
}

describe("agentkit inbox migrate", () => {
  it("creates the tables in the schema, and a second run changes nothing and succeeds", async () => {
    expect(await tables("approvals")).toEqual([]);
    for (const _ of [1, 2]) {
      const r = await runAgentkit(["inbox", "migrate", pg.connectionString, "--schema", "approvals"]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe(
        "inbox tables ready in schema 'approvals' (version 7)\n" +
          "  workers log in as members of approvals_worker (ask, read their own): GRANT approvals_worker TO <worker login>\n" +
          "  the page logs in as a member of approvals_page (reads all, answers): GRANT approvals_page TO <page login>\n",
      );
      expect(r.code).toBe(0);
    }
    expect(await tables("approvals")).toEqual(["decisions", "meta", "questions", "records", "run_steps", "runs", "workers"]);
    expect(await query("SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname LIKE 'approvals_%' ORDER BY rolname")).toEqual([
      { rolname: "approvals_page", rolcanlogin: false },
      { rolname: "approvals_worker", rolcanlogin: false },
    ]);
    expect(
      await query("SELECT relname FROM pg_class WHERE relrowsecurity AND relnamespace = 'approvals'::regnamespace ORDER BY relname"),
    ).toEqual([
      { relname: "decisions" },
      { relname: "questions" },
      { relname: "records" },
      { relname: "run_steps" },
      { relname: "runs" },
      { relname: "workers" },
    ]);
  });

  it("refuses a URL holding a password on the command line (exit 2) without echoing it; --store-env reads it from a variable", async () => {
    const withPassword = pg.connectionString.replace("postgres@", "postgres:s3cret-pw@");
    const refused = await runAgentkit(["inbox", "migrate", withPassword]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--store-env VAR");
    expect(refused.stderr + refused.stdout).not.toContain("s3cret-pw");
    const ok = await runAgentkit(["inbox", "migrate", "--store-env", "INBOX_DB"], { env: { INBOX_DB: withPassword } });
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(await tables("agentkit_inbox")).toContain("questions");
  });

  it("an unreachable database is one line naming the problem, exit 1; bad input is exit 2", async () => {
    const down = await runAgentkit(["inbox", "migrate", "--store-env", "INBOX_DB"], {
      env: { INBOX_DB: "postgres://nobody:hidden-pw@127.0.0.1:1/x" },
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/the inbox database is unavailable/);
    expect(down.stderr).not.toContain("hidden-pw");
    expect(down.stderr.trim().split("\n")).toHaveLength(1);
    for (const argv of [
      ["inbox", "migrate", "mysql://x@h/db"],
      ["inbox", "migrate"],
      ["inbox", "frobnicate"],
      ["inbox", "migrate", pg.connectionString, "--schema", "Bad Name"],
    ]) {
      const r = await runAgentkit(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/^agentkit inbox/);
    }
  });
});
