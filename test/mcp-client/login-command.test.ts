/**
 * @module test/mcp-client/login-command.test
 * `agentkit login <url>` as a process (dist/bin/agentkit.js) against a real
 * MCP server behind OAuth with its own authorization server: the test plays
 * the person, opening the printed URL; the login ends with the tokens in a
 * 0600 file that a later StreamableHttpServer({ auth }) uses as it is.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MCPClient, oauthProvider, StreamableHttpServer } from "../../src/mcp/index.js";
import { NODE, ROOT, startOAuthHttpServer, type ServerProcess } from "./support.js";

const AGENTKIT = join(ROOT, "dist", "bin", "agentkit.js");

let server: ServerProcess;
let tokenDir: string;
beforeEach(async () => {
  server = await startOAuthHttpServer();
  tokenDir = mkdtempSync(join(tmpdir(), "agentkit-login-"));
});
afterEach(async () => {
  await server.stop();
  rmSync(tokenDir, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `agentkit login ...`; when it prints an authorization URL, open it (follow the redirects) as a person would. */
function login(args: string[], openPrinted = true): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [AGENTKIT, "login", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, DISPLAY: "" },
    });
    let stdout = "";
    let stderr = "";
    let opened = false;
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString();
      const m = /^\s+(http:\/\/127\.0\.0\.1:\d+\/authorize\S+)$/m.exec(stderr);
      if (m && !opened && openPrinted) {
        opened = true;
        void fetch(m[1]!, { redirect: "follow" })
          .then((r) => r.text())
          .catch(() => {});
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("agentkit login <url>", () => {
  it("logs in once, prints where the tokens were kept (a 0600 file), never the tokens; a client then connects with no login", async () => {
    const r = await login([server.url, "--token-dir", tokenDir, "--print-url"]);
    expect(r.code, r.stderr).toBe(0);
    const m = /^logged in to streamable HTTP server (\S+); tokens kept in (\S+)\n$/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(m![1]).toBe(server.url);
    const file = m![2]!;
    expect(file.startsWith(tokenDir)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, "utf8")) as { tokens: { access_token: string; refresh_token: string } };
    expect(r.stdout + r.stderr).not.toContain(stored.tokens.access_token);
    expect(r.stdout + r.stderr).not.toContain(stored.tokens.refresh_token);

    const opened: URL[] = [];
    await using client = await MCPClient.start(
      new StreamableHttpServer({ url: server.url, auth: oauthProvider({ tokenDir, openUrl: (u) => void opened.push(u) }) }),
    );
    expect(JSON.stringify((await client.callTool("whoami")).content)).toMatch(/client /);
    expect(opened).toHaveLength(0);
  });

  it("a second login logs in afresh (a new authorization), replacing the tokens", async () => {
    expect((await login([server.url, "--token-dir", tokenDir, "--print-url"])).code).toBe(0);
    expect((await login([server.url, "--token-dir", tokenDir, "--print-url"])).code).toBe(0);
    const stats = (await (await fetch(new URL("/test/stats", server.url))).json()) as Record<string, number>;
    expect(stats.authorizations).toBe(2);
  });

  it("nobody finishes: exit 1 with a line saying the redirect never came; a bad command line is exit 2", async () => {
    const r = await login([server.url, "--token-dir", tokenDir, "--print-url", "--timeout-ms", "1500"], false);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/agentkit login: .*nobody finished the OAuth authorization within 2 s/);
    const bad = await login(["not a url", "--token-dir", tokenDir], false);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/agentkit login: StreamableHttpServer: 'url' must be an absolute http\(s\) URL/);
  });
});
