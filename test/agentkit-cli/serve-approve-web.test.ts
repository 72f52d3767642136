/**
 * @module test/agentkit-cli/serve-approve-web.test
 * `agentkit serve <module> --approve web [--worker NAME]`, the real program:
 * the live one-time login link goes to stderr (the person's terminal), never
 * to stdout (often piped to a file or a log); `--worker` names the asking
 * process on each question of the page; a bad `--worker` is refused on the
 * command line. Needs `npm run build`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { MCPClient, StreamableHttpServer } from "arc-agentkit/mcp";
import { FIXTURES, requireBuild, runAgentkit, ServeProcess } from "./agentkit-process.js";
import { answerOnPage, logIn, pageHtml } from "./inbox-page.js";

beforeAll(() => requireBuild());

describe("agentkit serve --approve web", () => {
  it("prints the login link on stderr only, and --worker names the process on the page", async () => {
    await using server = await ServeProcess.start(
      [join(FIXTURES, "inbox-module.mjs"), "--approve", "web", "--worker", "deploy-runner-2", "--timeout-ms", "60000"],
      { env: { AGENTKIT_TEST_DEPLOYS: "/dev/null" } },
    );
    await expect.poll(() => server.stderr, { timeout: 10_000 }).toMatch(/log in to the approval inbox with: http:\S+/);
    expect(server.stdout).toContain("approvals are answered in the browser: the one-time login link is on stderr");
    expect(server.stdout).not.toMatch(/code=|\/login/);
    const session = await logIn(/log in to the approval inbox with: (\S+)/.exec(server.stderr)![1]!);
    const config = JSON.parse(readFileSync(server.configPath, "utf8")) as {
      mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
    };
    const approvals = Object.values(config.mcpServers).find((s) => s.url.endsWith("/mcp-2"))!;
    await using client = await MCPClient.start(new StreamableHttpServer({ url: approvals.url, headers: approvals.headers }));
    const answer = client.callTool("approve", { tool_name: "mcp__ops__deploy", input: { target: "qa" } });
    await expect
      .poll(() => pageHtml(session), { timeout: 20_000 })
      .toMatch(/from <b class="from">InboxModule<\/b> · worker <b class="worker">deploy-runner-2<\/b>/);
    await answerOnPage(session, "mcp__ops__deploy", { kind: "reject", note: "not now" });
    expect(JSON.parse(((await answer).content[0] as { text: string }).text)).toEqual({ behavior: "deny", message: "not now" });
  });

  it("refuses --worker without --approve web|inbox, and a name with control characters: exit 2, one sentence", async () => {
    const module = join(FIXTURES, "inbox-module.mjs");
    const alone = await runAgentkit(["serve", module, "--worker", "w1"]);
    expect(alone.code, alone.stderr).toBe(2);
    expect(alone.stderr).toContain("--worker names this process on the inbox page, so it goes with --approve inbox or --approve web");
    const evil = await runAgentkit(["serve", module, "--approve", "web", "--worker", "evil\u001b[2Jname"]);
    expect(evil.code, evil.stderr).toBe(2);
    expect(evil.stderr).toContain("--worker must be a name of 1-100 printable characters (no control or bidi characters)");
    expect(evil.stderr).not.toContain("\u001b");
  });
});
