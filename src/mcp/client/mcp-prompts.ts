/**
 * @module mcp/client/mcp-prompts
 * `mcpPrompts()`: a server's static prompts as agentkit `PromptTemplate`s.
 */
import { PromptTemplate } from "../../prompts/prompt-template.js";
import { errorLine, pyStr } from "../../util/format.js";
import { getLogger, type Logger } from "../../util/logger.js";
import type { MCPClient } from "./mcp-client.js";
import { serverDeclares } from "./server-capabilities.js";
import { checkOptions, opt } from "../../options/option-checks.js";

/** The `version` of every prompt `mcpPrompts()` builds. */
export const MCP_PROMPT_VERSION = "mcp:1";

/** Options of `mcpPrompts()`. */
export interface McpPromptsOptions {
  /** Where the dropped and skipped prompts' warnings (and the debug line) go. Default: the package logger (`getLogger()`). */
  readonly logger?: Logger;
}

/** The options of `mcpPrompts()` (and of `mcpSkills()`, which takes the same one), declared once. */
export const LOGGER_ONLY_OPTIONS = {
  logger: opt.that<Logger>(
    (v) => ["debug", "info", "warn", "error"].every((m) => typeof (v as Record<string, unknown>)?.[m] === "function"),
    "a Logger { debug, info, warn, error }",
  ),
} as const;

/**
 * The server's static prompts — no arguments, or all optional — rendered now
 * and stored as `PromptTemplate.template` with `version: "mcp:1"`, keyed by name, in
 * the server's order. A prompt with a required argument is dropped with the
 * warning `mcpPrompts: dropping '<name>' — MCP prompt requires arguments,
 * cannot render statically. Use MCPClient.getPrompt(name, args) directly.`; a
 * prompt whose render fails is skipped with a warning naming the error. Both
 * go through `options.logger` (default the package logger, `getLogger()`). Prompts are listed
 * fresh on every call. A server that declares no `prompts` capability is not
 * asked at all: the result is `{}`, with one debug line.
 *
 * @throws OptionsError naming a bad or unknown option; McpRequestError when listing fails; AgentkitError (code
 *   `mcp_not_entered`) when the client is closed.
 */
export async function mcpPrompts(client: MCPClient, options: McpPromptsOptions = {}): Promise<Record<string, PromptTemplate>> {
  const logger = checkOptions(options, "mcpPrompts", LOGGER_ONLY_OPTIONS).logger ?? getLogger();
  if (!serverDeclares(client, "prompts", "mcpPrompts", logger)) return {};
  const out: [string, PromptTemplate][] = [];
  for (const p of await client.listPrompts()) {
    if ((p.arguments ?? []).some((a) => a.required === true)) {
      logger.warn(
        `mcpPrompts: dropping ${pyStr(p.name)} — MCP prompt requires arguments, cannot render statically. Use ` +
          `MCPClient.getPrompt(name, args) directly.`,
      );
      continue;
    }
    let template: string;
    try {
      template = await client.getPrompt(p.name, {});
    } catch (err) {
      logger.warn(`mcpPrompts: skipping ${pyStr(p.name)} — rendering it failed: ${errorLine(err)}`);
      continue;
    }
    out.push([p.name, new PromptTemplate({ name: p.name, template, version: MCP_PROMPT_VERSION })]);
  }
  return Object.fromEntries(out);
}
