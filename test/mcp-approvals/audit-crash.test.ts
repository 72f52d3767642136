/**
 * @module test/mcp-approvals/audit-crash.test
 * The JSONL sink's promise: a decision the CLI has heard is on disk. A child
 * process serves approvals with an audit file; the test SIGKILLs it the moment
 * each answer arrives (no exit hooks, no flush at shutdown) and reads the file.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const FIXTURE = join(ROOT, "test", "fixtures", "approvals", "audit-then-killed.mjs");

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** Start the fixture; resolve what it printed once serving. */
function serveInChild(
  auditPath: string,
): Promise<{ child: ChildProcess; url: string; headers: Record<string, string>; configPath: string }> {
  if (!existsSync(join(ROOT, "dist", "mcp", "index.js"))) throw new Error("dist/ is missing: run npm run build first");
  const child = spawn(process.execPath, [FIXTURE, auditPath], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`fixture did not start within 20s: ${err}`)), 20_000);
    child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
    child.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) {
        clearTimeout(timer);
        const info = JSON.parse(out.slice(0, nl)) as { url: string; headers: Record<string, string>; configPath: string };
        // SIGKILL skips the server's own cleanup: the config's agentkit-* directory is ours to remove.
        cleanups.push(() => rmSync(dirname(info.configPath), { recursive: true, force: true }));
        resolve({ child, ...info });
      }
    });
    child.on("exit", (code) => reject(new Error(`fixture exited early (${code}): ${err}`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

describe("JSONL audit survives a SIGKILL right after the answer", () => {
  for (const [label, args, expected] of [
    [
      "an allow by the reviewer",
      { tool_name: "Write", input: { file_path: "out.txt" } },
      { tool: "Write", allowed: true, source: "asker", asked: true, actor: "ci" },
    ],
    [
      "a refusal",
      { tool_name: "Write", input: { file_path: "/etc/passwd" } },
      { tool: "Write", allowed: false, source: "asker", reason: "/etc is out of scope" },
    ],
    [
      "an auto_allow",
      { tool_name: "Read", input: { file_path: "/etc/passwd" } },
      { tool: "Read", allowed: true, source: "auto_allow", asked: false },
    ],
  ] as const) {
    it(`${label}: the line is on disk`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "agentkit-approvals-crash-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const audit = join(dir, "audit.jsonl");
      const { child, url, headers } = await serveInChild(audit);
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
      const client = new Client({ name: "agentkit-crash-test", version: "0.0.0" });
      cleanups.push(() => void client.close().catch(() => {}));
      await client.connect(transport);
      const result = await client.callTool({ name: "approve", arguments: args });
      const dead = killed(child); // the moment the answer is in
      const answer = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { behavior: string };
      await dead;
      expect(child.signalCode).toBe("SIGKILL");
      expect(answer.behavior).toBe(expected.allowed ? "allow" : "deny");
      const lines = readFileSync(audit, "utf8").split("\n").filter(Boolean);
      expect(lines).toHaveLength(1);
      const record = JSON.parse(lines[0]!) as Record<string, unknown>;
      expect(record).toMatchObject({ ...expected, arguments: args.input });
    });
  }
});
