/**
 * @module test/agentkit-cli/inbox-login-key.test
 * The reviewer's way back in, in a real pseudo-terminal (tmux):
 * `agentkit inbox serve` prints a one-time login link on its terminal;
 * Enter there prints a fresh one (the unused old one stops working), which
 * logs a new session in — nothing restarts. Ctrl-C still stops it (exit 0).
 * Needs `npm run build`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TmuxTerminal } from "../askers/tmux-terminal.js";
import { AGENTKIT, requireBuild } from "./agentkit-process.js";
import { logIn, pageHtml } from "./inbox-page.js";

const dir = mkdtempSync(join(tmpdir(), "akt-inbox-key-"));
beforeAll(() => requireBuild());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The POST the login page's script makes with a link's code: its status. */
async function loginStatus(loginUrl: string): Promise<number> {
  const url = new URL(loginUrl);
  const r = await fetch(`${url.origin}${url.pathname}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: url.origin },
    body: JSON.stringify({ code: url.hash.slice("#code=".length) }),
  });
  await r.text();
  return r.status;
}

describe("agentkit inbox serve: Enter on its terminal prints a fresh login link", () => {
  it("a locked-out reviewer gets back in without a restart; the old unused link stops working", async () => {
    await using term = TmuxTerminal.start([process.execPath, AGENTKIT, "inbox", "serve", "--inbox-store", join(dir, "store")], {
      cols: 200,
    });
    const first = /log in once with: (http:\S+)/.exec(await term.until(/log in once with: http:\S+/, 45_000))![1]!;
    expect(term.screen()).toContain("press Enter here for a new one-time login link");
    const session = await logIn(first);
    expect(await pageHtml(session)).toContain('<table id="decisions">');
    term.keys("Enter");
    const fresh = /a new one-time login link \(the previous unused one no longer works\): (http:\S+)/.exec(
      await term.until(/a new one-time login link .*: http:\S+/),
    )![1]!;
    expect(fresh).not.toBe(first);
    term.keys("Enter");
    const third = [
      ...(await term.until(/(a new one-time login link[^\n]*\n[^]*){2}/)).matchAll(/a new one-time login link .*: (http:\S+)/g),
    ][1]![1]!;
    expect(await loginStatus(fresh)).toBe(401); // replaced by the third, unused
    const again = await logIn(third);
    expect(await pageHtml(again)).toContain('<table id="decisions">');
    expect(await pageHtml(session)).toContain('<table id="decisions">'); // the first session is still in
    term.keys("C-c");
    await term.until(/EXITED 0/, 20_000);
  }, 120_000);
});
