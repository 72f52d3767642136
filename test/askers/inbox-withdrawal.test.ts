/**
 * @module test/askers/inbox-withdrawal.test
 * A question leaves the inbox page with the call it belongs to: two concurrent
 * calls to one guarded served tool (a real MCP client over loopback HTTP, the
 * guard asking an inbox asker), the second cancelled by the client — the page
 * (real Chromium) withdraws the second and keeps the first pending; the first
 * is then approved and runs; a late click on the second is refused with a
 * sentence saying the call is gone.
 */
import "reflect-metadata";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApprovalInbox } from "../../src/askers/index.js";
import { tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { approvalGuard } from "../../src/mcp/approvals/index.js";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/client/index.js";
import { serveRegistry } from "../../src/mcp/serve/index.js";
import { launchChromium, loggedInPage } from "./inbox-kit.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A `deploy` tool that requires approval and remembers each target it ran with. */
function deployRecording(ran: string[]) {
  return tool(
    { name: "deploy", description: "Deploy.", input: { type: "object", properties: { target: { type: "string" } }, required: ["target"] }, sideEffecting: true, requiresApproval: true },
    function deploy(input: { target: string }) {
      ran.push(input.target);
      return `deployed ${input.target}`;
    },
  );
}

/** The pending-question article on `page` whose arguments mention `target`. */
const questionFor = (page: Page, target: string) => page.getByRole("article", { name: "mcp__engine__deploy" }).filter({ hasText: `"target": "${target}"` });

describe("inbox withdrawal follows the call", () => {
  it("two concurrent calls to one guarded tool, the second cancelled by the client: the page withdraws the second, not the first", async () => {
    const inbox = await ApprovalInbox.start();
    cleanups.push(() => inbox.stop());
    const { context, page } = await loggedInPage(browser, inbox);
    cleanups.push(() => context.close());
    const asker = inbox.asker({ source: "engine" });
    const guard = approvalGuard({ asker, ctx: asker });
    const ran: string[] = [];
    const spec = await serveRegistry([deployRecording(ran)], { name: "engine", ctx: makeTestCtx(), guard });
    cleanups.push(() => spec.stop());
    await spec.start();
    const client = await MCPClient.open(new StreamableHttpServer({ url: spec.url!, headers: { ...spec.authHeaders } }));
    cleanups.push(() => client.close());

    const first = client.callTool("deploy", { target: "staging" });
    await questionFor(page, "staging").waitFor();
    const controller = new AbortController();
    const second = client.callTool("deploy", { target: "prod" }, { signal: controller.signal });
    await questionFor(page, "prod").waitFor();
    controller.abort("the user pressed Esc");
    await expect(second).rejects.toThrow();

    await expect.poll(() => questionFor(page, "prod").getAttribute("data-status")).toBe("withdrawn");
    expect(await questionFor(page, "staging").getAttribute("data-status")).toBe("pending");

    await questionFor(page, "prod").getByRole("button", { name: "Approve", exact: true }).click({ force: true });
    await expect.poll(() => questionFor(page, "prod").locator("[data-role=outcome]").textContent()).toMatch(/withdrawn.*Nothing was decided/);

    await questionFor(page, "staging").getByRole("button", { name: "Approve", exact: true }).click();
    const result = await first;
    expect((result.content[0] as { text: string }).text).toBe("deployed staging");
    expect(ran).toEqual(["staging"]);
    expect(guard.decisions.map((d) => [d.source, d.allowed])).toEqual(
      expect.arrayContaining([
        ["error", false],
        ["asker", true],
      ]),
    );
  });
});
