/**
 * @module keys
 * Every metadata key and DI token of the package, in one place. Tokens use
 * `Symbol.for` so two copies of the package loaded in one process agree.
 */

/** Metadata key under which `@Tool` records its frozen options. */
export const TOOL_METADATA = "agentkit:tool";
/** Metadata key under which `@McpServer` records its frozen options. */
export const MCP_SERVER_METADATA = "agentkit:mcp-server";
/** Metadata key under which `@Resource` records its frozen options. */
export const RESOURCE_METADATA = "agentkit:resource";
/** Metadata key under which `@Prompt` records its frozen options. */
export const PROMPT_METADATA = "agentkit:prompt";

/** DI tokens (tsyringe `InjectionToken`s) the package registers or reads. */
export const TOKENS = Object.freeze({
  /** The `RunContext` of the current run or call. */
  RunContext: Symbol.for("agentkit:RunContext"),
  /** The `ToolRegistry` of a bootstrapped module. */
  ToolRegistry: Symbol.for("agentkit:ToolRegistry"),
});

/**
 * The DI token of the package's logger. `bootstrap()` registers it in each
 * module's container (unless a provider or the parent container already
 * does): by default it is `GLOBAL_LOGGER` (from `util/logger`), which forwards every line to
 * whatever `setLogger()` set at the time of the call. Provide your own with
 * `{ provide: LOGGER, useValue: myLogger }`; the package's own warnings in
 * that module (e.g. a remote's dropped prompt) then go to it instead of the
 * global logger. Inject it with `@inject(LOGGER) logger: Logger`.
 */
export const LOGGER: symbol = Symbol.for("agentkit:Logger");
