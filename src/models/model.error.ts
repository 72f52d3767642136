/**
 * @module models/model.error
 * What a model provider's failures become: one `ModelError` family with the
 * provider's own message and request id, so a caller can switch on the class
 * (or `code`) and still quote what the API said.
 */
import { AgentkitError, type AgentkitErrorCode } from "../errors/agentkit.error.js";

/**
 * The codes of the model failures, on `ModelError.code`: `model_request` (a
 * failure no other code names: a 400 of another kind, a 5xx after the
 * retries, a connection error), `model_response` (the answer could not be
 * read or was cut off), `model_auth` (the API refused the credentials,
 * 401/403: check the API key), `model_rate_limit` (thrown as
 * `ModelRateLimitError`, with `retryAfterSeconds`), `model_context_too_long`
 * (compact the memory or start a new run), `model_refused` (the model or the
 * API's safety system refused).
 */
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
 * A model request failed; `code` (a `ModelErrorCode`) says how. Catch this
 * class and switch on `code`: `ModelRateLimitError` is its one subclass
 * (it carries `retryAfterSeconds`).
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

/** Still rate limited (429) after the SDK's retries; `retryAfterSeconds` is the API's last `retry-after`, when sent. */
export class ModelRateLimitError extends ModelError {
  readonly retryAfterSeconds: number | undefined;

  constructor(facts: ModelErrorFacts & { readonly retryAfterSeconds?: number }) {
    super(facts, "rate limited after the SDK's retries (raise maxRetries or slow down)", "model_rate_limit");
    this.retryAfterSeconds = facts.retryAfterSeconds;
  }
}

/** The failures told apart by `code` alone (no facts of their own), with what their message says. */
const FAILURES = {
  model_auth: "authentication failed; check the API key (option apiKey or the provider's environment variable)",
  model_context_too_long: "the conversation is longer than the model's context window",
  model_refused: "the model refused the request",
} as const satisfies Partial<Record<ModelErrorCode, string>>;

/**
 * A `ModelError` for a failure its `code` names: `model_auth` (401/403),
 * `model_context_too_long`, `model_refused`. Internal: providers call it.
 */
export function modelFailure(code: keyof typeof FAILURES, facts: ModelErrorFacts): ModelError {
  return new ModelError(facts, FAILURES[code], code);
}
