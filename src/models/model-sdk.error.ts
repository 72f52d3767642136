/**
 * @module models/model-sdk.error
 * A provider was constructed without its optional peer SDK.
 */
import { MissingPeerError } from "../errors/missing-peer.error.js";

/** The provider's SDK is not installed; `installLine` is the command that installs it. */
export class ModelSdkMissingError extends MissingPeerError {
  constructor(
    /** The class that needed it, e.g. `"AnthropicLLM"`. */
    readonly provider: string,
    /** The package, e.g. `"@anthropic-ai/sdk"`. */
    readonly sdk: string,
    installLine: string,
    cause: unknown,
  ) {
    super(
      sdk,
      installLine,
      `${provider} needs the optional peer dependency ${sdk}, which could not be loaded. Install it with: ${installLine}`,
      { cause },
    );
  }
}
