/**
 * @module arc-agentkit/testing
 * Public surface of the testing kit: a scripted model and a recording context.
 * Every export is listed by name; a test snapshots the sorted names.
 */
import "reflect-metadata";
export { FakeLLM, Turn } from "./fake-llm.js";
export { makeTestCtx, TestRunContext } from "./test-ctx.js";
