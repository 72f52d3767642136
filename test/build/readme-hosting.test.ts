/**
 * @module test/build/readme-hosting.test
 * The "Host your tools" section of docs/hosting.md as a newcomer runs it (issue #43
 * point 1): its install line and its first TypeScript example, taken out of
 * the guide exactly as written (imports included), in a scratch project
 * holding the packed tarball and only the packages that line names (every
 * other optional peer of the package, and the type packages, left out), built
 * with the README's own tsconfig (from its Install section) and run with
 * node. Then, on 127.0.0.1: the tool answers `MCPClient` in both protocol
 * eras with the token from the file its development-mode warning names, and
 * a client that trickles its request headers is answered 408 and cut off
 * within the header deadline.
 */
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, rmSync, symlinkSync, mkdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCPClient, StreamableHttpServer } from "../../src/mcp/index.js";
import { consumerOfTarball } from "../helpers/packed-package.js";
import { runNode } from "../helpers/procs.js";
import { freePort } from "../helpers/nginx.js";
import { killGroup } from "../agentkit-cli/agentkit-process.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");
/** The hosting guide the README links to, where the "Host your tools" section lives. */
const HOSTING = readFileSync(join(ROOT, "docs/hosting.md"), "utf8");
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { peerDependencies: Record<string, string> };
/** What a user has only when a line names it: every optional peer, the type packages, the compilers and the SDKs the repository keeps for its own tests. */
const LEAVABLE = (name: string): boolean => name in PACKAGE.peerDependencies || name.startsWith("@types/") || /^typescript|^@typescript\/|^@modelcontextprotocol\/(sdk|node)/.test(name);

/** The section's text in `page` (README.md unless named), up to the next `## `. */
function section(title: string, page: { name: string; text: string } = { name: "README.md", text: README }): string {
  const start = page.text.indexOf(`## ${title}`);
  if (start < 0) throw new Error(`${page.name} has no '## ${title}' section`);
  const end = page.text.indexOf("\n## ", start + 3);
  return page.text.slice(start, end < 0 ? undefined : end);
}

/** The first fenced block of `lang` in `text`. */
function firstBlock(text: string, lang: string, where: string): string {
  const block = new RegExp("```" + lang + "(?:[ \\t][^\\n]*)?\\n([\\s\\S]*?)```").exec(text)?.[1];
  if (block === undefined) throw new Error(`no \`\`\`${lang} block in ${where}`);
  return block;
}

/** The package names of the `npm install` lines of a sh block (versions dropped, flags ignored). */
function installed(sh: string): string[] {
  const names: string[] = [];
  for (const line of sh.split("\n")) {
    const words = /^npm install\s+(.*)$/.exec(line.trim())?.[1]?.split(/\s+/) ?? [];
    for (const word of words) if (!word.startsWith("-")) names.push(word.replace(/(.)@[^/]*$/, "$1"));
  }
  return names;
}

/** The packages a TypeScript file imports (bare specifiers, subpaths dropped; `node:` built-ins left out). */
function importedPackages(ts: string): string[] {
  const out = new Set<string>();
  for (const m of ts.matchAll(/^import\s+(?:[^"']*?from\s+)?["']([^"'.][^"']*)["']/gm)) {
    const spec = m[1]!;
    if (spec.startsWith("node:")) continue;
    out.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
  }
  return [...out];
}

const hosting = section("Host your tools", { name: "docs/hosting.md", text: HOSTING });
const INSTALL = installed(firstBlock(hosting, "sh", "docs/hosting.md '## Host your tools'"));
const EXAMPLE = firstBlock(hosting, "ts", "docs/hosting.md '## Host your tools'");
const TSCONFIG = JSON.parse(firstBlock(section("Install"), "json", "'## Install'").replace(/^\s*/, "")) as object;

/** The scratch project: the tarball extracted, and of the checkout's packages only those a user has without naming them plus the ones the install line names. */
async function scratchProject(): Promise<string> {
  const modules = join(ROOT, "node_modules");
  const scopes = readdirSync(modules).filter((n) => n.startsWith("@"));
  const unscopedLeftOut = readdirSync(modules).filter((n) => !n.startsWith("@") && LEAVABLE(n) && !INSTALL.includes(n));
  const dir = await consumerOfTarball(ROOT, [...scopes, ...unscopedLeftOut]);
  for (const scope of scopes) {
    mkdirSync(join(dir, "node_modules", scope), { recursive: true });
    for (const sub of readdirSync(join(modules, scope))) {
      const name = `${scope}/${sub}`;
      if (LEAVABLE(name) && !INSTALL.includes(name)) continue;
      symlinkSync(join(modules, scope, sub), join(dir, "node_modules", scope, sub), "dir");
    }
  }
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src/server.ts"), EXAMPLE);
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
  return dir;
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

let dir: string;
beforeAll(async () => {
  dir = await scratchProject();
}, 600_000);
afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

describe("docs/hosting.md: Host your tools, as written", () => {
  it("the install line names every package the example imports, and the compiler and the type packages it needs", () => {
    for (const pkg of importedPackages(EXAMPLE)) expect(INSTALL, `imported by the example: ${pkg}`).toContain(pkg);
    for (const pkg of ["typescript", "@types/node", "@types/express"]) expect(INSTALL).toContain(pkg);
  });

  it("compiles with the README's tsconfig and the install line's packages only, then answers on 127.0.0.1 in both eras and cuts a trickling client (408)", async () => {
    const tsc = await runNode([join(dir, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: dir, ms: 300_000 });
    expect(tsc.stdout.split("\n").filter((l) => /error TS\d+/.test(l))).toEqual([]);
    expect(tsc.code).toBe(0);

    const port = await freePort();
    const child = spawn(process.execPath, ["dist/server.js"], { cwd: dir, env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on("data", () => out.includes("\n") && resolve());
        child.once("exit", (c) => reject(new Error(`the hosting guide's example exited (${c}) before listening: ${out}${err}`)));
      });
      const url = `http://127.0.0.1:${port}/mcp`;
      expect(out).toBe(`listening on ${url}\n`);
      await expect.poll(() => err).toMatch(/The current token is in (\S+)/);
      const authorization = readFileSync(/The current token is in (\S+)/.exec(err)![1]!, "utf8").trim();
      for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
        await using client = await MCPClient.start(new StreamableHttpServer({ url, headers: { Authorization: authorization }, protocol }));
        expect(await client.callTool("who_calls", {}), protocol).toMatchObject({ content: [{ type: "text", text: "called by agentkit-dev" }] });
      }
      const cut = await Promise.race([trickleHeaders(port), new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the trickling connection was still open after 20 s")), 20_000))]);
      expect(cut.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(cut.afterMs).toBeLessThan(12_000);
    } finally {
      await killGroup(child);
    }
  }, 600_000);
});
