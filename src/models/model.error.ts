/**
 * @module models/model.error
 * What a model provider's failures become: one `ModelError` family with the
 * provider's own message and request id, so a caller can switch on the class
 * (or `code`) and still quote what the API said.
 */
import { AgentkitError, type AgentkitErrorCode } from "../errors/agentkit.error.js";

/** The codes of the model failures: `model_request`, `model_response`, `model_auth`, ... */
export type ModelErrorCode = Extract<AgentkitErrorCode, `model_${string}`>;

/** The facts every model failure carries. */
export interface ModelErrorFacts {
  /** `"anthropic"` or `"openai"`. */
  readonly provider: string;
  /** The HTTP status, when the API answered with one. */
  readonly status?: number;
  /** The API's request id (`request-id` / `x-request-id`), for a support ticket. */
  readonly requestId?: string;
  /** The API's own error message, verbatim. */
  readonly providerMessage: string;
  readonly cause?: unknown;
}

/**
 * A model request failed (the base class; also thrown as itself for a failure
 * none of the subclasses names: a 400 of another kind, a 5xx after the
 * retries, a connection error, a malformed stream).
 */
export class ModelError extends AgentkitError {
  readonly provider: string;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly providerMessage: string;

  constructor(facts: ModelErrorFacts, what = "the model request failed", code: ModelErrorCode = "model_request") {
    const where = [facts.status !== undefined ? `HTTP ${facts.status}` : "", facts.requestId ? `request id ${facts.requestId}` : ""]
      .filter(Boolean)
      .join(", ");
    super(
      code,
      `${facts.provider}: ${what}${where ? ` (${where})` : ""}: ${facts.providerMessage}`,
      facts.cause === undefined ? undefined : { cause: facts.cause },
    );
    this.provider = facts.provider;
    this.status = facts.status;
    this.requestId = facts.requestId;
    this.providerMessage = facts.providerMessage;
  }
}

/** The API refused the credentials (401/403): check the API key (option `apiKey` or the provider's environment variable). */
export class ModelAuthError extends ModelError {
  constructor(facts: ModelErrorFacts) {
    super(facts, "authentication failed; check the API key (option apiKey or the provider's environment variable)", "model_auth");
  }
}

/** Still rate limited (429) after the SDK's retries; `retryAfterSeconds` is the API's last `retry-after`, when sent. */
export class ModelRateLimitError extends ModelError {
  readonly retryAfterSeconds: number | undefined;

  constructor(facts: ModelErrorFacts & { readonly retryAfterSeconds?: number }) {
    super(facts, "rate limited after the SDK's retries (raise maxRetries or slow down)", "model_rate_limit");
    this.retryAfterSeconds = facts.retryAfterSeconds;
  }
}

/** The conversation no longer fits the model's context window: compact the memory or start a new run. */
export class ModelContextTooLongError extends ModelError {
  constructor(facts: ModelErrorFacts) {
    super(facts, "the conversation is longer than the model's context window", "model_context_too_long");
  }
}

/** The model or the API's safety system refused to answer this request. */
export class ModelRefusedError extends ModelError {
  constructor(facts: ModelErrorFacts) {
    super(facts, "the model refused the request", "model_refused");
  }
}
