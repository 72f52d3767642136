/**
 * @module mcp/di/remote
 * Remote MCP servers declared once, by alias, and injected as providers.
 */
import "reflect-metadata";
import { inject } from "tsyringe";
import { OptionsError } from "../../errors/options.error.js";
import { checkOptions, opt, type OptionRule } from "../../options/option-checks.js";
import { describeValue } from "../../util/format.js";
import type { StdioServer, StreamableHttpServer } from "../client/index.js";

/** One remote MCP server a module consumes: its alias, its config, and the prefix its tools get. */
export interface RemoteDeclaration {
  /** The name consumers inject by (`@InjectMcpTools("fs")`). `[A-Za-z0-9_-]+`. */
  readonly alias: string;
  /** How to reach it. */
  readonly server: StdioServer | StreamableHttpServer;
  /** Prepended to every adapted tool's name (and `schema.name`). Default `""`. */
  readonly prefix: string;
  /**
   * Adapt its tools with `mcpTools(client, { trustReadOnlyHint })`: a tool it annotates `readOnlyHint: true` is not
   * side-effecting. Default `false`.
   */
  readonly trustReadOnlyHint?: boolean;
}

const ALIAS = /^[A-Za-z0-9_-]{1,64}$/;

/** The options `remote()` accepts, declared once. */
const REMOTE_OPTIONS = {
  prefix: opt.string(),
  trustReadOnlyHint: opt.boolean(),
} satisfies Record<"prefix" | "trustReadOnlyHint", OptionRule<unknown>>;

/**
 * Declare a remote MCP server for a module's `remotes` list.
 *
 * `options.prefix` (default `""`) is prepended to its tools' names;
 * `options.trustReadOnlyHint` (default `false`) believes its `readOnlyHint`
 * annotations (see `McpToolsOptions.trustReadOnlyHint`).
 *
 * @example `remote("fs", new StdioServer({ command: "npx", args: [...] }), { prefix: "fs_" })`
 * @throws OptionsError naming the alias and what was wrong — a malformed alias, a missing server,
 *   an unknown option, a value of the wrong kind or `null` options — and what is accepted.
 */
export function remote(
  alias: string,
  server: StdioServer | StreamableHttpServer,
  options: { prefix?: string; trustReadOnlyHint?: boolean } = {},
): RemoteDeclaration {
  if (typeof alias !== "string" || !ALIAS.test(alias)) {
    throw new OptionsError("remote()", "alias", `remote(): alias must match [A-Za-z0-9_-]{1,64}, got ${JSON.stringify(alias)}`);
  }
  const where = `remote('${alias}')`;
  if (!server || typeof server !== "object") {
    throw new OptionsError(where, "server", `${where}: server must be a StdioServer or StreamableHttpServer, got ${describeValue(server)}`);
  }
  const o = checkOptions(options, where, REMOTE_OPTIONS);
  return Object.freeze({ alias, server, prefix: o.prefix ?? "", trustReadOnlyHint: o.trustReadOnlyHint ?? false });
}

/** The DI token of the adapted tools (`Tool[]`) of remote `alias`. */
export function mcpToolsToken(alias: string): symbol {
  return Symbol.for(`agentkit:mcp:${alias}:tools`);
}
/** The DI token of the open `MCPClient` of remote `alias`. */
export function mcpClientToken(alias: string): symbol {
  return Symbol.for(`agentkit:mcp:${alias}:client`);
}
/** The DI token of the `MemorySource` over the resources of remote `alias`. */
export function mcpResourcesToken(alias: string): symbol {
  return Symbol.for(`agentkit:mcp:${alias}:resources`);
}
/** The DI token of the static prompts (`Record<string, Prompt>`) of remote `alias`. */
export function mcpPromptsToken(alias: string): symbol {
  return Symbol.for(`agentkit:mcp:${alias}:prompts`);
}

/** The DI token of the skills (`Record<string, McpSkill>`, read when the module was built) of remote `alias`. */
export function mcpSkillsToken(alias: string): symbol {
  return Symbol.for(`agentkit:mcp:${alias}:skills`);
}

/** Constructor-parameter decorator: inject the adapted tools (`Tool[]`) of remote `alias`. */
export function InjectMcpTools(alias: string): ParameterDecorator {
  return inject(mcpToolsToken(alias)) as ParameterDecorator;
}
/** Constructor-parameter decorator: inject the open `MCPClient` of remote `alias` (owned by the container). */
export function InjectMcpClient(alias: string): ParameterDecorator {
  return inject(mcpClientToken(alias)) as ParameterDecorator;
}
/** Constructor-parameter decorator: inject the resources of remote `alias` as a `MemorySource`. */
export function InjectMcpResources(alias: string): ParameterDecorator {
  return inject(mcpResourcesToken(alias)) as ParameterDecorator;
}
/** Constructor-parameter decorator: inject the static prompts (`Record<string, Prompt>`) of remote `alias`. */
export function InjectMcpPrompts(alias: string): ParameterDecorator {
  return inject(mcpPromptsToken(alias)) as ParameterDecorator;
}
/**
 * Constructor-parameter decorator: inject the skills (`Record<string, McpSkill>`: name, description, instructions,
 * `read(path)`) of remote `alias`; `{}` when it serves none.
 */
export function InjectMcpSkills(alias: string): ParameterDecorator {
  return inject(mcpSkillsToken(alias)) as ParameterDecorator;
}
