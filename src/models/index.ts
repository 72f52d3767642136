/**
 * @module arc-agentkit/models
 * Public surface of the model providers. Every export is listed by name
 * (types with `export type`); test/models/index.test.ts snapshots the sorted
 * names, so an addition is a reviewed decision. The SDKs are optional peers
 * loaded when a provider is constructed: importing this module needs neither.
 * The errors a provider throws (`ModelError` and its kin) are exported from
 * `arc-agentkit`, as every error class is.
 */
export { AnthropicLLM } from "./anthropic-llm.js";
export type { AnthropicLLMOptions, AnthropicRequestBody } from "./anthropic-llm.js";
export { OpenAILLM } from "./openai-llm.js";
export type { OpenAILLMOptions } from "./openai-llm.js";
