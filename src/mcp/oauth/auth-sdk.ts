/**
 * @module mcp/oauth/auth-sdk
 * Where the shipped grants get the client SDK's OAuth pieces
 * (`ClientCredentialsProvider`, `PrivateKeyJwtProvider`,
 * `CrossAppAccessProvider`, the ID-JAG token exchange): by `import()` on the
 * first token request, never at import time, so the copy is the app's own
 * ES module build.
 */
import type * as ClientModule from "@modelcontextprotocol/client";
import { MissingPeerError } from "../../errors/missing-peer.error.js";
import { importedPeer } from "../../util/optional-peer.js";

/** The client SDK module (`@modelcontextprotocol/client`). */
export type AuthSdk = typeof ClientModule;

const INSTALL = "npm install @modelcontextprotocol/client";
const peer = importedPeer<AuthSdk>("@modelcontextprotocol/client", (cause) =>
  new MissingPeerError("@modelcontextprotocol/client", INSTALL, `the OAuth grants need the optional peer dependency @modelcontextprotocol/client (2.x). Install it with: ${INSTALL}`, { cause }),
);

/**
 * The client SDK, imported on the first call (the same promise after).
 *
 * @throws MissingPeerError when `@modelcontextprotocol/client` is not installed.
 */
export function authSdk(): Promise<AuthSdk> {
  return peer.load();
}
