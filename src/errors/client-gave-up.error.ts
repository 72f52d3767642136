/**
 * @module errors/client-gave-up.error
 * Raised (as an abort reason) when the client an answer was for stopped
 * waiting: it cancelled the request, timed out or went away.
 */
import { Cancelled } from "./cancelled.error.js";

/**
 * The client of a served call or an approval prompt stopped waiting before a
 * person answered (it cancelled the request — a CLI's own time limit does —
 * or its connection went away). The gate records such a call as source
 * `timeout`, its reason naming the client; the question is withdrawn from
 * every place it is shown. A `Cancelled`, so anything that stops on
 * cancellation stops on it too.
 */
export class ClientGaveUp extends Cancelled {
  constructor(
    /** The client as it named itself (`claude-code`, `codex-mcp-client`), or `"the MCP client"`. */
    readonly client: string,
    /** How, in words: `it cancelled the call: <its reason>`, `its connection closed ...`. */
    readonly why: string,
  ) {
    super(`${client} stopped waiting: ${why}`, why);
  }
}
