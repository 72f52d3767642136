/**
 * @module models/anthropic-sdk
 * The one place `@anthropic-ai/sdk` is loaded: through `createRequire`, on
 * first use, so importing `arc-agentkit/models` works without it and
 * constructing `AnthropicLLM` names the install line. Elsewhere only
 * type-only imports of the SDK (erased at build).
 */
import { createRequire } from "node:module";
import type * as AnthropicModule from "@anthropic-ai/sdk";
import { ModelSdkMissingError } from "./model-sdk.error.js";

/** The line that installs the peer `AnthropicLLM` needs. */
export const ANTHROPIC_INSTALL_LINE = "npm install @anthropic-ai/sdk@1.14.0";

const require = createRequire(import.meta.url);
let loaded: typeof AnthropicModule | undefined;

/** The SDK module. @throws ModelSdkMissingError when it is not installed. */
export function anthropicSdk(): typeof AnthropicModule {
  if (loaded) return loaded;
  try {
    return (loaded = require("@anthropic-ai/sdk") as typeof AnthropicModule);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "MODULE_NOT_FOUND" || code === "ERR_PACKAGE_PATH_NOT_EXPORTED") throw new ModelSdkMissingError("AnthropicLLM", "@anthropic-ai/sdk", ANTHROPIC_INSTALL_LINE, err);
    throw err;
  }
}
