/**
 * @module test/express/era-once.test
 * A request's protocol era is decided once by the package's own code: the
 * SDK's classifier (`classifyInboundRequest`, as the package loads it) is
 * called exactly once for a 2026-07-28 `tools/call`, a 2026-07-28
 * `tasks/get` and a sessionless 2025-era request — on the hosted router and
 * on the loopback server alike. (The SDK's handler classifies a request it
 * serves once more inside; that call is the SDK's own and is not counted
 * here: it goes through the SDK's internal binding, not the export.)
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { tool } from "../../src/index.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { serveRegistry } from "../../src/mcp/serve/index.js";
import { sdkServer } from "../../src/mcp/peers/sdk-server.js";
import { ServedSpecs } from "../mcp-serve/helpers.js";
import { callTool, taskRpc, type Target } from "../mcp-serve/tasks-helpers.js";
import { closeAll, grant, hosted, messages, post } from "./kit.js";

const specs = new ServedSpecs();
afterEach(async () => {
  vi.restoreAllMocks();
  await closeAll();
  await specs.stopAll();
});

/** A tool answered at once, and one that is a task until the test ends. */
function tools(): Array<ReturnType<typeof tool>> {
  const hello = tool({ name: "hello", description: "Say hello.", sideEffecting: false }, () => "hi");
  const job = tool({ name: "job", description: "A job.", task: "required", sideEffecting: false }, () => new Promise<string>(() => {}));
  return [hello, job];
}

/** The module on the hosted router (express, a token) or on the loopback server (serveRegistry), as a target. */
async function served(where: "hosted" | "loopback"): Promise<Target> {
  if (where === "hosted") {
    const h = await hosted(tools(), { name: "era" });
    return { url: h.url, headers: { authorization: `Bearer ${grant(h, "tok", [])}` } };
  }
  const spec = await serveRegistry(tools(), { name: "era", ctx: makeTestCtx(), tasks: {} });
  specs.track(spec);
  await spec.start();
  return { url: spec.url!, headers: { ...spec.authHeaders } };
}

describe("a request's era is classified once", () => {
  it.each(["hosted", "loopback"] as const)(
    "%s: one classification for a 2026-07-28 tools/call, one for a 2026-07-28 tasks/get, one for a sessionless 2025 tools/call",
    async (where) => {
      const target = await served(where);
      const classify = vi.spyOn(sdkServer(), "classifyInboundRequest");

      const call = await callTool(target, "hello");
      expect(call.result?.content).toEqual([{ type: "text", text: "hi" }]);
      expect(classify, "a 2026-07-28 tools/call").toHaveBeenCalledTimes(1);
      expect(classify.mock.results[0]!.value).toMatchObject({ kind: "modern" });

      const taskId = (await callTool(target, "job")).result!.taskId!;
      classify.mockClear();
      const got = await taskRpc(target, "get", taskId);
      expect(got.result).toMatchObject({ taskId, status: "working" });
      expect(classify, "a 2026-07-28 tasks/get").toHaveBeenCalledTimes(1);

      classify.mockClear();
      const legacy = await post(
        target.url,
        { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "hello", arguments: {} } },
        { ...target.headers, "mcp-protocol-version": "2025-11-25" },
      );
      expect((await messages(legacy)).at(-1)).toMatchObject({ result: { content: [{ type: "text", text: "hi" }] } });
      expect(classify, "a sessionless 2025 tools/call").toHaveBeenCalledTimes(1);
      expect(classify.mock.results[0]!.value).toMatchObject({ kind: "legacy" });
    },
  );
});
