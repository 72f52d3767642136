/**
 * @module mcp/client/mcp-skills
 * A server's skills (the MCP Skills extension, `io.modelcontextprotocol/skills`)
 * as the client reads them, through the SDK's own host side (`SkillsClient`),
 * which checks every file against the size and sha256 digest the server
 * listed: `MCPClient.listSkills()` / `readSkill()` build on these, and
 * `mcpSkills()` gives every skill at once, as `mcpPrompts()` gives prompts
 * (what `@InjectMcpSkills(alias)` injects).
 */
import { checkOptions } from "../../options/option-checks.js";
import { getLogger, type Logger } from "../../util/logger.js";
import type { MCPClient } from "./mcp-client.js";
import { LOGGER_ONLY_OPTIONS } from "./mcp-prompts.js";
import { serverDeclares } from "./server-capabilities.js";
import type { McpSkill } from "./skill-entry.js";

export type { McpSkill, McpSkillEntry } from "./skill-entry.js";

/** Options of `mcpSkills()`. */
export interface McpSkillsOptions {
  /** Where the debug line about a server without skills goes. Default: the package logger (`getLogger()`). */
  readonly logger?: Logger;
}

/**
 * Every skill of the server, read now (`client.readSkill` each: the
 * instructions verified against their digests), keyed by name in the
 * server's order. A server that does not declare the skills extension is not
 * asked: the result is `{}`, with one debug line.
 *
 * @throws OptionsError naming a bad or unknown option; McpRequestError when listing or a read fails.
 */
export async function mcpSkills(client: MCPClient, options: McpSkillsOptions = {}): Promise<Record<string, McpSkill>> {
  const logger = checkOptions(options, "mcpSkills", LOGGER_ONLY_OPTIONS).logger ?? getLogger();
  if (!serverDeclares(client, "skills", "mcpSkills", logger)) return {};
  const out: [string, McpSkill][] = [];
  for (const entry of await client.listSkills()) out.push([entry.name, await client.readSkill(entry.name)]);
  return Object.fromEntries(out);
}
