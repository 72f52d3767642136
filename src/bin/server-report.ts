/**
 * @module bin/server-report
 * What `agentkit inspect` shows about a server: its tools as agentkit adapts
 * them, its resources and its prompts — as data (`--json`) and as text.
 */
import type { Prompt as SdkPrompt, Resource, Tool as SdkTool } from "@modelcontextprotocol/client";
import type { MCPClient } from "../mcp/client/index.js";
import { qualifiedName, sanitiseToolName } from "../wire/names.js";

/** One argument of a tool, from its input schema. */
export interface ArgumentReport {
  readonly name: string;
  /** A short type label: `string`, `integer`, `string[]`, `"a"|"b"`, `any`. */
  readonly type: string;
  readonly required: boolean;
  readonly description: string | null;
}

/** One tool, as `mcpTools(client, { prefix })` adapts it. */
export interface ToolReport {
  /** The name on the server. */
  readonly name: string;
  /** The adapted `Tool.name`: prefix + name. */
  readonly adaptedName: string;
  /** The name the Claude CLI gives it: `mcp__<server>__<name>` (name sanitised to [A-Za-z0-9_-]). */
  readonly qualifiedName: string;
  readonly description: string;
  /** The adapted tool's `sideEffecting` (MCP has no read-only marker the adapter trusts: true). */
  readonly sideEffecting: boolean;
  /** The adapted tool's `requiresApproval`. */
  readonly requiresApproval: boolean;
  /** `annotations.readOnlyHint` as the server sent it; `null` when absent. A hint, not a guarantee. */
  readonly readOnlyHint: boolean | null;
  /** The `_meta.agentkit` declarations an agentkit server sends (`side_effecting`, `requires_approval`, `caps`); `null` otherwise. */
  readonly agentkit: Readonly<Record<string, unknown>> | null;
  readonly arguments: readonly ArgumentReport[];
  /** The input schema, unchanged. */
  readonly inputSchema: unknown;
}

/** One resource. */
export interface ResourceReport {
  readonly uri: string;
  readonly name: string;
  readonly mimeType: string | null;
  readonly description: string | null;
}

/** One prompt: `static` (no required argument: `mcpPrompts` renders it) or `argumented` (dropped by `mcpPrompts`; use `getPrompt`). */
export interface PromptReport {
  readonly name: string;
  readonly description: string | null;
  readonly kind: "static" | "argumented";
  readonly arguments: readonly { readonly name: string; readonly required: boolean; readonly description: string | null }[];
}

/** Everything `agentkit inspect --json` prints (one JSON object; the shape is stable). */
export interface InspectReport {
  readonly server: {
    /** `serverInfo.name` from initialize (`null` when the server sent none). */
    readonly name: string | null;
    readonly version: string | null;
    /** The server name used in qualified names (`--name`, else `serverInfo.name` sanitised). */
    readonly qualifiedAs: string;
    /** The capabilities the server advertised, sorted (`prompts`, `resources`, `tools`, ...). */
    readonly capabilities: readonly string[];
  };
  readonly tools: readonly ToolReport[];
  readonly resources: readonly ResourceReport[];
  readonly prompts: readonly PromptReport[];
}

type Schema = Readonly<Record<string, unknown>>;

/** A short label for a JSON Schema's type: `string`, `integer[]`, `"a"|"b"`, `string|null`, `object`, `any`. */
export function typeLabel(schema: unknown): string {
  if (!schema || typeof schema !== "object") return "any";
  const s = schema as Schema;
  if (Array.isArray(s.enum)) return s.enum.length <= 6 ? s.enum.map((v) => JSON.stringify(v)).join("|") : "enum";
  if ("const" in s) return JSON.stringify(s.const);
  const union = (s.anyOf ?? s.oneOf) as unknown;
  if (Array.isArray(union)) return [...new Set(union.map(typeLabel))].join("|");
  if (Array.isArray(s.type)) return s.type.map((t) => (t === "array" ? arrayLabel(s) : String(t))).join("|");
  if (s.type === "array") return arrayLabel(s);
  if (typeof s.type === "string") return s.type;
  if (s.properties) return "object";
  return "any";
}

function arrayLabel(s: Schema): string {
  if (!s.items || Array.isArray(s.items)) return "array";
  const inner = typeLabel(s.items);
  return inner.includes("|") ? `(${inner})[]` : `${inner}[]`;
}

