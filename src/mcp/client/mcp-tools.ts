/**
 * @module mcp/client/mcp-tools
 * `mcpTools()`: a server's tools as agentkit `Tool`s.
 */
import { checkOptions, opt } from "../../options/option-checks.js";
import type { Tool as SdkTool, ToolAnnotations } from "@modelcontextprotocol/client";
import type { RunContext } from "../../context/run-context.js";
import type { JsonSchema, Tool, ToolSchema } from "../../tools/tool.js";
import { deepFreeze } from "../../util/format.js";
import type { ToolContent } from "../../tools/tool-content.js";
import { toolResultContent, toolResultText } from "./content.js";
import type { MCPClient } from "./mcp-client.js";
import { checkMaxResultChars } from "./result-budget.js";

/** Options of `mcpTools()`. */
export interface McpToolsOptions {
  /** Prepended to every tool's `name` and `schema.name`, e.g. `"fs_"`. Default `""`. Two servers exposing one name need one. */
  readonly prefix?: string;
  /**
   * Keep image blocks of a result: `run()` then returns a `ToolContent` (text
   * form plus parts) for a result with an image, which `ReActCognition` hands
   * to the model as image content (a vision-capable provider sends it; others
   * read the text form). Default `false`: results are text, images become
   * `[image content omitted]`.
   */
  readonly keepImages?: boolean;
  /**
   * Believe the server's `readOnlyHint`: a tool it annotates `readOnlyHint:
   * true` is adapted with `sideEffecting: false`, so under `"gated"` no person
   * is asked for it (a `requiresApproval` rule still would be). Default
   * `false`: every MCP tool is `sideEffecting: true`, because an annotation is
   * the server's claim, not a guarantee — opt in only for a server you trust.
   */
  readonly trustReadOnlyHint?: boolean;
  /**
   * The budget of a result handed to the model, in characters (a positive
   * whole number); wins over the client's `maxResultChars`. Over it, the
   * text is cut head and tail around a line naming how much was cut and the
   * id `client.spilledResult(id)` returns the whole for. A result kept as
   * `ToolContent` (`keepImages`, with an image) is not cut. Default: the
   * client's, else none.
   */
  readonly maxResultChars?: number;
}

/**
 * One MCP tool adapted to the `Tool` contract (structurally: no base class, no
 * registration). `run()` calls the server through the client it came from and
 * returns text (a `ToolContent` when made with `keepImages` and the result has an image): text blocks joined with `\n`,
 * every other block as
 * `[<type> content omitted]`, and an `isError` result as `ERROR: ...` — not an
 * exception. Arguments are not checked locally; the server's schema is passed
 * through unchanged and the server validates. Built by `mcpTools()` only:
 * `arc-agentkit/mcp` exports the class as a type.
 */
export class McpTool<R extends string | ToolContent = string> implements Tool {
  readonly name: string;
  readonly description: string;
  readonly schema: ToolSchema;
  /**
   * True (assume the worst) unless the adapter was made with
   * `trustReadOnlyHint` and the server annotates the tool `readOnlyHint: true`.
   */
  readonly sideEffecting: boolean;
  /** Always false: the adapter does not force a gate the run's tier did not ask for. */
  readonly requiresApproval = false;
  readonly caps: readonly string[] = Object.freeze([]);
  /** The tool's name on the server (without the prefix). */
  readonly mcpName: string;
  /** The server's annotations (`readOnlyHint`, ...). Only `readOnlyHint` is acted on, and only with `trustReadOnlyHint`. */
  readonly annotations: Readonly<ToolAnnotations> | undefined;

  /** Use `mcpTools()`, which lists the client's tools and checks the options. */
  constructor(
    private readonly client: MCPClient,
    tool: SdkTool,
    prefix = "",
    /** See `McpToolsOptions.keepImages`. */
    readonly keepImages = false,
    /** See `McpToolsOptions.trustReadOnlyHint`. */
    trustReadOnlyHint = false,
    /** See `McpToolsOptions.maxResultChars` (`undefined`: the client's). */
    readonly maxResultChars?: number,
  ) {
    this.mcpName = tool.name;
    this.name = `${prefix}${tool.name}`;
    this.description = tool.description ?? "";
    this.schema = Object.freeze({
      name: this.name,
      description: this.description,
      parameters: deepFreeze(structuredClone(tool.inputSchema)) as JsonSchema,
    });
    this.annotations = tool.annotations ? deepFreeze(structuredClone(tool.annotations)) : undefined;
    this.sideEffecting = !(trustReadOnlyHint && this.annotations?.readOnlyHint === true);
    Object.freeze(this);
  }

  /**
   * Call the tool. Checks `ctx` cancellation before sending; aborting the run
   * mid-call cancels the request (see `MCPClient.callTool`).
   *
   * @throws Cancelled when the run is cancelled; McpRequestError when the request itself fails.
   */
  run(args: Record<string, unknown>, ctx: RunContext): Promise<R> {
    return this.client.callTool(this.mcpName, args, { ctx }).then((r) => {
      const out = this.keepImages ? toolResultContent(r) : toolResultText(r);
      if (typeof out !== "string") return out as R;
      const kept = this.client.budgeted(out, this.maxResultChars ?? this.client.maxResultChars);
      if (kept.id !== undefined)
        ctx.emit("mcp.result.cut", { tool: this.name, chars: kept.total, kept: kept.text.length, cut: kept.cut, spillId: kept.id });
      return kept.text as R;
    });
  }
}

/** The options of `mcpTools()`, declared once. */
const MCP_TOOLS_OPTIONS = {
  prefix: opt.string('a string put before each tool name (e.g. "fs_")'),
  keepImages: opt.boolean(),
  trustReadOnlyHint: opt.boolean(),
  maxResultChars: (v: unknown, where: string) => checkMaxResultChars(v, where),
} as const;

/**
 * Adapt every tool of `client`'s server (from its cached `listTools()`) to a
 * `Tool`, in the server's order. `sideEffecting: true` (with
 * `trustReadOnlyHint`: false for a tool annotated `readOnlyHint: true`),
 * `requiresApproval: false`, `caps: []` on each; the result drops into
 * `ReActCognition` unchanged.
 *
 * @throws OptionsError when an option is unknown or has the wrong type; McpRequestError when listing fails;
 * AgentkitError (code `mcp_not_entered`) when the client is closed.
 */
export async function mcpTools(
  client: MCPClient,
  options: McpToolsOptions & { readonly keepImages: true },
): Promise<McpTool<string | ToolContent>[]>;
export async function mcpTools(client: MCPClient, options?: McpToolsOptions): Promise<McpTool[]>;
export async function mcpTools(client: MCPClient, options: McpToolsOptions = {}): Promise<McpTool<string | ToolContent>[]> {
  const o = checkOptions(options, "mcpTools", MCP_TOOLS_OPTIONS);
  return (await client.listTools()).map(
    (t) => new McpTool(client, t, o.prefix ?? "", o.keepImages ?? false, o.trustReadOnlyHint ?? false, o.maxResultChars),
  );
}
