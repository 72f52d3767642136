/**
 * @module models/anthropic-sdk
 * The one place `@anthropic-ai/sdk` is loaded: through `createRequire`, on
 * first use, so importing `arc-agentkit/models` works without it and
 * constructing `AnthropicLLM` names the install line. Elsewhere only
 * type-only imports of the SDK (erased at build).
 */
import type * as AnthropicModule from "@anthropic-ai/sdk";
import { lazyPeer } from "../util/optional-peer.js";
import { ModelSdkMissingError } from "./model-sdk.error.js";

/** The line that installs the peer `AnthropicLLM` needs. */
export const ANTHROPIC_INSTALL_LINE = "npm install @anthropic-ai/sdk@1.14.0";

/** The SDK module, loaded on first use. @throws ModelSdkMissingError when it is not installed. */
export const anthropicSdk = lazyPeer<typeof AnthropicModule>("@anthropic-ai/sdk", (cause) => new ModelSdkMissingError("AnthropicLLM", "@anthropic-ai/sdk", ANTHROPIC_INSTALL_LINE, cause));
