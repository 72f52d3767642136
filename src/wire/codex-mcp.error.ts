/**
 * @module wire/codex-mcp.error
 * A spec that cannot be projected into Codex configuration.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** Thrown when a spec cannot be expressed as Codex config (a bad name, a missing URL or command). */
export class CodexMcpError extends AgentkitError {
  constructor(message: string) {
    super("codex_mcp", message);
  }
}
