/**
 * @module cli/hook-server.error
 * A `HookServer` used before it was started.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** Thrown when a started `HookServer` is needed and this one is not started (code `hook_server_not_started`). Bad options are `OptionsError`. */
export class HookServerError extends AgentkitError {
  constructor(message: string) {
    super("hook_server_not_started", message);
  }
}
