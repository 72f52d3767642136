/**
 * Crash safety (issue 14): a child process hosting a served registry, an
 * ApprovalServer and two Claude hook endpoints, the way a CLI run hosts them,
 * is attacked over loopback — half a hook body then a reset, a hook that
 * announces 100,000,000 bytes and leaves, an Asker or policy whose verdict
 * JSON cannot encode (BigInt, circular `updatedInput`), a ctx whose `emit`
 * throws, a JSON-RPC batch with a duplicate id. After every attack the child
 * is alive and each of its endpoints still answers a good call; SIGTERM then
 * stops it with exit code 0. Runs against the built package (dist/).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { firstText, portOf, report, sdkClient } from "./helpers.js";
import { rawHttp, rpcMessages, type RawResponse } from "./raw-http.js";

const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURE = join(import.meta.dirname, "fixtures", "host-all.mjs");

interface Endpoint {
  readonly url: string;
  readonly headers: Record<string, string>;
}
interface Hosted {
  readonly child: ChildProcess;
  readonly registry: Endpoint;
  readonly approvals: Endpoint;
  readonly hooks: Endpoint;
  readonly policy: Endpoint;
  readonly stderr: () => string;
}

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Start the fixture (optionally under `prlimit`); resolve the endpoints it printed. */
function hostAll(env: Record<string, string> = {}, prefix: readonly string[] = []): Promise<Hosted> {
  if (!existsSync(join(ROOT, "dist", "mcp", "index.js"))) throw new Error("dist/ is missing: run npm run build first");
  const [cmd, ...args] = [...prefix, process.execPath, FIXTURE];
  const child = spawn(cmd!, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let err = "";
  child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`host-all did not start within 20s: ${err}`)), 20_000);
    const onData = (b: Buffer): void => {
      out += b.toString();
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      child.stdout!.off("data", onData);
      resolve({ child, ...(JSON.parse(out.slice(0, nl)) as Omit<Hosted, "child" | "stderr">), stderr: () => err });
    };
    child.stdout!.on("data", onData);
    child.once("exit", (code, signal) => reject(new Error(`host-all exited early (${code ?? signal}): ${err}`)));
  });
}

/** SIGTERM the child; resolve its exit code (or signal name). */
function stopped(child: ChildProcess): Promise<number | string> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode ?? child.signalCode!);
    child.once("exit", (code, signal) => resolve(code ?? signal!));
    child.kill("SIGTERM");
  });
}

function hookBody(toolName: string, toolInput: Record<string, unknown> = {}): string {
  return JSON.stringify({
    hook_event_name: "PreToolUse",
    tool_name: toolName,
    tool_input: toolInput,
    tool_use_id: `toolu_${toolName}`,
    session_id: "s1",
    cwd: "/tmp",
    permission_mode: "default",
  });
}

/** POST a hook document to `e`. */
function postHook(e: Endpoint, body: string, extra: Array<[string, string]> = []): Promise<RawResponse> {
  const u = new URL(e.url);
  const headers: Array<[string, string]> = [["Host", u.host], ["Content-Type", "application/json"], ...Object.entries(e.headers), ...extra];
  return rawHttp(Number(u.port), { method: "POST", path: u.pathname, headers, body });
}

/** Headers, then `sent` bytes of a body announced as `declared` bytes, then reset (or a plain close). */
function abandonBody(e: Endpoint, declared: number, sent: string, how: "reset" | "close"): Promise<void> {
  const u = new URL(e.url);
  return new Promise((resolve) => {
    const s = connect({ host: "127.0.0.1", port: Number(u.port) }, () => {
      const auth = Object.entries(e.headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("");
      s.write(
        `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\n${auth}Content-Length: ${declared}\r\n\r\n${sent}`,
      );
      setTimeout(() => {
        if (how === "reset") s.resetAndDestroy();
        else s.end();
        // The server may hold a half-closed request until its body deadline: do not wait for that.
        setTimeout(resolve, 100);
      }, 50);
    });
    s.on("error", () => {});
  });
}

function verdictOf(r: RawResponse): { decision?: string; reason?: string } {
  const out = (JSON.parse(r.body) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } })
    .hookSpecificOutput;
  return { decision: out?.permissionDecision, reason: out?.permissionDecisionReason };
}

