/**
 * @module test/agentkit-cli/call-task.test
 * `agentkit call` on 2026-07-28 against a real `agentkit serve --approve web
 * --inbox-store DIR` child whose `deploy` tool requires approval: the call
 * declares the tasks extension, gets a task at once, polls `tasks/get` with
 * `Mcp-Name`, shows a progress line naming the task on a real terminal
 * (tmux), and prints the result once the person approves through the inbox's
 * HTTP API; Ctrl-C (SIGINT) sends `tasks/cancel`, the inbox question is
 * withdrawn and the tool never runs.
 *
 * What went over the wire is read by a recording proxy between the two
 * processes (a real HTTP hop on 127.0.0.1 that forwards every request and
 * streams every answer back, keeping a copy).
 * (The same call on 2025-11-25, held open in the call: call-waits.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TmuxTerminal } from "../askers/tmux-terminal.js";
import { AGENTKIT, FIXTURES, requireBuild, ServeProcess } from "./agentkit-process.js";
import { answerOnPage, logIn, pageHtml } from "./inbox-page.js";

beforeAll(() => requireBuild());

const dir = mkdtempSync(join(tmpdir(), "agentkit-call-task-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TASKS = "io.modelcontextprotocol/tasks";

/** One JSON-RPC request as the proxy saw it, and the answer's body (JSON or the SSE text) once the answer ended. */
interface Seen {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly headers: IncomingHttpHeaders;
  status?: number;
  answer: string;
}

/** A recording HTTP proxy to `upstream` (an MCP endpoint URL) on 127.0.0.1. */
async function recordingProxy(upstream: string): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const target = new URL(upstream);
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let entry: Seen | undefined;
      try {
        const msg = JSON.parse(body.toString("utf8")) as { method?: string; params?: Record<string, unknown> };
        if (typeof msg.method === "string")
          seen.push((entry = { method: msg.method, params: msg.params ?? {}, headers: req.headers, answer: "" }));
      } catch {
        // not JSON (a GET or DELETE): forwarded unrecorded
      }
      const up = httpRequest(
        { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
        (upRes) => {
          if (entry) entry.status = upRes.statusCode;
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.on("data", (c: Buffer) => {
            if (entry) entry.answer += c.toString("utf8");
            res.write(c);
          });
          upRes.on("end", () => res.end());
        },
      );
      up.on("error", () => res.destroy());
      res.on("close", () => up.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** True when a request's `_meta` client capabilities declare the tasks extension. */
const declares = (s: Seen): boolean => {
  const caps = (s.params._meta as Record<string, { extensions?: Record<string, unknown> }> | undefined)?.[
    "io.modelcontextprotocol/clientCapabilities"
  ];
  return caps?.extensions?.[TASKS] !== undefined;
};

/** The task id a `tools/call` answer handed out (its `resultType: "task"`), or undefined. */
const handedOut = (s: Seen | undefined): string | undefined =>
  /"resultType":"task"[^}]*?"taskId":"([A-Za-z0-9_-]+)"|"taskId":"([A-Za-z0-9_-]+)"[^}]*?"resultType":"task"/
    .exec(s?.answer ?? "")
    ?.slice(1)
    .find(Boolean);

/** `agentkit serve` of the approval module on `--inbox-store`, its inbox session, and a recording proxy in front of its `ops` server. */
async function setUp(name: string) {
  const deploys = join(dir, `${name}-deploys`);
  const server = await ServeProcess.start(
    [join(FIXTURES, "approval-tool-module.mjs"), "--approve", "web", "--inbox-store", join(dir, `${name}-inbox`)],
    { env: { AGENTKIT_TEST_DEPLOYS: deploys }, timeoutMs: 40_000 },
  );
  const session = await logIn(await server.loginLink());
  const ops = server.serverEntry("ops");
  const proxy = await recordingProxy(ops.url);
  const argv = [
    process.execPath,
    AGENTKIT,
    "call",
    "deploy",
    "--args",
    '{"target": "prod"}',
    "--url",
    proxy.url,
    "--header-env",
    "Authorization=OPS_AUTH",
    "--protocol",
    "2026-07-28",
  ];
  const term = TmuxTerminal.start(argv, { cols: 160, rows: 20, env: { OPS_AUTH: ops.headers.Authorization! } });
  return {
    server,
    session,
    proxy,
    term,
    deploys,
    [Symbol.asyncDispose]: async () => {
      term.close();
      await proxy.close();
      await server[Symbol.asyncDispose]();
    },
  };
}

describe("agentkit call on 2026-07-28: a tool that waits for approval is an MCP task", () => {
  it("declares the extension, gets a task, polls it with Mcp-Name behind a progress line, and prints the result once the person approves in the inbox", async () => {
    await using t = await setUp("approve");
    const line = await t.term.until(/task [A-Za-z0-9_-]{8} working: waiting for approval/, 30_000);
    const call = t.proxy.seen.find((s) => s.method === "tools/call");
    expect(call && declares(call), "tools/call did not declare the tasks extension").toBe(true);
    const taskId = handedOut(call);
    expect(taskId, `tools/call was not answered with a task: ${call?.answer}`).toBeDefined();
    expect(line).toContain(`calling deploy… task ${taskId!.slice(0, 8)} working: waiting for approval`);
    await expect.poll(() => t.proxy.seen.filter((s) => s.method === "tasks/get").length, { timeout: 10_000 }).toBeGreaterThan(0);
    await answerOnPage(t.session, "deploy", { kind: "approve" });
    const done = await t.term.until(/EXITED \d+/, 30_000);
    expect(done).toMatch(/EXITED 0/);
    expect(done).toContain("deployed to prod");
    expect(t.term.visibleScreen()).not.toMatch(/waiting for approval\s*$/m);
    const gets = t.proxy.seen.filter((s) => s.method === "tasks/get");
    expect(gets.every((g) => g.headers["mcp-name"] === taskId && g.params.taskId === taskId && declares(g))).toBe(true);
    expect(gets.at(-1)!.answer).toContain('"status":"completed"');
    expect(t.proxy.seen.some((s) => s.method === "tasks/cancel")).toBe(false);
    expect(readFileSync(t.deploys, "utf8")).toBe("prod\n");
  }, 120_000);

  it("Ctrl-C while the task waits sends tasks/cancel (Mcp-Name, acknowledged) before the call exits; the inbox question is withdrawn and deploy never runs", async () => {
    await using t = await setUp("interrupt");
    await t.term.until(/task [A-Za-z0-9_-]{8} working: waiting for approval/, 30_000);
    await expect.poll(() => pageHtml(t.session), { timeout: 20_000 }).toMatch(/data-status="pending"/);
    const taskId = handedOut(t.proxy.seen.find((s) => s.method === "tools/call"))!;
    t.term.keys("C-c");
    const done = await t.term.until(/EXITED \d+/, 30_000);
    expect(done).toMatch(/EXITED 130/);
    expect(done).toContain(`agentkit call: interrupted; the server was sent tasks/cancel for task ${taskId}`);
    const cancels = t.proxy.seen.filter((s) => s.method === "tasks/cancel");
    expect(cancels).toHaveLength(1);
    expect(cancels[0]!.headers["mcp-name"]).toBe(taskId);
    expect(cancels[0]!.params.taskId).toBe(taskId);
    expect(cancels[0]!.status).toBe(200);
    expect(cancels[0]!.answer).toMatch(/"result":\{/);
    await expect.poll(() => pageHtml(t.session), { timeout: 20_000 }).not.toMatch(/data-status="pending"/);
    expect(() => readFileSync(t.deploys, "utf8")).toThrow(/ENOENT/);
  }, 120_000);
});
