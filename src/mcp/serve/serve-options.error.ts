/**
 * @module mcp/serve/serve-options.error
 * Raised when `serveRegistry` / `serveRegistryStdio` / `stdioCommand` are given options they cannot honour.
 */
import { AgentkitError } from "../../errors/agentkit.error.js";

/**
 * Bad serving options, refused before anything binds or is written: e.g.
 * `transport: "stdio"` without `command`, an unknown transport, a
 * non-positive `timeoutMs`, an entry point `stdioCommand` cannot find.
 */
export class ServeOptionsError extends AgentkitError {
  constructor(
    /** The offending option (`command`, `timeoutMs`, `entry`, ...). */
    readonly option: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("serve_options", message, options);
  }
}
