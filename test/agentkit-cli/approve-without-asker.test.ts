/**
 * @module test/agentkit-cli/approve-without-asker.test
 * `agentkit serve --approve web` on a module that names no Asker (issue #43
 * point 4): the flag supplies the person, so a `requiresApproval` tool is
 * asked about on the inbox page before it runs (approve: it runs; reject: it
 * does not), with no placeholder Asker class, `approvals:` or `guard:` in the
 * module. Needs `npm run build`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCPClient, StreamableHttpServer } from "arc-agentkit/mcp";
import { FIXTURES, requireBuild, ServeProcess } from "./agentkit-process.js";
import { answerOnPage, logIn } from "./inbox-page.js";

beforeAll(() => requireBuild());

const dir = mkdtempSync(join(tmpdir(), "agentkit-approve-without-asker-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agentkit serve --approve web on a module without an Asker", () => {
  it("asks the page before a requiresApproval tool runs: approved runs, rejected does not", async () => {
    const deploys = join(dir, "deploys");
    await using server = await ServeProcess.start([join(FIXTURES, "approval-tool-module.mjs"), "--approve", "web"], {
      env: { AGENTKIT_TEST_DEPLOYS: deploys },
    });
    expect(server.stdout).not.toContain("nothing will be asked");
    expect(server.stdout).toContain("approvals are answered in the browser");
    const session = await logIn(await server.loginLink());
    const ops = server.serverEntry("ops");
    await using client = await MCPClient.start(new StreamableHttpServer({ url: ops.url, headers: ops.headers, protocol: "2025-11-25" }));

    const approved = client.callTool("deploy", { target: "qa" });
    await answerOnPage(session, "deploy", { kind: "approve" });
    expect((await approved).content).toEqual([{ type: "text", text: "deployed to qa" }]);

    const rejected = client.callTool("deploy", { target: "prod" });
    await answerOnPage(session, "deploy", { kind: "reject", note: "not on a Friday" });
    const r = await rejected;
    expect(r.isError).toBe(true);
    expect((r.content[0] as { text: string }).text).toMatch(/tool 'deploy' was not run: rejected .*not on a Friday/);
    expect(existsSync(deploys) ? readFileSync(deploys, "utf8") : "").toBe("qa\n");
  }, 90_000);
});
