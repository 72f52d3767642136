/**
 * @module models/sdk-client
 * The one way a provider makes its SDK client: on the first request, after
 * the SDK's `import()`, from the options both SDKs take the same way.
 */
import type { ImportedPeer } from "../util/optional-peer.js";

/** The client options `AnthropicLLM` and `OpenAILLM` hand their SDK as they are. */
export interface SdkClientOptions {
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly maxRetries?: number;
}

/**
 * A getter of the SDK client: the SDK is imported and `make(sdk, options)`
 * called on the first call; the same promise after. Only the options given
 * are passed, so the SDK's own defaults (and environment variables) apply to the rest.
 */
export function lazySdkClient<M, C>(peer: ImportedPeer<M>, options: SdkClientOptions, make: (sdk: M, options: SdkClientOptions) => C): () => Promise<C> {
  const given: SdkClientOptions = {
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
  };
  let client: Promise<C> | undefined;
  return () => (client ??= peer.load().then((sdk) => make(sdk, given)));
}
