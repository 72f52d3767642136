/**
 * @module mcp/peers/sdk-client
 * The one place the MCP client SDK (`@modelcontextprotocol/client` 2.x) is
 * loaded: by `import()` when a client opens (`MCPClient.start`,
 * `connectSession`), never at import time. `import()` gets the SDK's ES
 * module build, the same copy an ESM app's own `import` gets, so the SDK's
 * error classes (`ProtocolError`, `SdkHttpError`, `UnauthorizedError`) are
 * the app's: `err.cause instanceof ProtocolError` holds in user code, and an
 * `UnauthorizedError` thrown by the app's own OAuth provider is recognised.
 * Everything else in `src/mcp/client` takes SDK *values* from here (type-only
 * imports of the SDK are fine: they are erased).
 */
import type * as ClientModule from "@modelcontextprotocol/client";
import type * as AjvModule from "@modelcontextprotocol/client/validators/ajv";
import type * as SkillsModule from "@modelcontextprotocol/client/ext/skills";
import { MissingPeerError } from "../../errors/missing-peer.error.js";
import { importedPeer } from "../../util/optional-peer.js";

/** The line that installs the optional peer `MCPClient` and the adapters need. */
export const CLIENT_INSTALL_LINE = "npm install @modelcontextprotocol/client";

/** The client SDK module (`@modelcontextprotocol/client`). */
export type ClientSdk = typeof ClientModule;

function missing(id: string, cause: unknown): MissingPeerError {
  return new MissingPeerError(
    id,
    CLIENT_INSTALL_LINE,
    `MCPClient needs the optional peer dependency @modelcontextprotocol/client (2.x), and '${id}' could not be ` +
      `loaded. Install it with: ${CLIENT_INSTALL_LINE}`,
    { cause },
  );
}

const peer = importedPeer<ClientSdk>("@modelcontextprotocol/client", (cause) => missing("@modelcontextprotocol/client", cause));
const skills = importedPeer<typeof SkillsModule>("@modelcontextprotocol/client/ext/skills", (cause) =>
  missing("@modelcontextprotocol/client/ext/skills", cause),
);
const ajv = importedPeer<typeof AjvModule>("@modelcontextprotocol/client/validators/ajv", (cause) =>
  missing("@modelcontextprotocol/client/validators/ajv", cause),
);

/**
 * The client SDK, imported on the first call (the same promise after).
 *
 * @throws MissingPeerError (code `missing_peer`, with `CLIENT_INSTALL_LINE`) when `@modelcontextprotocol/client` is not installed.
 */
export function clientSdk(): Promise<ClientSdk> {
  return peer.load();
}

/**
 * The SDK's own JSON Schema validator provider (`AjvJsonSchemaValidator`,
 * what its `Client` uses on Node), imported on the first call.
 *
 * @throws MissingPeerError when `@modelcontextprotocol/client` is not installed.
 */
export async function clientValidator(): Promise<InstanceType<typeof AjvModule.AjvJsonSchemaValidator>> {
  return new (await ajv.load()).AjvJsonSchemaValidator();
}

/**
 * The client SDK's skills extension (`@modelcontextprotocol/client/ext/skills`:
 * `SkillsClient`, which lists, gets and reads a server's skills and checks
 * every file against its digest), imported on the first call.
 *
 * @throws MissingPeerError when `@modelcontextprotocol/client` is not installed.
 */
export function clientSkills(): Promise<typeof SkillsModule> {
  return skills.load();
}
