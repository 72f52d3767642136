/**
 * @module test/askers/inbox-question-body.test
 * What one question's body shows on the inbox page, in real Chromium
 * (issue #25 points 4 and 5): a tool name and arguments carrying C1 and
 * bidi characters are shown escaped; a server's form shows its message
 * (escaped) and every field with the value Approve sends, and sends exactly
 * those; a link shows its host called out and the whole URL.
 */
import type { Locator } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ApprovalInbox } from "../../src/askers/index.js";
import { loggedInPage, chromiumPerFile, SESSION } from "./inbox-kit.js";

const { browser, cleanups } = chromiumPerFile();

/** An inbox, a logged-in page on it, and an asker (from "engine") whose questions appear there. */
async function setup() {
  const inbox = await ApprovalInbox.start();
  cleanups.push(() => inbox.stop());
  const { context, page } = await loggedInPage(browser(), inbox);
  cleanups.push(() => context.close());
  return { page, asker: inbox.asker({ source: "engine" }) };
}

const text = async (l: Locator): Promise<string> => (await l.textContent()) ?? "";

/** A server's form: one required field with no default, two with defaults. */
const FORM_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string" },
    plan: { type: "string", enum: ["free", "pro"], default: "pro" },
    seats: { type: "integer", default: 5 },
  },
  required: ["name"],
};
/** An OSC 8 hyperlink showing one host and opening another, then concealed text. */
const HIDING_MESSAGE = "Confirm at \x1b]8;;https://evil.example/\x1b\\https://good.example/\x1b]8;;\x1b\\ please\x1b[8m and pay now\x1b[0m";

describe("one question's body on the inbox page", () => {
  it("a tool name and arguments with bidi and C1 characters are shown escaped; Modify starts from JSON that parses back to the same arguments (#25.4)", async () => {
    const { page, asker } = await setup();
    const args = { path: "notes\u202etxt.sh", c1: "a\u009bb", zw: "rm\u200b -rf" };
    const decision = asker.ask({
      question: "Allow\u2066 this?",
      toolCall: { id: "t1", name: "read_file\u202eexe.txt", arguments: args },
      source: "react",
    });
    const art = page.locator("article").first();
    await art.waitFor();
    expect(await text(art.locator("h3"))).toBe("read_file\\u202eexe.txt");
    const pre = await text(art.locator("pre"));
    expect(pre).toContain('"path": "notes\\u202etxt.sh"');
    expect(pre).toContain('"c1": "a\\u009bb"');
    expect(pre).toContain('"zw": "rm\\u200b -rf"');
    expect(await text(art.locator(".ask"))).toBe("Allow\\u2066 this?");
    expect(await text(art)).not.toMatch(/[\u202e\u009b\u200b\u2066]/);
    await art.getByRole("button", { name: "Modify", exact: true }).click();
    await art.getByRole("button", { name: "Save and approve" }).click();
    expect(await decision).toEqual({ kind: "modify", actor: expect.stringMatching(SESSION), value: args });
  });

  it("a form shows the server's message escaped and every field with its value; Approve sends exactly the values shown (#25.5)", async () => {
    const { page, asker } = await setup();
    const decision = asker.ask({ question: HIDING_MESSAGE, form: { schema: FORM_SCHEMA }, source: "mcp_elicitation" });
    const art = page.locator("article").first();
    await art.waitFor();
    expect(await text(art)).not.toContain("(no tool)");
    expect(await text(art.locator(".ask"))).toBe(
      "Confirm at \\x1b]8;;https://evil.example/\\x1b\\https://good.example/\\x1b]8;;\\x1b\\ please\\x1b[8m and pay now\\x1b[0m",
    );
    const fields = await art.locator("dl.fields > *").allTextContents();
    expect(fields).toEqual(["name", "(empty, not sent)", "plan", '"pro"', "seats", "5"]);
    await art.getByRole("button", { name: "Approve", exact: true }).click();
    expect(await decision).toEqual({
      kind: "approve",
      actor: expect.stringMatching(SESSION),
      value: { name: null, plan: "pro", seats: 5 },
    });
  });

  it("a URL-mode link shows its host called out and the whole URL, as text (#25.5)", async () => {
    const { page, asker } = await setup();
    const url = "https://evil.example/login?next=https://good.example/";
    const decision = asker.ask({ question: "Sign in at good.example", url, source: "mcp_elicitation" });
    const art = page.locator("article").first();
    await art.waitFor();
    expect(await text(art)).not.toContain("(no tool)");
    expect(await text(art.locator(".link-host"))).toBe("The link opens host: evil.example");
    expect(await text(art.locator(".link-url code"))).toBe(url);
    expect(await art.locator(".link-url a").count()).toBe(0);
    await art.getByRole("button", { name: "Reject", exact: true }).click();
    await art.getByLabel("Note").fill("not my host");
    await art.getByRole("button", { name: "Confirm rejection" }).click();
    expect(await decision).toEqual({ kind: "reject", actor: expect.stringMatching(SESSION), note: "not my host" });
  });
});
