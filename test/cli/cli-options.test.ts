/** @module test/cli/cli-options.test */
import { describe, expect, it } from "vitest";
import { mergeCliOptions } from "../../src/cli/index.js";
import { OptionsError } from "../../src/index.js";

describe("mergeCliOptions", () => {
  it("concatenates lists, merges env/config, keeps agreeing scalars", () => {
    const merged = mergeCliOptions<Record<string, unknown>>(
      { mcpConfig: ["A"], strictMcpConfig: true, builtinTools: false },
      { mcpConfig: ["B", "A"], strictMcpConfig: true, permissionPromptTool: "mcp__agentkit_approvals__approve", settingSources: "" },
      { settings: { hooks: {} }, env: { T1: "x" } },
      { env: { T2: "y" }, allowedTools: ["mcp__engine__run_check"] },
    );
    expect(merged).toEqual({
      mcpConfig: ["A", "B"],
      strictMcpConfig: true,
      builtinTools: false,
      permissionPromptTool: "mcp__agentkit_approvals__approve",
      settingSources: "",
      settings: { hooks: {} },
      env: { T1: "x", T2: "y" },
      allowedTools: ["mcp__engine__run_check"],
    });
  });

  it("refuses two different values for one option or key, naming it", () => {
    expect(() => mergeCliOptions<Record<string, unknown>>({ permissionPromptTool: "a" }, { permissionPromptTool: "b" })).toThrow(
      new OptionsError(
        "mergeCliOptions",
        "permissionPromptTool",
        `mergeCliOptions: two parts set 'permissionPromptTool' to different values ("a" and "b"); choose one before merging`,
      ),
    );
    expect(() => mergeCliOptions<Record<string, unknown>>({ env: { T: "1" } }, { env: { T: "2" } })).toThrow(
      "mergeCliOptions: two parts set env.T to different values; choose one before merging",
    );
  });
});
