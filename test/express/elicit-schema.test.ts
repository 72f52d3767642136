/**
 * @module test/express/elicit-schema.test
 * A client's answer to a hosted tool's question is checked against the
 * schema the tool asked with before the tool sees it: an SDK v2 client
 * (2026-07-28, through input_required and its retry) answering an enum value
 * outside the schema gets a tool error naming the mismatch, and the tool's
 * code after the question never runs.
 */
import { v2Client } from "../helpers/v2-client.js";
import { afterEach, describe, expect, it } from "vitest";
import { tool, type RunContext } from "../../src/index.js";
import { closeAll, grant, hosted } from "./kit.js";

afterEach(closeAll);

const TARGET = { type: "object", properties: { env: { type: "string", enum: ["staging", "prod"] } }, required: ["env"] } as const;

/** An SDK v2 client pinned to 2026-07-28 that answers every question with `content`. */
const answering = (url: string, token: string, content: Record<string, string>) =>
  v2Client(url, { token, version: "2026-07-28", elicit: () => ({ action: "accept", content }) });

describe("hosted ctx.elicit(): the answer is checked against the requested schema", () => {
  it("an enum value outside the schema never reaches the tool; a value inside does", async () => {
    const reached: unknown[] = [];
    const deploy = tool(
      { name: "deploy", description: "Ask where, then deploy.", sideEffecting: false },
      async (_input, ctx: RunContext) => {
        const answer = await ctx.elicit({ message: "Where to?", requestedSchema: TARGET as never });
        reached.push(answer.content);
        return `deploying to ${String(answer.content?.["env"])}`;
      },
    );
    const h = await hosted([deploy]);
    const token = grant(h, "t-elicit", []);
    {
      await using client = await answering(h.url, token, { env: "everywhere; rm -rf /" });
      const result = (await client.callTool({ name: "deploy", arguments: {} })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toMatch(/does not match the schema it asked with/);
      expect(reached).toEqual([]);
    }
    await using good = await answering(h.url, token, { env: "prod" });
    const ok = (await good.callTool({ name: "deploy", arguments: {} })) as { content: Array<{ text: string }> };
    expect(ok.content[0]!.text).toBe("deploying to prod");
    expect(reached).toEqual([{ env: "prod" }]);
  });
});
