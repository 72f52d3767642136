/**
 * @module test/askers/runs/readme-durable.test
 * The "Runs that outlive their process" example of docs/durable-runs.md, run
 * as written (taken out of the guide unchanged, saved as `durable.mjs` in a fresh
 * directory of this checkout so `arc-agentkit` is the built package) and
 * driven through the steps the README lists: start (the run asks to deploy;
 * the question shows on the inbox page in Chromium), crash (the process
 * SIGKILLed; `agentkit runs --inbox-store ./agent-data` lists the run
 * waiting), resume (the same question on the new page; a person approves in
 * Chromium; the deploy runs once and the run finishes). Needs `npm run build`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { ROOT } from "../../helpers/run-sample.js";
import { launchChromium, loggedInPage } from "../inbox-kit.js";

/** The first ```js block of the "Runs that outlive their process" section of docs/durable-runs.md. */
function readmeExample(): string {
  const guide = readFileSync(join(ROOT, "docs", "durable-runs.md"), "utf8");
  const at = guide.indexOf("## Runs that outlive their process");
  if (at < 0) throw new Error("docs/durable-runs.md: no section '## Runs that outlive their process'");
  const block = /```js\n([\s\S]*?)```/.exec(guide.slice(at));
  if (!block) throw new Error("docs/durable-runs.md: no js block under '## Runs that outlive their process'");
  return block[1]!;
}

const dir = join(ROOT, "build", `readme-durable-${process.pid}`);
const children: ChildProcess[] = [];
let browser: Browser;

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "durable.mjs"), readmeExample());
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `node durable.mjs <step>` in the example's directory; resolves the login link it prints. */
function example(step: "start" | "resume"): {
  child: ChildProcess;
  loginUrl: Promise<string>;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
} {
  const child = spawn(process.execPath, ["durable.mjs", step], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  const loginUrl = new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      err += d;
      const m = /approve at (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`durable.mjs ${step} exited ${code} before printing its login link: ${err}`)));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, loginUrl, out: () => out, err: () => err, exited };
}

describe("docs/durable-runs.md: runs that outlive their process, as written", () => {
  it("start (the question on the page), crash (SIGKILL; `agentkit runs` lists it waiting), resume (approved in Chromium): the deploy runs and the run finishes", async () => {
    // 1. start: the run asks to deploy and waits
    const first = example("start");
    const before = await loggedInPage(browser, { loginUrl: await first.loginUrl });
    const asked = before.page.getByRole("article", { name: "deploy" });
    await asked.waitFor({ timeout: 60_000 });
    const questionId = await asked.getAttribute("data-id");
    await before.context.close();

    // 2. crash
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    const listed = execFileSync(
      process.execPath,
      [join(ROOT, "dist", "bin", "agentkit.js"), "runs", "--inbox-store", "./agent-data", "--json"],
      { cwd: dir, encoding: "utf8" },
    );
    expect(JSON.parse(listed)).toEqual([expect.objectContaining({ runId: "ship-1", status: "waiting", agent: "shipper" })]);

    // 3. resume: the same question again, under the same id; a person approves it
    const second = example("resume");
    const after = await loggedInPage(browser, { loginUrl: await second.loginUrl });
    const again = after.page.getByRole("article", { name: "deploy" });
    await again.waitFor({ timeout: 60_000 });
    expect(await again.getAttribute("data-id")).toBe(questionId);
    await again.getByRole("button", { name: "Approve", exact: true }).click();
    const end = await second.exited;
    await after.context.close();
    expect(end.code, second.err()).toBe(0);
    expect(second.out()).toBe("shipped ship-1\n");
    const finished = execFileSync(
      process.execPath,
      [join(ROOT, "dist", "bin", "agentkit.js"), "runs", "--inbox-store", "./agent-data", "--json"],
      { cwd: dir, encoding: "utf8" },
    );
    expect(JSON.parse(finished)).toEqual([expect.objectContaining({ runId: "ship-1", status: "finished" })]);
  }, 180_000);
});
