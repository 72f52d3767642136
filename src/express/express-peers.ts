/**
 * @module express/express-peers
 * The one place `arc-agentkit/express` loads its optional peers — express 5
 * and the SDK's express adapter (`@modelcontextprotocol/express` 2.x, which
 * brings the bearer middleware, host and origin validation) — on first use,
 * with the install line in the error when one is missing. Importing the
 * entry point loads neither.
 */
import type ExpressModule from "express";
import type * as SdkExpressModule from "@modelcontextprotocol/express";
import { MissingPeerError } from "../errors/missing-peer.error.js";
import { lazyPeer } from "../util/optional-peer.js";

/** The line that installs every peer `mcpRouter` needs. */
export const HOST_INSTALL_LINE = "npm install express @modelcontextprotocol/express @modelcontextprotocol/server";

function missing(id: string): (cause: unknown) => MissingPeerError {
  return (cause) =>
    new MissingPeerError(
      id,
      HOST_INSTALL_LINE,
      `mcpRouter (arc-agentkit/express) needs the optional peer dependency ${id}, and it could not be loaded. ` +
        `Install the hosting peers with: ${HOST_INSTALL_LINE}`,
      { cause },
    );
}

/** express, loaded on first call; `MissingPeerError` with the install line when it is not installed. */
export const hostExpress: () => typeof ExpressModule = lazyPeer<typeof ExpressModule>("express", missing("express"));

/** `@modelcontextprotocol/express`, loaded on first call; `MissingPeerError` with the install line when it is not installed. */
export const sdkExpress: () => typeof SdkExpressModule = lazyPeer<typeof SdkExpressModule>(
  "@modelcontextprotocol/express",
  missing("@modelcontextprotocol/express"),
);
