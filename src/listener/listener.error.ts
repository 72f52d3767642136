/**
 * @module listener/listener.error
 * The one loopback listener used after it closed. (Bad options — a
 * non-loopback host, a port out of range, a path taken — are `OptionsError`.)
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/** A route was mounted on a listener that has closed; lease a new one. Code `listener_closed`. */
export class ListenerError extends AgentkitError {
  constructor(message: string) {
    super("listener_closed", message);
  }
}