describe("crash safety: registry + approvals + hook endpoint in one process", () => {
  it(
    "survives every attack of issue 14, serves a good call after each, and exits 0 when stopped",
    { timeout: 120_000 },
    async ({ task }) => {
      const h = await hostAll();
      const registry: Client = await sdkClient(h.registry.url, h.registry.headers);
      cleanups.push(() => registry.close());
      const approvals: Client = await sdkClient(h.approvals.url, h.approvals.headers);
      cleanups.push(() => approvals.close());
      let round = 0;
      const healthy = async (after: string): Promise<void> => {
        round++;
        // A crash (an unhandled rejection) takes a tick or two to end the process.
        await new Promise((r) => setTimeout(r, 100));
        expect(h.child.exitCode, `${after}: the host exited; stderr: ${h.stderr()}`).toBeNull();
        const echo = (await registry.callTool({ name: "echo", arguments: { i: round, text: after } })) as CallToolResult;
        expect(JSON.parse(firstText(echo)!)).toMatchObject({ i: round, text: after });
        const approve = (await approvals.callTool({
          name: "approve",
          arguments: { tool_name: "Write", input: { n: round } },
        })) as CallToolResult;
        expect(JSON.parse(firstText(approve)!)).toMatchObject({ behavior: "allow" });
        for (const e of [h.hooks, h.policy]) {
          const good = await postHook(e, hookBody("Read", { file_path: "x" }));
          expect(good.status, `${after}: a good hook call`).toBe(200);
          expect(verdictOf(good).decision).toBe("allow");
        }
      };
      await healthy("start");

      const attacks: Array<[string, () => Promise<void>]> = [
        ["hook: half a body, then a reset", () => abandonBody(h.hooks, 400, hookBody("Read").slice(0, 40), "reset")],
        ["hook: half a body, then a close", () => abandonBody(h.policy, 400, hookBody("Read").slice(0, 40), "close")],
        ["hook: Content-Length 100000000, then leave", () => abandonBody(h.hooks, 100_000_000, "{", "close")],
        ["hook: Content-Length 100000000, then reset", () => abandonBody(h.policy, 100_000_000, '{"tool_name":', "reset")],
      ];
      const unencodable: Array<[Endpoint, string]> = [
        [h.hooks, "BigIntModify"],
        [h.hooks, "CircularModify"],
        [h.policy, "BigIntInput"],
        [h.policy, "CircularInput"],
        [h.policy, "BigIntReason"],
      ];
      const denials: Record<string, string> = {};
      for (const [e, name] of unencodable) {
        attacks.push([
          `hook: a verdict JSON cannot encode (${name})`,
          async () => {
            const r = await postHook(e, hookBody(name));
            expect(r.status, `${name}: ${r.body}`).toBe(200);
            const v = verdictOf(r);
            expect(v.decision).toBe("deny");
            // An unencodable modify value is refused by the gate as not plain JSON; a policy's
            // unencodable reason is dropped (the deny stands, with the gate's own words).
            expect(v.reason).toMatch(name === "BigIntReason" ? /^rejected by policy$/ : /JSON/);
            denials[name] = v.reason!;
          },
        ]);
      }
      attacks.push([
        "hook: ctx.emit throws",
        async () => {
          const r = await postHook(h.hooks, hookBody("EmitThrows"));
          expect(r.status, r.body).toBe(200);
          expect(["allow", "deny"]).toContain(verdictOf(r).decision);
        },
      ]);
      attacks.push([
        "registry: a batch with a duplicate id",
        async () => {
          const u = new URL(h.registry.url);
          const call = (text: string) => ({
            jsonrpc: "2.0",
            id: 7,
            method: "tools/call",
            params: { name: "echo", arguments: { i: 0, text } },
          });
          const r = await rawHttp(Number(u.port), {
            method: "POST",
            path: u.pathname,
            headers: [
              ["Host", u.host],
              ["Content-Type", "application/json"],
              ["Accept", "application/json, text/event-stream"],
              ...Object.entries(h.registry.headers),
            ],
            body: JSON.stringify([call("a"), call("b")]),
          });
          expect(r.status === 400 || rpcMessages(r).length === 2, `${r.status} ${r.body}`).toBe(true);
        },
      ]);

      for (const [name, attack] of attacks) {
        await attack();
        await healthy(name);
      }
      await registry.close();
      await approvals.close();
      const code = await stopped(h.child);
      report(task, { attacks: attacks.length, "good calls after each": 4, "exit code when stopped": code, ...denials });
      expect(code, h.stderr()).toBe(0);
      expect(portOf(h.registry.url)).toBeGreaterThan(0);
    },
  );

  it(
    "with the fd limit at 128, a legitimate call succeeds while 500 idle unauthenticated sockets are held",
    { timeout: 120_000 },
    async ({ task }) => {
      const h = await hostAll({}, ["prlimit", "--nofile=128:128", "--"]);
      const port = portOf(h.registry.url);
      const idle: Socket[] = [];
      let closedByServer = 0;
      cleanups.push(() => idle.forEach((s) => s.destroy()));
      for (let i = 0; i < 500; i++) {
        const s = await new Promise<Socket>((resolve) => {
          const c = connect({ host: "127.0.0.1", port }, () => resolve(c));
          c.on("error", () => resolve(c));
        });
        s.on("error", () => {});
        s.on("close", () => closedByServer++);
        idle.push(s);
      }
      const t0 = performance.now();
      const client = await sdkClient(h.registry.url, h.registry.headers);
      const r = (await client.callTool({ name: "echo", arguments: { i: 1, text: "legit" } })) as CallToolResult;
      const legitMs = performance.now() - t0;
      await client.close();
      expect(JSON.parse(firstText(r)!)).toMatchObject({ i: 1, text: "legit" });
      const held = idle.filter((s) => !s.destroyed).length;
      for (const s of idle) s.destroy();
      const code = await stopped(h.child);
      report(task, {
        "idle sockets opened": 500,
        "closed by the server": closedByServer,
        "still open on the client side": held,
        "legit call ms": Math.round(legitMs),
        "exit code": code,
      });
      expect(code, h.stderr()).toBe(0);
    },
  );
});
