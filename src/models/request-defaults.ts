/**
 * @module models/request-defaults
 * What both providers fill in from their options when a request leaves it
 * open: the model (an MCP server's sampling request names none, only hints)
 * and the output cap (the smaller of the provider's and the request's).
 */
import type { LLMRequest } from "../contracts/llm.js";
import { OptionsError } from "../errors/options.error.js";

/**
 * The model `request` goes to: its own `model`, else the provider's `model`
 * option. `modelHints` are advisory and not matched against model names.
 *
 * @throws OptionsError when neither names one.
 */
export function requestModel(provider: string, request: LLMRequest, fallback: string | undefined): string {
  const model = request.model || fallback;
  if (!model) {
    const hints = request.modelHints?.length ? ` (its hints: ${request.modelHints.map((h) => JSON.stringify(h)).join(", ")})` : "";
    throw new OptionsError(
      provider,
      "model",
      `${provider}: no model to use: the request names none${hints}; pass 'model' to ${provider} for requests that ` +
        `name none, such as an MCP server's sampling request`,
    );
  }
  return model;
}

/**
 * The output token cap: the smaller of the provider's `own` and the request's `maxTokens` (ignored unless a positive
 * integer); undefined when neither sets one.
 */
export function outputCap(own: number | undefined, request: LLMRequest): number | undefined {
  const asked = request.maxTokens;
  if (asked === undefined || !Number.isInteger(asked) || asked < 1) return own;
  return own === undefined ? asked : Math.min(own, asked);
}
