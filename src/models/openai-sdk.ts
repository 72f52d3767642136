/**
 * @module models/openai-sdk
 * The one place `openai` is loaded: through `createRequire`, on
 * first use, so importing `arc-agentkit/models` works without it and
 * constructing `OpenAILLM` names the install line. Elsewhere only
 * type-only imports of the SDK (erased at build).
 */
import type * as OpenAIModule from "openai";
import { lazyPeer } from "../util/optional-peer.js";
import { ModelSdkMissingError } from "./model-sdk.error.js";

/** The line that installs the peer `OpenAILLM` needs. */
export const OPENAI_INSTALL_LINE = "npm install openai@7.59.0";

/** The SDK module, loaded on first use. @throws ModelSdkMissingError when it is not installed. */
export const openaiSdk = lazyPeer<typeof OpenAIModule>("openai", (cause) => new ModelSdkMissingError("OpenAILLM", "openai", OPENAI_INSTALL_LINE, cause));
