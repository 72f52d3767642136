/**
 * @module mcp/serve/served-catalog
 * What a served registry advertises: each tool's wire name, its untranslated
 * `inputSchema`, its declarations as annotations and under `_meta.agentkit`,
 * and the qualified-name views (`toolNames`, `mcpNames`, ...) a caller hands
 * to a CLI. Computed once, when the registry is served.
 */
import { OptionsError } from "../../errors/options.error.js";
import type { Tool as SdkTool } from "@modelcontextprotocol/server";
import { ToolRegistry, type ToolLike } from "../../tools/tool-registry.js";
import type { Tool } from "../../tools/tool.js";
import { pyList } from "../../util/format.js";
import { checkQualifiedName, sanitiseToolName } from "../../wire/names.js";
import { AgentkitError } from "../../errors/agentkit.error.js";
import { DEFAULT_RESULT_CHARS, resultSizeHint } from "./served-results.js";

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

/** Everything advertised by one served registry; grows only through `add()`. */
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
  /** Serve one more tool (a schema-less one is dropped: `undefined`); throws code `mcp_name` as `buildCatalog` does. */
  add(tool: Tool): ServedTool | undefined;
}

/** A registry, or a bare iterable of tools / `@Tool` classes (registered for you, so duplicates are refused as a registry refuses them). */
export type ToolSource = ToolRegistry | Iterable<ToolLike>;

function toTools(source: ToolSource): Tool[] {
  if (source instanceof ToolRegistry) return source.tools();
  if (source && typeof (source as ToolRegistry).tools === "function" && typeof (source as ToolRegistry).register === "function") {
    return (source as ToolRegistry).tools();
  }
  if (!source || typeof (source as Iterable<ToolLike>)[Symbol.iterator] !== "function") {
    throw new OptionsError(
      "serveRegistry",
      "options",
      `serveRegistry: expected a ToolRegistry or an iterable of tools, got ${source === null ? "null" : typeof source}`,
    );
  }
  return ToolRegistry.fromTools(source).tools();
}

/** One tool's catalog entry; throws code `mcp_name` for a name that collides once sanitised or a qualified name over 64 characters. */
/**
 * What Claude Code reads in a tool's `_meta` (`anthropic/*`): its search hint,
 * whether it loads up front, and how long a result it shows whole (only a
 * budget over 50,000; `defaultBudget` is the module's `results.maxChars`).
 */
export function claudeToolMeta(tool: Tool, defaultBudget: number): Record<string, unknown> {
  const hint = resultSizeHint(tool.maxResultChars ?? defaultBudget);
  return {
    ...(tool.searchHint !== undefined ? { "anthropic/searchHint": tool.searchHint } : {}),
    ...(tool.alwaysLoad !== undefined ? { "anthropic/alwaysLoad": tool.alwaysLoad } : {}),
    ...(hint !== undefined ? { "anthropic/maxResultSizeChars": hint } : {}),
  };
}

function servedTool(
  tool: Tool,
  server: string,
  byName: ReadonlyMap<string, ServedTool>,
  checked?: ReadonlyMap<string, string>,
  defaultBudget = DEFAULT_RESULT_CHARS,
): ServedTool {
  const name = sanitiseToolName(tool.name);
  const clash = byName.get(name);
  if (clash) {
    throw new AgentkitError(
      "mcp_name",
      `tools '${clash.tool.name}' and '${tool.name}' both serve as '${name}' once sanitised to [A-Za-z0-9_-]; ` +
        `rename one of them (a registry refuses duplicate names, and sanitising must not re-open that hole one layer ` +
        `down)`,
    );
  }
  const qualifiedName = checked?.get(tool.name) ?? checkQualifiedName(server, name, tool.name);
  const readOnly = !(tool.sideEffecting || tool.requiresApproval);
  const meta: AgentkitToolMeta = { side_effecting: tool.sideEffecting, requires_approval: tool.requiresApproval, caps: [...tool.caps] };
  const descriptor: SdkTool = {
    name,
    description: tool.schema!.description || tool.description,
    // The tool's own frozen schema object, untouched: serialised as is.
    inputSchema: tool.schema!.parameters as SdkTool["inputSchema"],
    annotations: { readOnlyHint: readOnly, destructiveHint: !readOnly },
    _meta: { [META_KEY]: meta, ...claudeToolMeta(tool, defaultBudget) },
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as SdkTool["outputSchema"] } : {}),
  };
  return Object.freeze({ tool, name, qualifiedName, descriptor });
}

