/**
 * @module test/models/index.test
 * The public surface of `arc-agentkit/models`, snapshotted sorted so an
 * addition is a reviewed decision.
 */
import { expect, it } from "vitest";
import * as models from "arc-agentkit/models";

it("runtime exports of arc-agentkit/models, sorted", () => {
  expect(Object.keys(models).sort()).toEqual(["AnthropicLLM", "OpenAILLM"]);
});
