/**
 * @module test/express/readme-hosting.test
 * The README's "Host your tools" express example, run as written (taken out
 * of README.md; only the module import and the port are pointed at this
 * build): a client that trickles its request headers is answered 408 and cut
 * off by the server's deadlines, as `agentkit host` does — not left open for
 * Node's default minute.
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "../helpers/nginx.js";
import { ROOT } from "../helpers/run-sample.js";
import { killGroup } from "../agentkit-cli/agentkit-process.js";

/** The first ```ts block of the README's "Host your tools" section. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Host your tools"));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error("README.md: no ts block under '## Host your tools'");
  return block[1]!;
}

/** Connect to `port` and send a request's headers one short line a second, never ending them; resolves with what the server sent once it closes the socket. */
function trickleHeaders(port: number): Promise<{ answer: string; afterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    let n = 0;
    const drip = setInterval(() => socket.write(`X-Drip-${n++}: 1\r\n`), 1000);
    socket.setEncoding("utf8").on("data", (d: string) => (answer += d));
    socket.once("connect", () => socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    socket.once("close", () => {
      clearInterval(drip);
      resolve({ answer, afterMs: Date.now() - started });
    });
    socket.once("error", (err) => {
      clearInterval(drip);
      if ((err as NodeJS.ErrnoException).code === "ECONNRESET" || (err as NodeJS.ErrnoException).code === "EPIPE") return;
      reject(err);
    });
  });
}

describe("README: the express hosting example", () => {
  it("as written, closes a connection that trickles its headers (408) within the header deadline", async () => {
    const port = await freePort();
    const code = readmeExample()
      .replace(`"./release-tools.module.js"`, `"./samples/hosted/release-tools.module.js"`)
      .replaceAll("8081", String(port));
    const file = join(ROOT, "build", `readme-hosting-example-${process.pid}.mjs`);
    writeFileSync(file, code);
    const child = spawn(process.execPath, [file], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on("data", () => out.includes("\n") && resolve());
        child.once("exit", (c) => reject(new Error(`the README example exited (${c}) before listening: ${out}${err}`)));
      });
      expect(out).toContain(`listening on`);
      const cut = await Promise.race([trickleHeaders(port), new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the trickling connection was still open after 20 s")), 20_000))]);
      expect(cut.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(cut.afterMs).toBeLessThan(12_000);
    } finally {
      await killGroup(child);
      rmSync(file, { force: true });
    }
  }, 40_000);
});
