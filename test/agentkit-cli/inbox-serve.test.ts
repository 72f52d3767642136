/**
 * @module test/agentkit-cli/inbox-serve.test
 * The shared inbox across processes with the `agentkit` command: one
 * `agentkit inbox serve --store-env VAR` (the page alone) and one
 * `agentkit serve <module> --approve inbox --store <url>` (a worker), on a
 * real PostgreSQL server. A permission prompt to the worker's approval server
 * (called as the Claude CLI calls it) becomes a question on the page in the
 * other process; the answer given there (the page's HTTP API: one-time login,
 * cookie, same-origin POST) is the CLI's answer. Needs `npm run build`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateInboxStore } from "arc-agentkit/askers";
import { MCPClient, StreamableHttpServer } from "arc-agentkit/mcp";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { AGENTKIT, FIXTURES, killGroup, requireBuild, runAgentkit, ServeProcess } from "./agentkit-process.js";
import { answerOnPage, logIn } from "./inbox-page.js";
import { until } from "../helpers/wait.js";

let pg: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), "akt-inbox-serve-"));
beforeAll(async () => {
  requireBuild();
  pg = await startPostgres();
  await migrateInboxStore({ connectionString: pg.connectionString });
});
afterAll(() => {
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** `agentkit inbox serve` until its login line appears. */
async function pageProcess(): Promise<{ loginUrl: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [AGENTKIT, "inbox", "serve", "--store-env", "INBOX_DB"], {
    env: { ...process.env, INBOX_DB: pg.connectionString },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | null>((r) => child.once("close", (c) => r(c)));
  try {
    await until(
      () => {
        if (/log in once with: (\S+)/.test(err)) return true;
        if (child.exitCode !== null) throw new Error(`exit ${child.exitCode}`);
        return false;
      },
      "the login link",
      20_000,
    );
  } catch {
    await killGroup(child);
    throw new Error(`agentkit inbox serve did not start: ${err}`);
  }
  const loginUrl = /log in once with: (\S+)/.exec(err)![1]!;
  expect(err.match(/login#code=/g)).toHaveLength(1);
  return {
    loginUrl,
    stop: async () => {
      process.kill(-child.pid!, "SIGINT");
      const code = await exited;
      await killGroup(child);
      return code;
    },
  };
}

describe("agentkit inbox serve + agentkit serve --approve inbox", () => {
  it("a worker's permission prompt waits for the page in the other process: approved there, the CLI is allowed; rejected with a note, it is denied with it", async () => {
    const deploys = join(dir, "deploys.txt");
    const page = await pageProcess();
    try {
      await using worker = await ServeProcess.start(
        [join(FIXTURES, "inbox-module.mjs"), "--approve", "inbox", "--store", pg.connectionString, "--timeout-ms", "60000"],
        { env: { AGENTKIT_TEST_DEPLOYS: deploys } },
      );
      expect(worker.stdout).toContain("approvals are answered on the shared inbox's page");
      // The module's approval server, called as the Claude CLI calls its --permission-prompt-tool.
      const config = JSON.parse(readFileSync(worker.configPath, "utf8")) as {
        mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
      };
      const approvals = Object.values(config.mcpServers).find((s) => s.url.endsWith("/mcp-2"))!;
      const client = await MCPClient.start(new StreamableHttpServer({ url: approvals.url, headers: approvals.headers }));
      const prompt = async (input: Record<string, unknown>) =>
        JSON.parse(((await client.callTool("approve", { tool_name: "mcp__ops__deploy", input })).content[0] as { text: string }).text) as {
          behavior: string;
          message?: string;
        };
      const session = await logIn(page.loginUrl);
      try {
        const approved = prompt({ target: "staging" });
        await answerOnPage(session, "mcp__ops__deploy", { kind: "approve", actor: "release-manager" });
        expect(await approved).toMatchObject({ behavior: "allow" });
        const rejected = prompt({ target: "prod" });
        await answerOnPage(session, "mcp__ops__deploy", { kind: "reject", actor: "release-manager", note: "not on a Friday" });
        expect(await rejected).toMatchObject({ behavior: "deny", message: expect.stringContaining("not on a Friday") });
      } finally {
        await client.stop();
      }
      expect((await worker.stop()).code).toBe(0);
    } finally {
      expect(await page.stop()).toBe(0);
    }
  }, 90_000);

  it("store options that cannot work are refused with what can (exit 2); a password in --store is refused", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["serve", "x.js", "--approve", "inbox"], /--approve inbox asks through a shared store/],
      [["serve", "x.js", "--approve", "tty", "--store", pg.connectionString], /go with --approve web or --approve inbox/],
      [["serve", "x.js", "--approve", "inbox", "--inbox-store", dir], /--inbox-store <dir> is for --approve web/],
      [["serve", "x.js", "--approve", "web", "--store", pg.connectionString.replace("postgres@", "postgres:pw@")], /holds a password/],
      [["inbox", "serve"], /give the shared store/],
    ];
    for (const [argv, message] of cases) {
      const r = await runAgentkit(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
