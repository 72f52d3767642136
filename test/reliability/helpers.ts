/**
 * Shared factories and probes of the reliability suite: the echo tool with a
 * body-run counter, a served registry on loopback, raw SDK clients, raw
 * requests, and counters of this process's open fds, child processes and
 * listening sockets (Linux /proc).
 */
import { readdirSync, readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TaskMeta } from "vitest";
import { RunContext } from "../../src/context/run-context.js";
import { tool } from "../../src/tools/function-tool.js";
import type { Tool } from "../../src/tools/tool.js";
import { serveRegistry } from "../../src/mcp/serve/index.js";
import type { McpServerSpec } from "../../src/mcp/serve/index.js";
import { ECHO_SCHEMA } from "../../bench/servers/echo.js";
import { ownListenSockets } from "../helpers/hygiene.js";

declare module "vitest" {
  interface TaskMeta {
    /** Numbers a reliability test reports; RELIABILITY.md shows them next to the verdict. */
    reliability?: Record<string, string | number>;
  }
}

/** Attach measured numbers to the running test (shown in RELIABILITY.md). */
export function report(task: { meta: TaskMeta }, numbers: Record<string, string | number>): void {
  task.meta.reliability = { ...(task.meta.reliability ?? {}), ...numbers };
}

/** Counts tool-body runs. */
export interface BodyCounter {
  runs: number;
}

/** The strict echo schema `{ i: integer, text: string }`: the one the benchmarks serve. */
export { ECHO_SCHEMA } from "../../bench/servers/echo.js";

/** `echo({ i, text })` -> `{"i":..,"text":..}`; counts its runs; waits `delay(i)` ms first when given. */
export function echoTool(counter: BodyCounter, delay?: (i: number) => number): Tool {
  return tool(
    { name: "echo", description: "Echo the arguments back as JSON.", input: ECHO_SCHEMA, sideEffecting: false },
    async (args: { i: number; text: string }) => {
      counter.runs++;
      const d = delay?.(args.i) ?? 0;
      if (d > 0) await new Promise((r) => setTimeout(r, d));
      return { i: args.i, text: args.text };
    },
  );
}

/** The text an echo call must answer. */
export function echoText(args: { i: number; text: string }): string {
  return JSON.stringify({ i: args.i, text: args.text });
}

/** The first text block of a result. */
export function firstText(r: CallToolResult | { content?: unknown }): string | undefined {
  const c = (r as CallToolResult).content?.[0];
  return c?.type === "text" ? c.text : undefined;
}

/** serveRegistry(tools) on an ephemeral loopback port, started. A plain RunContext unless `ctx` is given. */
export async function serve(tools: Tool[], options: { timeoutMs?: number; ctx?: RunContext; port?: number } = {}): Promise<McpServerSpec> {
  const spec = await serveRegistry(tools, {
    name: "rel",
    ctx: options.ctx ?? new RunContext(),
    timeoutMs: options.timeoutMs,
    port: options.port,
  });
  await spec.start();
  return spec;
}

/** The port of a spec's URL. */
export function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** A raw SDK client on `url` with the per-request signal workaround. */
export async function sdkClient(url: string, headers: Readonly<Record<string, string>>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...headers } },
    fetch: (u, init) => fetch(u, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init),
  });
  const client = new Client({ name: "agentkit-reliability", version: "0.0.1" });
  await client.connect(transport);
  return client;
}

/** Port probes shared with the serving tests. */
export { holdPort, portIsFree } from "../mcp-serve/helpers.js";

/** Open file descriptors of this process. */
export function openFds(): number {
  return readdirSync("/proc/self/fd").length;
}

/** Live (non-zombie) descendants of this process: pids with their command lines. */
export function descendants(root = process.pid): string[] {
  const parent = new Map<number, number>();
  const cmd = new Map<number, string>();
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "latin1");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (rest[0] === "Z") continue;
      parent.set(Number(p), Number(rest[1]));
      cmd.set(Number(p), readFileSync(`/proc/${p}/cmdline`, "latin1").split("\0").join(" ").trim());
    } catch {
      // gone
    }
  }
  const out: string[] = [];
  const walk = (pid: number): void => {
    for (const [child, pp] of parent) {
      if (pp === pid) {
        out.push(`${child}: ${cmd.get(child)?.slice(0, 120)}`);
        walk(child);
      }
    }
  };
  walk(root);
  return out;
}

/** How many TCP sockets this process has listening (see `ownListenSockets`). */
export function listeningSockets(): number {
  return ownListenSockets().length;
}

/** The `q`-quantile by nearest rank. */
export function percentile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
}
