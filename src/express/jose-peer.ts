/**
 * @module express/jose-peer
 * The one place `jose` (an optional peer) is loaded: through `import()` on
 * first use, so importing `arc-agentkit/express` works without it and
 * `jwtVerifier()` names the install line when it is missing.
 */
import { MissingPeerError } from "../errors/missing-peer.error.js";
import { importedPeer } from "../util/optional-peer.js";

/** The line that installs the peer `jwtVerifier()` needs. */
export const JOSE_INSTALL_LINE = "npm install jose@6";

/** `jose`, imported on first use. `check()` throws, and `load()` rejects, with a `MissingPeerError` when it is not installed. */
export const josePeer = importedPeer<typeof import("jose")>(
  "jose",
  (cause) =>
    new MissingPeerError(
      "jose",
      JOSE_INSTALL_LINE,
      `jwtVerifier() of arc-agentkit/express needs the optional peer dependency jose (6.x) to check JWT access ` +
        `tokens, and it could not be loaded. Install it with: ${JOSE_INSTALL_LINE}`,
      {
        cause,
      },
    ),
);
