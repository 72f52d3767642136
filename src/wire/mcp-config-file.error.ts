/**
 * @module wire/mcp-config-file.error
 * The error of the 0600 CLI config-file writer.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** The CLI config file could not be (re)written safely. */
export class McpConfigFileError extends AgentkitError {
  constructor(
    /** The path involved. */
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("mcp_config_file", message, options);
  }
}
