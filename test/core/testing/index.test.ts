/**
 * @module test/core/testing/index.test
 * Public surface of `arc-agentkit/testing` (src/testing/index.ts). Inline
 * lists, so an addition is a reviewed decision.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as testing from "../../../src/testing/index.js";
import { declaredExports } from "../surface.js";

describe("arc-agentkit/testing public surface", () => {
  it("runtime exports, sorted", () => {
    expect(Object.keys(testing).sort()).toEqual(["FakeLLM", "TestRunContext", "Turn", "connectModule", "makeTestCtx"]);
  });

  it("every export the compiler sees, types included, sorted", () => {
    expect(declaredExports(fileURLToPath(new URL("../../../src/testing/index.ts", import.meta.url)))).toEqual([
      "type ConnectedModule",
      "connectModule",
      "type ConnectModuleOptions",
      "FakeLLM",
      "makeTestCtx",
      "TestRunContext",
      "Turn",
    ]);
  });
});
