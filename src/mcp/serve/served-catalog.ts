/**
 * @module mcp/serve/served-catalog
 * What a served registry advertises: each tool's wire name, its untranslated
 * `inputSchema`, its declarations as annotations and under `_meta.agentkit`,
 * and the qualified-name views (`toolNames`, `mcpNames`, ...) a caller hands
 * to a CLI. Computed once, when the registry is served.
 */
import { OptionsError } from "../../errors/options.error.js";
import type { Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import { ToolRegistry, type ToolLike } from "../../tools/tool-registry.js";
import type { Tool } from "../../tools/tool.js";
import { pyList } from "../../util/format.js";
import { checkQualifiedName, sanitiseToolName } from "../../wire/names.js";
import { McpNameError } from "../../wire/mcp-name.error.js";

/** The `_meta` key under which a served tool's declarations travel (namespaced: `_meta` is a shared bag). */
export const META_KEY = "agentkit";

/** The declarations under `_meta[META_KEY]`, in the snake_case wire spelling every agentkit reader of `_meta` expects. */
export interface AgentkitToolMeta {
  readonly side_effecting: boolean;
  readonly requires_approval: boolean;
  readonly caps: readonly string[];
}

/** One served tool: the tool, the name the model sees, and its `tools/list` entry. */
export interface ServedTool {
  readonly tool: Tool;
  /** The sanitised name on the wire (`run.check` -> `run_check`). */
  readonly name: string;
  /** `mcp__<server>__<name>`. */
  readonly qualifiedName: string;
  /** The `tools/list` entry, sent as is. */
  readonly descriptor: SdkTool;
}

/** Everything advertised by one served registry. Frozen. */
export interface ServedCatalog {
  readonly server: string;
  /** Served tools in registry order. */
  readonly tools: readonly ServedTool[];
  /** Served tools by wire name. */
  readonly byName: ReadonlyMap<string, ServedTool>;
  /** The `tools/list` result, built once and sent as is (so `inputSchema` goes out byte for byte). */
  readonly listResult: { readonly tools: SdkTool[] };
  /** `['a', 'b']`: the sorted wire names, for the unknown-tool message. */
  readonly available: string;
  /** Sorted qualified names of the served tools. */
  readonly toolNames: readonly string[];
  /** Original tool name -> qualified name. */
  readonly mcpNames: Readonly<Record<string, string>>;
  /** Sorted qualified names of the tools that declare `requiresApproval`. */
  readonly requiresApproval: readonly string[];
  /** Sorted qualified names of the others. */
  readonly autoApprove: readonly string[];
  /** The union of the served tools' caps, sorted and deduplicated. */
  readonly caps: readonly string[];
}

/** A registry, or a bare iterable of tools / `@Tool` classes (registered for you, so duplicates are refused as a registry refuses them). */
export type ToolSource = ToolRegistry | Iterable<ToolLike>;

function toTools(source: ToolSource): Tool[] {
  if (source instanceof ToolRegistry) return source.tools();
  if (source && typeof (source as ToolRegistry).tools === "function" && typeof (source as ToolRegistry).register === "function") {
    return (source as ToolRegistry).tools();
  }
  if (!source || typeof (source as Iterable<ToolLike>)[Symbol.iterator] !== "function") {
    throw new OptionsError("serveRegistry", "options", `serveRegistry: expected a ToolRegistry or an iterable of tools, got ${source === null ? "null" : typeof source}`);
  }
  return ToolRegistry.fromTools(source).tools();
}

/**
 * Build the catalog. Schema-less tools are dropped (MCP requires an
 * `inputSchema`; inventing an empty one would have the model call blind).
 * Tool names are sanitised; two that collide after sanitising throw
 * `McpNameError` (reason `"collision"`) naming both; a qualified name over 64
 * characters throws (reason `"too_long"`). The server name must already be
 * checked (`checkServerName`).
 */
export function buildCatalog(source: ToolSource, server: string): ServedCatalog {
  const served: ServedTool[] = [];
  const byName = new Map<string, ServedTool>();
  for (const tool of toTools(source)) {
    if (!tool.schema) continue;
    const name = sanitiseToolName(tool.name);
    const clash = byName.get(name);
    if (clash) {
      throw new McpNameError(
        tool.name,
        "collision",
        `tools '${clash.tool.name}' and '${tool.name}' both serve as '${name}' once sanitised to [A-Za-z0-9_-]; rename one of them (a registry refuses duplicate names, and sanitising must not re-open that hole one layer down)`,
      );
    }
    const qualifiedName = checkQualifiedName(server, name, tool.name);
    const readOnly = !(tool.sideEffecting || tool.requiresApproval);
    const meta: AgentkitToolMeta = { side_effecting: tool.sideEffecting, requires_approval: tool.requiresApproval, caps: [...tool.caps] };
    const descriptor: SdkTool = {
      name,
      description: tool.schema.description || tool.description,
      // The tool's own frozen schema object, untouched: serialised as is.
      inputSchema: tool.schema.parameters as SdkTool["inputSchema"],
      annotations: { readOnlyHint: readOnly, destructiveHint: !readOnly },
      _meta: { [META_KEY]: meta },
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as SdkTool["outputSchema"] } : {}),
    };
    const entry = Object.freeze({ tool, name, qualifiedName, descriptor });
    served.push(entry);
    byName.set(name, entry);
  }
  const sorted = (xs: string[]): readonly string[] => Object.freeze([...xs].sort());
  const mcpNames: Record<string, string> = {};
  for (const s of served) mcpNames[s.tool.name] = s.qualifiedName;
  return Object.freeze({
    server,
    tools: Object.freeze(served),
    byName,
    listResult: { tools: served.map((s) => s.descriptor) },
    available: pyList([...byName.keys()].sort()),
    toolNames: sorted(served.map((s) => s.qualifiedName)),
    mcpNames: Object.freeze(mcpNames),
    requiresApproval: sorted(served.filter((s) => s.tool.requiresApproval).map((s) => s.qualifiedName)),
    autoApprove: sorted(served.filter((s) => !s.tool.requiresApproval).map((s) => s.qualifiedName)),
    caps: sorted([...new Set(served.flatMap((s) => [...s.tool.caps]))]),
  });
}
