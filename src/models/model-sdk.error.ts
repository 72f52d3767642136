/**
 * @module models/model-sdk.error
 * A provider was constructed without its optional peer SDK.
 */
import { MissingPeerError } from "../errors/missing-peer.error.js";

/**
 * The `MissingPeerError` of a provider whose SDK is not installed: `peer` is
 * the SDK's package, `installLine` the command that installs it, and the
 * message names the provider (`AnthropicLLM`) and that line.
 */
export function modelSdkMissing(provider: string, sdk: string, installLine: string, cause: unknown): MissingPeerError {
  return new MissingPeerError(
    sdk,
    installLine,
    `${provider} needs the optional peer dependency ${sdk}, which could not be loaded. Install it with: ${installLine}`,
    { cause },
  );
}
