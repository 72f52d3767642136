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

/** An SDK client made on first use: `current` once made (so a request need not wait a tick for it), `get()` to make it. */
export interface LazySdkClient<C> {
  /** The client, once `get()` has made it. */
  readonly current: C | undefined;
  /** The client: made on the first call (the SDK imported then), the same promise after. */
  get(): Promise<C>;
}

/**
 * A getter of the SDK client: the SDK is imported and `make(sdk, options)`
 * called on the first call; the same promise after. Only the options given
 * are passed, so the SDK's own defaults (and environment variables) apply to the rest.
 */
export function lazySdkClient<M, C>(
  peer: ImportedPeer<M>,
  options: SdkClientOptions,
  make: (sdk: M, options: SdkClientOptions) => C,
): LazySdkClient<C> {
  const given: SdkClientOptions = {
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
  };
  let loading: Promise<C> | undefined;
  const lazy: { current: C | undefined; get(): Promise<C> } = {
    current: undefined,
    get: () => (loading ??= peer.load().then((sdk) => (lazy.current = make(sdk, given)))),
  };
  return lazy;
}
