/**
 * @module cli/hook-server.error
 * A `HookServer` that cannot serve.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/**
 * A `HookServer` that cannot serve: used before `start()`, or its hook program not built (code `hook_server`). Bad
 * options are `OptionsError`.
 */
export class HookServerError extends AgentkitError {
  constructor(message: string) {
    super("hook_server", message);
  }
}
