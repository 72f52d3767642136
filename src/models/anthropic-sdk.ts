/**
 * @module models/anthropic-sdk
 * The one place `@anthropic-ai/sdk` is loaded: checked for when `AnthropicLLM` is
 * constructed (a missing peer names the install line there; importing
 * `arc-agentkit/models` works without it), imported by `import()` on the
 * first request — the SDK's ESM build, the copy an ESM app's own import gets. Elsewhere only
 * type-only imports of the SDK (erased at build).
 */
import type * as AnthropicModule from "@anthropic-ai/sdk";
import { importedPeer } from "../util/optional-peer.js";
import { modelSdkMissing } from "./model-sdk.error.js";

/** The line that installs the peer `AnthropicLLM` needs. */
export const ANTHROPIC_INSTALL_LINE = "npm install @anthropic-ai/sdk@1.14.0";

/** The SDK module: `check()` at construction, `load()` on the first request. @throws MissingPeerError when it is not installed. */
export const anthropicSdk = importedPeer<typeof AnthropicModule>("@anthropic-ai/sdk", (cause) =>
  modelSdkMissing("AnthropicLLM", "@anthropic-ai/sdk", ANTHROPIC_INSTALL_LINE, cause),
);
