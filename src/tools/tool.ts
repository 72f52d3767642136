/**
 * @module tools/tool
 * The structural `Tool` contract every tool satisfies: local, class-based or adapted from MCP.
 */
import type { RunContext } from "../context/run-context.js";
import type { JsonSchema, ToolSchema } from "../contracts/tool-schema.js";

/** Re-exported so `tools/tool.js` stays the one import for the tool contract. */
export type { JsonSchema, ToolSchema } from "../contracts/tool-schema.js";

/**
 * A tool. Structural: anything with these members is a tool, no base class
 * and no registration needed. `schema: null` makes it invisible to a model
 * (and it is dropped when served over MCP).
 */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly schema: ToolSchema | null;
  /** True unless the tool is known to be read-only. Gating under `"gated"` keys on this. */
  readonly sideEffecting: boolean;
  /** True when a human must approve every call, under every autonomy tier. */
  readonly requiresApproval: boolean;
  /** Capability tags (`private_data`, `untrusted_content`, `egress`, ...). */
  readonly caps: readonly string[];
  /**
   * OAuth scopes a caller's token must all carry for this tool to be listed
   * or called when it is hosted (`arc-agentkit/express`); absent or empty:
   * any valid token. Ignored everywhere else (loopback, stdio, in process).
   */
  readonly scopes?: readonly string[];
  /** The JSON Schema of the tool's structured result, when it declares one (served as `outputSchema`). */
  readonly outputSchema?: JsonSchema;
  /**
   * When a served call of this tool becomes an MCP task
   * (`io.modelcontextprotocol/tasks`, 2026-07-28): `"auto"` (absent) once
   * the call waits for a person or has run `tasks.afterMs`; `"required"`
   * always; `"never"` never. See `ToolTaskMode`.
   */
  readonly task?: ToolTaskMode;
  /**
   * The most characters of a served result (every text block counted, images
   * and audio as Claude counts them) the client receives whole; over it, the
   * served module answers a preview and a link to the rest (see the serve
   * option `results`). Absent: the module's `results.maxChars`.
   */
  readonly maxResultChars?: number;
  /** A phrase Claude Code's tool search matches this tool by (`_meta["anthropic/searchHint"]` in `tools/list`). */
  readonly searchHint?: string;
  /** True: Claude Code loads this tool up front instead of deferring it behind its tool search (`_meta["anthropic/alwaysLoad"]`). */
  readonly alwaysLoad?: boolean;
  /**
   * Run the tool. Arguments are validated first; a bad call throws `ToolArgumentError`.
   * A served tool may return the MCP SDK's own `CallToolResult` (content blocks: its
   * `TextContent`, `ImageContent`, `AudioContent`, `ResourceLink`, `EmbeddedResource`;
   * `structuredContent`), or an array of those blocks; it goes out as it is. Any other
   * value is sent as text (a string as it is, a `ToolContent` as its text, else JSON).
   */
  run(args: Record<string, unknown>, ctx: RunContext): Promise<unknown>;
  /**
   * Validate `args` against the tool's schema without running it: returns the
   * arguments the body would get, or throws `ToolArgumentError` (the same
   * text `run` would reject with). Optional; the gate calls it before anyone
   * is asked, so a person never approves a call that cannot run.
   */
  checkArguments?(args: Record<string, unknown>): Record<string, unknown>;
}

/**
 * How a served tool's calls use MCP tasks: `"auto"` (the default) answers a
 * 2026-07-28 client that declared the tasks extension with a task handle as
 * soon as the call waits for a person or has run `tasks.afterMs`;
 * `"required"` answers with a task at once (a client without the extension
 * is refused, naming it); `"never"` always answers in the call.
 */
export type ToolTaskMode = "auto" | "required" | "never";

/** The safety declarations shared by `@Tool` and `tool()`. */
export interface ToolDeclarations {
  /** Default `true`: assume the worst; a read-only tool says so. */
  readonly sideEffecting?: boolean;
  /** Default `false`. */
  readonly requiresApproval?: boolean;
  /** Default `[]`. */
  readonly caps?: readonly string[];
  /** OAuth scopes a hosted call needs (all of them); default `[]` (any valid token). See `Tool.scopes`. */
  readonly scopes?: readonly string[];
  /**
   * The served result's budget in characters (a positive integer); see `Tool.maxResultChars`. Default: the module's
   * `results.maxChars` (20,000).
   */
  readonly maxResultChars?: number;
  /** Words Claude Code's tool search finds the tool by; see `Tool.searchHint`. */
  readonly searchHint?: string;
  /** Load the tool up front in Claude Code (not behind its tool search); see `Tool.alwaysLoad`. */
  readonly alwaysLoad?: boolean;
}
