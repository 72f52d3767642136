/**
 * @module models/openai-sdk
 * The one place `openai` is loaded: checked for when `OpenAILLM` is
 * constructed (a missing peer names the install line there; importing
 * `arc-agentkit/models` works without it), imported by `import()` on the
 * first request — the SDK's ESM build, the copy an ESM app's own import gets. Elsewhere only
 * type-only imports of the SDK (erased at build).
 */
import type * as OpenAIModule from "openai";
import { importedPeer } from "../util/optional-peer.js";
import { modelSdkMissing } from "./model-sdk.error.js";

/** The line that installs the peer `OpenAILLM` needs. */
export const OPENAI_INSTALL_LINE = "npm install openai@7.59.0";

/** The SDK module: `check()` at construction, `load()` on the first request. @throws MissingPeerError when it is not installed. */
export const openaiSdk = importedPeer<typeof OpenAIModule>("openai", (cause) =>
  modelSdkMissing("OpenAILLM", "openai", OPENAI_INSTALL_LINE, cause),
);
