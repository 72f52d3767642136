/**
 * @module models/provider-errors
 * An SDK's thrown error turned into the `ModelError` family (or `Cancelled`
 * when the run's signal aborted the request). Both official SDKs share the
 * shape read here — `status`, `requestID`, `headers`, `error` (the body) — so
 * one function serves both; the SDKs' classes are not needed (and OpenAI's
 * report `name === "Error"`, so names would not do either).
 */
import { AgentkitError } from "../errors/agentkit.error.js";
import { Cancelled } from "../errors/cancelled.error.js";
import { ModelError, ModelRateLimitError, type ModelErrorFacts, modelFailure } from "./model.error.js";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null;

const CONTEXT = /prompt is too long|context length|context window|maximum context|too many (input )?tokens|context_length_exceeded/i;

/** The API's own message from an error body (`{ error: { message } }`, `{ message }`), or the SDK's. */
function providerMessage(err: Json): string {
  const body = err.error;
  if (isObj(body)) {
    const inner = isObj(body.error) ? body.error : body;
    if (typeof inner.message === "string" && inner.message) return inner.message;
  }
  return typeof err.message === "string" && err.message ? err.message : String(err);
}

function retryAfter(headers: unknown): number | undefined {
  const get = isObj(headers) && typeof headers.get === "function" ? (headers.get as (k: string) => string | null).bind(headers) : undefined;
  const ms = Number(get?.("retry-after-ms") ?? NaN);
  if (Number.isFinite(ms)) return ms / 1000;
  const s = Number(get?.("retry-after") ?? NaN);
  return Number.isFinite(s) ? s : undefined;
}

/**
 * `err` as the error a run ends with. `signal` aborted: `Cancelled`. An HTTP
 * error: 401/403 `model_auth`, 429 `ModelRateLimitError`, a context-length
 * 400/413 `model_context_too_long`, a safety refusal `model_refused`,
 * anything else `ModelError`. Already an `AgentkitError` (a `ModelError`,
 * `Cancelled`, an `OptionsError` of the request): as it is.
 */
export function toModelError(provider: string, err: unknown, signal?: AbortSignal): Error {
  if (err instanceof AgentkitError) return err;
  if (signal?.aborted) return new Cancelled("the run was cancelled while the model was answering", signal.reason);
  if (!isObj(err)) return new ModelError({ provider, providerMessage: String(err), cause: err });
  const status = typeof err.status === "number" ? err.status : undefined;
  const facts: ModelErrorFacts = {
    provider,
    status,
    requestId: typeof err.requestID === "string" ? err.requestID : undefined,
    providerMessage: providerMessage(err),
    cause: err,
  };
  const code = isObj(err.error) ? (isObj(err.error.error) ? err.error.error.code : err.error.code) : undefined;
  if (status === 401 || status === 403) return modelFailure("model_auth", facts);
  if (status === 429) return new ModelRateLimitError({ ...facts, retryAfterSeconds: retryAfter(err.headers) });
  if (code === "context_length_exceeded" || ((status === 400 || status === 413) && CONTEXT.test(facts.providerMessage)))
    return modelFailure("model_context_too_long", facts);
  if (code === "content_filter" || code === "content_policy_violation") return modelFailure("model_refused", facts);
  return new ModelError(facts);
}

/** Throw `Cancelled` when `signal` aborted: the SDKs' raw streams just stop iterating on abort, without an error. */
export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Cancelled("the run was cancelled while the model was answering", signal.reason);
}
