/**
 * @module test/core/keys.test
 * Metadata keys and DI tokens (src/keys.ts): namespaced strings and
 * Symbol.for tokens, so two copies of the package agree.
 */
import { describe, expect, it } from "vitest";
import { MCP_SERVER_METADATA, TOKENS, TOOL_METADATA } from "../../src/keys.js";

describe("keys", () => {
  it("metadata keys are namespaced under agentkit:", () => {
    expect([TOOL_METADATA, MCP_SERVER_METADATA]).toEqual(["agentkit:tool", "agentkit:mcp-server"]);
  });

  it("tokens are global symbols (Symbol.for), in a frozen object", () => {
    expect(TOKENS).toEqual({
      RunContext: Symbol.for("agentkit:RunContext"),
      ToolRegistry: Symbol.for("agentkit:ToolRegistry"),
    });
    expect(Object.isFrozen(TOKENS)).toBe(true);
  });
});
