/**
 * @module models/openai-sdk
 * The one place `openai` is loaded: through `createRequire`, on
 * first use, so importing `arc-agentkit/models` works without it and
 * constructing `OpenAILLM` names the install line. Elsewhere only
 * type-only imports of the SDK (erased at build).
 */
import { createRequire } from "node:module";
import type * as OpenAIModule from "openai";
import { ModelSdkMissingError } from "./model-sdk.error.js";

/** The line that installs the peer `OpenAILLM` needs. */
export const OPENAI_INSTALL_LINE = "npm install openai@7.59.0";

const require = createRequire(import.meta.url);
let loaded: typeof OpenAIModule | undefined;

/** The SDK module. @throws ModelSdkMissingError when it is not installed. */
export function openaiSdk(): typeof OpenAIModule {
  if (loaded) return loaded;
  try {
    return (loaded = require("openai") as typeof OpenAIModule);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "MODULE_NOT_FOUND" || code === "ERR_PACKAGE_PATH_NOT_EXPORTED") throw new ModelSdkMissingError("OpenAILLM", "openai", OPENAI_INSTALL_LINE, err);
    throw err;
  }
}
