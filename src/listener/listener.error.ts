/**
 * @module listener/listener.error
 * Errors of the one loopback listener: bad options, a route path already taken.
 */
import { AgentkitError } from "../errors/agentkit.error.js";

/**
 * A listener or route was configured wrongly (a non-loopback host, a port out
 * of range, a path taken by another route of the same listener). Thrown
 * before anything binds or mounts.
 */
export class ListenerError extends AgentkitError {
  constructor(
    /** The offending option (`host`, `port`, `path`, ...). */
    readonly option: string,
    message: string,
  ) {
    super("listener_options", message);
  }
}