/** The arguments of an input schema, in property order. */
export function argumentsOf(inputSchema: unknown): ArgumentReport[] {
  const s = (inputSchema ?? {}) as Schema;
  const props = (s.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  return Object.entries(props).map(([name, p]) => ({
    name,
    type: typeLabel(p),
    required: required.has(name),
    description: typeof (p as Schema)?.description === "string" ? ((p as Schema).description as string) : null,
  }));
}

/** `name: string (required), strict: boolean`, or `(no arguments)`. */
export function argumentSummary(args: readonly ArgumentReport[]): string {
  if (!args.length) return "(no arguments)";
  return args.map((a) => `${a.name}: ${a.type}${a.required ? " (required)" : ""}`).join(", ");
}

function promptReport(p: SdkPrompt): PromptReport {
  const args = (p.arguments ?? []).map((a) => ({ name: a.name, required: a.required === true, description: a.description ?? null }));
  return {
    name: p.name,
    description: p.description ?? null,
    kind: args.some((a) => a.required) ? "argumented" : "static",
    arguments: args,
  };
}

function resourceReport(r: Resource): ResourceReport {
  return { uri: r.uri, name: r.name, mimeType: r.mimeType ?? null, description: r.description ?? null };
}

/**
 * Read everything `inspect` shows from an open client: tools through the real
 * adapter (`mcpTools`), resources and prompts when the server advertises them.
 *
 * @throws McpRequestError when a listing fails.
 */
export async function inspectServer(client: MCPClient, options: { prefix?: string; serverName?: string } = {}): Promise<InspectReport> {
  const { mcpTools } = await import("../mcp/client/index.js");
  const info = client.session.getServerVersion();
  const caps = client.session.getServerCapabilities() ?? {};
  const qualifiedAs = sanitiseToolName(options.serverName ?? info?.name ?? "server");
  const raw: SdkTool[] = caps.tools ? await client.listTools() : [];
  const adapted = caps.tools ? await mcpTools(client, { prefix: options.prefix ?? "" }) : [];
  const tools = raw.map((t, i): ToolReport => {
    const a = adapted[i]!;
    const meta = (t._meta as Record<string, unknown> | undefined)?.agentkit;
    return {
      name: t.name,
      adaptedName: a.name,
      qualifiedName: qualifiedName(qualifiedAs, sanitiseToolName(t.name)),
      description: t.description ?? "",
      sideEffecting: a.sideEffecting,
      requiresApproval: a.requiresApproval,
      readOnlyHint: typeof t.annotations?.readOnlyHint === "boolean" ? t.annotations.readOnlyHint : null,
      agentkit: meta && typeof meta === "object" ? (meta as Record<string, unknown>) : null,
      arguments: argumentsOf(t.inputSchema),
      inputSchema: t.inputSchema,
    };
  });
  const resources = caps.resources ? (await client.listResources()).map(resourceReport) : [];
  const prompts = caps.prompts ? (await client.listPrompts()).map(promptReport) : [];
  return {
    server: { name: info?.name ?? null, version: info?.version ?? null, qualifiedAs, capabilities: Object.keys(caps).sort() },
    tools,
    resources,
    prompts,
  };
}

const yesNo = (b: boolean) => (b ? "yes" : "no");

function firstLine(text: string | null, max = 120): string {
  const line = (text ?? "").split("\n").find((l) => l.trim()) ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line.trim();
}

/** The human-readable rendering of a report (what `agentkit inspect` prints without `--json`). */
export function renderReport(report: InspectReport): string {
  const out: string[] = [];
  const s = report.server;
  out.push(`server: ${s.name ?? "(unnamed)"}${s.version ? ` ${s.version}` : ""} — tools are qualified as mcp__${s.qualifiedAs}__<tool>`);
  out.push("");
  out.push(`tools (${report.tools.length}):`);
  for (const t of report.tools) {
    const d = firstLine(t.description);
    out.push(`  ${t.adaptedName}${d ? ` — ${d}` : ""}`);
    out.push(`    qualified: ${t.qualifiedName}`);
    const hint = t.readOnlyHint === null ? "unset" : yesNo(t.readOnlyHint);
    // An adapted tool is side-effecting whatever the server says, unless told to trust its hint: say so where the two disagree.
    const untrusted =
      t.sideEffecting && (t.readOnlyHint === true || t.agentkit?.side_effecting === false)
        ? " (as mcpTools adapts it: the server's read-only word is trusted only with trustReadOnlyHint: true)"
        : "";
    let flags = `side-effecting: ${yesNo(t.sideEffecting)}${untrusted}   read-only hint: ${hint}`;
    if (t.agentkit) {
      const caps = Array.isArray(t.agentkit.caps) && t.agentkit.caps.length ? `   caps: ${(t.agentkit.caps as string[]).join(", ")}` : "";
      flags += `   declared: side_effecting=${String(t.agentkit.side_effecting)} requires_approval=${String(t.agentkit.requires_approval)}${caps}`;
    }
    out.push(`    ${flags}`);
    out.push(`    args: ${argumentSummary(t.arguments)}`);
  }
  out.push("");
  out.push(`resources (${report.resources.length}):`);
  for (const r of report.resources) {
    const d = firstLine(r.description);
    out.push(`  ${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ""}${d ? ` — ${d}` : ""}`);
  }
  out.push("");
  out.push(`prompts (${report.prompts.length}):`);
  for (const p of report.prompts) {
    const d = firstLine(p.description);
    const args = p.arguments.length ? ` (${p.arguments.map((a) => `${a.name}${a.required ? " (required)" : ""}`).join(", ")})` : "";
    out.push(`  ${p.name}  ${p.kind}${args}${d ? ` — ${d}` : ""}`);
  }
  return `${out.join("\n")}\n`;
}
