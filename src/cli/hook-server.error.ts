/**
 * @module cli/hook-server.error
 * `HookServerError`: what `HookServer` throws.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** Thrown for bad `HookServer` options. */
export class HookServerError extends AgentkitError {
  constructor(message: string) {
    super("hook_server", message);
  }
}
