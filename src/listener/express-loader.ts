/**
 * @module listener/express-loader
 * The one place express (an optional peer) is loaded for the listener, with
 * the install line in the error when it is missing. Loaded through
 * `createRequire` on first use, so importing this module never fails by itself.
 */
import { MissingPeerError } from "../errors/missing-peer.error.js";
import { lazyPeer } from "../util/optional-peer.js";
import type ExpressModule from "express";

/** The line that installs the listener's optional peer. */
export const EXPRESS_INSTALL_LINE = "npm install express";

/**
 * express, loaded on first use. Throws `MissingPeerError` naming the install
 * line when express is not installed (not a loader error from deep inside).
 */
export const loadExpress = lazyPeer<typeof ExpressModule>(
  "express",
  (cause) =>
    new MissingPeerError("express", EXPRESS_INSTALL_LINE, `the loopback listener of arc-agentkit needs the optional peer dependency express (5.x), and it could not be loaded. Install it with: ${EXPRESS_INSTALL_LINE}`, { cause }),
);