/**
 * The catalog of one served registry. The views (`toolNames`, `mcpNames`,
 * ...) are computed from the tools and cached until `add()` grows it; the
 * `tools/list` result is one object extended in place, so a session's
 * handler always answers the current list.
 */
class Catalog implements ServedCatalog {
  readonly byName = new Map<string, ServedTool>();
  readonly listResult: { readonly tools: SdkTool[] } = { tools: [] };
  private readonly served: ServedTool[] = [];
  private views?: Omit<ServedCatalog, "server" | "byName" | "listResult" | "add">;

  constructor(
    readonly server: string,
    /** Tool name -> qualified name, checked by the caller (bootstrap's scan). */
    private readonly checked?: ReadonlyMap<string, string>,
    /** The module's `results.maxChars` (a tool's budget unless it declares its own). */
    private readonly defaultBudget = DEFAULT_RESULT_CHARS,
  ) {}

  add(tool: Tool): ServedTool | undefined {
    if (!tool.schema) return undefined;
    const entry = servedTool(tool, this.server, this.byName, this.checked, this.defaultBudget);
    this.served.push(entry);
    this.byName.set(entry.name, entry);
    this.listResult.tools.push(entry.descriptor);
    this.views = undefined;
    return entry;
  }

  private get v(): NonNullable<Catalog["views"]> {
    return (this.views ??= computeViews(this.served));
  }
  get tools(): readonly ServedTool[] {
    return this.v.tools;
  }
  get available(): string {
    return this.v.available;
  }
  get toolNames(): readonly string[] {
    return this.v.toolNames;
  }
  get mcpNames(): Readonly<Record<string, string>> {
    return this.v.mcpNames;
  }
  get requiresApproval(): readonly string[] {
    return this.v.requiresApproval;
  }
  get autoApprove(): readonly string[] {
    return this.v.autoApprove;
  }
  get caps(): readonly string[] {
    return this.v.caps;
  }
}

function computeViews(served: readonly ServedTool[]): NonNullable<Catalog["views"]> {
  const sorted = (xs: string[]): readonly string[] => Object.freeze([...xs].sort());
  const mcpNames: Record<string, string> = {};
  for (const s of served) mcpNames[s.tool.name] = s.qualifiedName;
  return {
    tools: Object.freeze([...served]),
    available: pyList(served.map((s) => s.name).sort()),
    toolNames: sorted(served.map((s) => s.qualifiedName)),
    mcpNames: Object.freeze(mcpNames),
    requiresApproval: sorted(served.filter((s) => s.tool.requiresApproval).map((s) => s.qualifiedName)),
    autoApprove: sorted(served.filter((s) => !s.tool.requiresApproval).map((s) => s.qualifiedName)),
    caps: sorted([...new Set(served.flatMap((s) => [...s.tool.caps]))]),
  };
}

/**
 * Build the catalog. Schema-less tools are dropped (MCP requires an
 * `inputSchema`; inventing an empty one would have the model call blind).
 * Tool names are sanitised; two that collide after sanitising throw
 * an `AgentkitError` (code `mcp_name`) naming both; a qualified name over 64
 * characters throws (reason `"too_long"`). The server name must already be
 * checked (`checkServerName`); a tool named in `checked` has its qualified
 * name from there, already checked (bootstrap's scan), and is not checked again.
 * `defaultBudget` is the module's `results.maxChars` (default 20,000): a tool
 * whose budget is over 50,000 declares `anthropic/maxResultSizeChars`.
 */
export function buildCatalog(
  source: ToolSource,
  server: string,
  checked?: ReadonlyMap<string, string>,
  defaultBudget?: number,
): ServedCatalog {
  const catalog = new Catalog(server, checked, defaultBudget);
  for (const tool of toTools(source)) catalog.add(tool);
  return catalog;
}
