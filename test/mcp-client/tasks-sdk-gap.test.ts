/**
 * @module test/mcp-client/tasks-sdk-gap.test
 * Why src/mcp/client/task-codec.ts exists, checked against the installed
 * client SDK: 2.4.0 has no tasks runtime (`io.modelcontextprotocol/tasks`,
 * 2026-07-28), and its `Client.callTool` refuses a task handle with
 * `UNSUPPORTED_RESULT_TYPE` (typescript-sdk#2637). Each test fails, naming
 * what changed, the day the SDK ships its own: then `MCPClient` moves to it
 * and the codec goes.
 */
import { Client, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { v2Client } from "../helpers/v2-client.js";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTaskServer, TASKS_EXTENSION, type TaskServer } from "./task-server.js";

const MOVE = "the client SDK now has a tasks runtime: move MCPClient's task handling to it and drop src/mcp/client/task-codec.ts";

let srv: TaskServer;
beforeEach(async () => {
  srv = await startTaskServer();
});
afterEach(async () => {
  await srv.close();
});

describe("the client SDK still lacks a tasks runtime", () => {
  it("Client.callTool rejects a task handle with UNSUPPORTED_RESULT_TYPE, the extension declared or not", async () => {
    const client = await v2Client(srv.url, { version: "2026-07-28" });
    try {
      const declared = { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION]: {} } } };
      const err = await client.callTool({ name: "slow", arguments: {}, _meta: declared }).catch((e: unknown) => e);
      expect(srv.tasks.size, "the fixture answered with a task").toBe(1);
      expect(err, MOVE).toBeInstanceOf(SdkError);
      expect((err as SdkError).code, MOVE).toBe(SdkErrorCode.UnsupportedResultType);
      expect((err as Error).message, MOVE).toBe("Unsupported result type 'task' for tools/call");
    } finally {
      await client.close();
    }
  });

  it("no tasks API: no task method on Client, no task runtime export, no ext/tasks entry point", () => {
    const methods = new Set<string>();
    for (let p: object | null = Client.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null)
      for (const k of Object.getOwnPropertyNames(p)) methods.add(k);
    expect(
      [...methods].filter((k) => /task/i.test(k)),
      MOVE,
    ).toEqual([]);
    // The wire vocabulary of the 2025-11-25 experimental tasks stays importable; anything more is a runtime.
    return import("@modelcontextprotocol/client").then((sdk) => {
      expect(
        Object.keys(sdk)
          .filter((k) => /task/i.test(k))
          .sort(),
        MOVE,
      ).toEqual(["RELATED_TASK_META_KEY", "isTaskAugmentedRequestParams"]);
      const pkg = new URL("../../node_modules/@modelcontextprotocol/client/package.json", import.meta.url);
      const exportsMap = JSON.parse(readFileSync(pkg, "utf8")) as { exports: Record<string, unknown> };
      expect(
        Object.keys(exportsMap.exports).filter((k) => /task/i.test(k)),
        MOVE,
      ).toEqual([]);
    });
  });
});
