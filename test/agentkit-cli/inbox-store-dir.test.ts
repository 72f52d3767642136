/**
 * @module test/agentkit-cli/inbox-store-dir.test
 * `agentkit serve <module> --approve web --inbox-store <dir>`: the inbox page
 * and its askers in the serving process, the questions and decisions in an
 * embedded PostgreSQL (PGlite) in `<dir>`. The real program is started; a
 * permission prompt to its approval server (called as the Claude CLI calls
 * it) is answered through the page's HTTP API; the program stops and is
 * started again on the same directory, and its page's history still holds
 * the decisions. A `--inbox-store` that cannot hold a database is refused on
 * the command line (exit 2, a sentence, no stack). Needs `npm run build`.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCPClient, StreamableHttpServer } from "arc-agentkit/mcp";
import { AGENTKIT, FIXTURES, requireBuild, runAgentkit, ServeProcess, type RunResult } from "./agentkit-process.js";
import { answerOnPage, decisionRows, logIn, pageHtml } from "./inbox-page.js";

const dir = mkdtempSync(join(tmpdir(), "akt-inbox-dir-"));
beforeAll(() => requireBuild());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `agentkit serve inbox-module --approve web --inbox-store <storeDir>` until it serves; its login URL and a client of its approval server. */
async function serveWithInbox(storeDir: string, deploys: string) {
  const server = await ServeProcess.start(
    [join(FIXTURES, "inbox-module.mjs"), "--approve", "web", "--inbox-store", storeDir, "--timeout-ms", "60000"],
    { env: { AGENTKIT_TEST_DEPLOYS: deploys }, timeoutMs: 60_000 },
  );
  expect(server.stdout).toContain("approvals are answered in the browser: the one-time login link is on stderr");
  // The live login link is a secret: on stderr (the person's terminal), never on stdout (often piped or kept).
  await expect.poll(() => server.stderr, { timeout: 10_000 }).toMatch(/log in to the approval inbox with: http:\S+/);
  const loginUrl = /log in to the approval inbox with: (\S+)/.exec(server.stderr)?.[1];
  expect(server.stderr.match(/login#code=/g)).toHaveLength(1);
  expect(server.stdout).not.toMatch(/code=/);
  // The module's approval server, called as the Claude CLI calls its --permission-prompt-tool.
  const config = JSON.parse(readFileSync(server.configPath, "utf8")) as {
    mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
  };
  const approvals = Object.values(config.mcpServers).find((s) => s.url.endsWith("/mcp-2"))!;
  const client = await MCPClient.start(new StreamableHttpServer({ url: approvals.url, headers: approvals.headers }));
  const prompt = async (input: Record<string, unknown>) =>
    JSON.parse(((await client.callTool("approve", { tool_name: "mcp__ops__deploy", input })).content[0] as { text: string }).text) as {
      behavior: string;
      message?: string;
    };
  return { server, loginUrl: loginUrl!, client, prompt };
}

/** A finished run refused on its command line: exit 2, one sentence naming the option, no stack trace. */
function expectRefused(r: RunResult, message: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at |InboxError|EEXIST|ENOTDIR|EACCES/);
}

/** The name an actor cell says was claimed: the cell is the answering session's label, then the typed name as a claim. */
function claimOf(cell: string): string | undefined {
  return /^inbox session \d+ \([0-9a-f]{6}\) claims “(.+)”$/.exec(cell)?.[1];
}

describe("agentkit serve --approve web --inbox-store <dir>", () => {
  it("a decision made on the page is in the page's history after the program stops and starts again on the same directory", async () => {
    const storeDir = join(dir, "inbox");
    const deploys = join(dir, "deploys.txt");
    const first = await serveWithInbox(storeDir, deploys);
    try {
      const session = await logIn(first.loginUrl);
      const approved = first.prompt({ target: "staging" });
      await answerOnPage(session, "mcp__ops__deploy", { kind: "approve", actor: "release-manager" });
      expect(await approved).toMatchObject({ behavior: "allow" });
      const rejected = first.prompt({ target: "prod" });
      await answerOnPage(session, "mcp__ops__deploy", { kind: "reject", actor: "release-manager", note: "not on a Friday" });
      expect(await rejected).toEqual({ behavior: "deny", message: "not on a Friday" });
    } finally {
      await first.client.stop();
    }
    expect((await first.server.stop()).code).toBe(0);
    expect(statSync(storeDir).isDirectory()).toBe(true);
    expect(statSync(storeDir).mode & 0o077).toBe(0);

    const again = await serveWithInbox(storeDir, deploys);
    try {
      const session = await logIn(again.loginUrl);
      const html = await pageHtml(session);
      expect(html).not.toContain('data-status="pending"');
      const rows = decisionRows(html).filter((r) => r[0] === "mcp__ops__deploy");
      expect(rows.map((r) => [r[1], r[2], r[3], claimOf(r[4]!)])).toEqual([
        ["no", "asker", "yes", "release-manager"],
        ["yes", "asker", "yes", "release-manager"],
      ]);
      expect(rows[0]![5]).toBe("not on a Friday");
      expect(rows.every((r) => r[7] === "InboxModule")).toBe(true);
      // and the restarted program asks and records on the same database
      const third = again.prompt({ target: "qa" });
      await answerOnPage(session, "mcp__ops__deploy", { kind: "approve", actor: "second-run" });
      expect(await third).toMatchObject({ behavior: "allow" });
      await expect
        .poll(async () =>
          decisionRows(await pageHtml(session))
            .filter((r) => r[0] === "mcp__ops__deploy")
            .map((r) => claimOf(r[4]!)),
        )
        .toEqual(["second-run", "release-manager", "release-manager"]);
    } finally {
      await again.client.stop();
    }
    expect((await again.server.stop()).code).toBe(0);
  }, 150_000);

  it("a second program on a directory the first has open is refused, naming the directory and the process (#25)", async () => {
    const storeDir = join(dir, "shared");
    const first = await serveWithInbox(storeDir, join(dir, "deploys-2.txt"));
    try {
      const second = await runAgentkit(["serve", join(FIXTURES, "inbox-module.mjs"), "--approve", "web", "--inbox-store", storeDir], {
        env: { AGENTKIT_TEST_DEPLOYS: join(dir, "deploys-3.txt") },
        timeoutMs: 60_000,
      });
      expect(second.code, second.stderr).toBe(1);
      expect(second.stderr).toContain(
        `the inbox database in '${storeDir}' is already open (by process ${first.server.child.pid}): one process at a time owns an embedded inbox`,
      );
      expect(second.stderr).not.toMatch(/\n\s+at /);
      expect(second.stdout).not.toContain("login?code=");
    } finally {
      await first.client.stop();
      expect((await first.server.stop()).code).toBe(0);
    }
  }, 150_000);

  it("an --inbox-store that cannot hold a database (a file, under a file, not writable) is refused: exit 2, what is wrong and what is accepted, no stack", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "not a directory");
    const serve = (store: string) => ["serve", join(FIXTURES, "inbox-module.mjs"), "--approve", "web", "--inbox-store", store];
    expectRefused(
      await runAgentkit(serve(file)),
      new RegExp(
        `--inbox-store '${file}' cannot hold the inbox's database: '${file}' is a file, not a directory\\. Give a directory you can write \\(it is created when missing\\)`,
      ),
    );
    expectRefused(
      await runAgentkit(serve(join(file, "inbox"))),
      new RegExp(`'${file}' is a file, not a directory\\. Give a directory you can write`),
    );
    expectRefused(await runAgentkit(serve("")), /--inbox-store '' cannot hold the inbox's database: no directory was given/);
    expectRefused(
      await runAgentkit(["serve", join(FIXTURES, "inbox-module.mjs"), "--worker", "w1"]),
      /--worker names this process on the inbox page, so it goes with --approve inbox or --approve web/,
    );
    expectRefused(
      await runAgentkit([...serve(join(dir, "unused")), "--worker", "evil\u001b[2Jname"]),
      /--worker must be a name of 1-100 printable characters \(no control or bidi characters\)/,
    );
    expectRefused(
      await runAgentkit(["inbox", "serve", "--inbox-store", file]),
      /agentkit inbox serve: --inbox-store .* is a file, not a directory/,
    );
    // Not writable: a directory of ours made read-only (0500). Root writes anywhere, so as root the program runs
    // without the capability that lets it (setpriv drops CAP_DAC_OVERRIDE, keeps CAP_DAC_READ_SEARCH): the same
    // user, reading the checkout wherever it lives and whoever owns it; no second user, nothing opened to others.
    const locked = join(dir, "locked");
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    const argv = [process.execPath, AGENTKIT, ...serve(join(locked, "inbox"))];
    const [cmd, ...args] = process.getuid?.() === 0 ? ["setpriv", "--bounding-set=-dac_override", "--", ...argv] : argv;
    const child = spawn(cmd!, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
    chmodSync(locked, 0o700);
    expectRefused(
      { code, signal: null, stdout: "", stderr },
      new RegExp(
        `--inbox-store '${join(locked, "inbox")}' cannot hold the inbox's database: this user may not write to '${locked}'\\. Give a directory you can write`,
      ),
    );
  }, 60_000);
});
