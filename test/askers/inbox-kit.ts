/**
 * @module test/askers/inbox-kit
 * Shared pieces of the inbox tests: the Debian Chromium driven headless by
 * playwright-core (one browser per test file), a logged-in page on an inbox,
 * and a real ApprovalServer answered by an inbox asker, called over loopback
 * the way the Claude CLI calls it.
 */
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll } from "vitest";
import { ApprovalInbox } from "../../src/askers/index.js";
import type { InboxAsker } from "../../src/askers/index.js";
import { ApprovalServer, type ApprovalServerOptions } from "../../src/mcp/approvals/index.js";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/client/index.js";
import { scaledMs } from "../helpers/wait.js";

/** Debian's chromium binary (not the /usr/bin wrapper script). `npm test` installs it when absent (scripts/test-prereqs.mjs). */
export const CHROMIUM = "/usr/lib/chromium/chromium";

/** An inbox session's label (`inbox session 2 (3fa9c1)`): the recorded actor of whatever that session answered. */
export const SESSION = /^inbox session \d+ \([0-9a-f]{6}\)$/;

/** Launch the one browser of a test file. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true });
}

/** A page logged in on `inbox` (a fresh browser context: its own cookie jar); any inbox with a fresh `loginUrl` (this build's or dist's). */
/**
 * One Chromium for a test file, launched before its tests and closed after
 * them, and a list of cleanups each test pushes to, run after it in reverse.
 * Call once at the top of the file.
 */
export function chromiumPerFile(): { readonly browser: () => Browser; readonly cleanups: Array<() => Promise<void> | void> } {
  let browser: Browser | undefined;
  const cleanups: Array<() => Promise<void> | void> = [];
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return {
    browser: () => {
      if (!browser) throw new Error("chromiumPerFile(): the browser is launched in beforeAll; use it inside a test");
      return browser;
    },
    cleanups,
  };
}

export async function loggedInPage(
  browser: Browser,
  inbox: Pick<ApprovalInbox, "loginUrl">,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  // 10 s on a quiet machine, longer on a loaded one (Chromium and the page's server share its cores)
  context.setDefaultTimeout(scaledMs(10_000));
  const page = await context.newPage();
  await page.goto(inbox.loginUrl);
  await page.getByText("Live: new questions appear here").waitFor();
  return { context, page };
}

/** The CLI's answer to one permission prompt, parsed. */
export interface CliAnswer {
  readonly behavior: "allow" | "deny";
  readonly updatedInput?: Record<string, unknown>;
  readonly message?: string;
}

/** A started ApprovalServer asking `asker` (also its `gate.check` target), and a real MCP client calling it. */
export async function approvalsAsking(
  asker: InboxAsker,
  options: Omit<ApprovalServerOptions, "asker"> = {},
): Promise<{
  server: ApprovalServer;
  prompt(tool: string, input: Record<string, unknown>, id?: string): Promise<CliAnswer>;
  close(): Promise<void>;
}> {
  const server = await ApprovalServer.start({ asker, ctx: asker, ...options });
  const client = await MCPClient.start(new StreamableHttpServer({ url: server.url, headers: { ...server.authHeaders } }));
  return {
    server,
    prompt: async (tool, input, id) => {
      const result = await client.callTool("approve", { tool_name: tool, input, ...(id ? { tool_use_id: id } : {}) });
      return JSON.parse((result.content[0] as { text: string }).text) as CliAnswer;
    },
    close: async () => {
      await client.stop();
      await server.stop();
    },
  };
}

/**
 * A started inbox, an ApprovalServer asking it (source `engine`) and one
 * logged-in Chromium page — each pushed onto `cleanups` as it is made.
 */
export async function inboxWithPage(
  browser: Browser,
  cleanups: Array<() => Promise<void> | void>,
  options: Omit<ApprovalServerOptions, "asker"> = {},
): Promise<{ inbox: ApprovalInbox; approvals: Awaited<ReturnType<typeof approvalsAsking>>; context: BrowserContext; page: Page }> {
  const inbox = await ApprovalInbox.start();
  cleanups.push(() => inbox.stop());
  const approvals = await approvalsAsking(inbox.asker({ source: "engine" }), options);
  cleanups.push(() => approvals.close());
  const { context, page } = await loggedInPage(browser, inbox);
  cleanups.push(() => context.close());
  return { inbox, approvals, context, page };
}
