/**
 * @module mcp/client/server-capabilities
 * Whether a connected server declared a capability, so an adapter never sends
 * a request the server said it does not answer (which would be `-32601 Method
 * not found`).
 */
import { getLogger, type Logger } from "../../util/logger.js";
import type { MCPClient } from "./mcp-client.js";

/** The server capabilities the adapters check before listing (`skills`: the extension `io.modelcontextprotocol/skills`). */
export type ListedCapability = "prompts" | "resources" | "skills";

/** The skills extension's identifier, as a server declares it under `capabilities.extensions`. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/**
 * True when `client`'s server declared `capability` in its `initialize`
 * answer. When it did not, one debug line (on `logger`, default `getLogger()`) says that
 * `who` returns nothing for it and why; nothing is sent to the server.
 *
 * @throws AgentkitError (code `mcp_not_entered`) when the client is closed.
 */
export function serverDeclares(client: MCPClient, capability: ListedCapability, who: string, logger: Logger = getLogger()): boolean {
  const caps = client.session.getServerCapabilities();
  const declared = capability === "skills" ? caps?.extensions?.[SKILLS_EXTENSION] : caps?.[capability];
  if (declared !== undefined) return true;
  const what = capability === "skills" ? `${SKILLS_EXTENSION} extension` : `${capability} capability`;
  logger.debug(`${who}: ${client.server} declares no ${what}; returning none (nothing was requested)`);
  return false;
}
