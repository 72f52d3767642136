/**
 * @module samples/hosted/release-tools.module
 * An @McpServer module meant to be hosted: tools with OAuth scopes, a tool
 * that reads who is calling (`hostedCaller(ctx)`), and one that asks the
 * calling client's user before it acts (`ctx.elicit()`). Host it with
 *
 *   npm run build
 *   AGENTKIT_FLEET_KEY="$(openssl rand -base64 32)" npx agentkit host build/samples/hosted/release-tools.module.js \
 *     --port 8081 --resource https://tools.example.com/mcp --issuer https://auth.example.com \
 *     --store postgres://tools@db.internal:5432/agentkit --json
 *
 * or mount it on your own express app (samples/hosted/server.ts).
 */
import "reflect-metadata";
import { IsString } from "class-validator";
import { Tool, type RunContext } from "arc-agentkit";
import { hostedCaller } from "arc-agentkit/express";
import { McpServer } from "arc-agentkit/mcp";

class ReleaseInput {
  @IsString() version!: string;
}

/** Open to every valid token: who the caller is, and which process answered. */
@Tool({ description: "Say which OAuth client and scopes this call carries, and which server process answered.", sideEffecting: false })
export class WhoAmI {
  run(_input: unknown, ctx: RunContext): { clientId: string | null; scopes: readonly string[]; pid: number } {
    const caller = hostedCaller(ctx);
    return { clientId: caller?.clientId ?? null, scopes: caller?.scopes ?? [], pid: process.pid };
  }
}

/** Needs `releases:read`: a token without it neither sees nor calls this tool. */
@Tool({ description: "List the releases that can be shipped.", sideEffecting: false, scopes: ["releases:read"] })
export class ListReleases {
  run(): string[] {
    return ["1.4.0", "1.4.1"];
  }
}

/**
 * Needs `releases:write`, and asks the person behind the client to confirm.
 * On 2026-07-28 the question is recorded in the fleet's store and the retry
 * may reach another process of the fleet, which runs this again from the top
 * with the answer: code after the question runs once per call, code before it
 * may run again, so the side effect comes after the question.
 */
@Tool({ description: "Ship a release after the caller's user confirms it.", scopes: ["releases:write"], input: ReleaseInput })
export class ShipRelease {
  async run(input: ReleaseInput, ctx: RunContext): Promise<{ shipped: boolean; version: string; confirmedOn: number }> {
    console.error(`ship_release: pid ${process.pid} asks to confirm ${input.version}`);
    const answer = await ctx.elicit({
      message: `Ship ${input.version} to production?`,
      requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
    });
    const shipped = answer.action === "accept" && answer.content?.confirm === true;
    console.error(`ship_release: pid ${process.pid} got the answer for ${input.version}: ${shipped ? "ship" : "stop"}`);
    return { shipped, version: input.version, confirmedOn: process.pid };
  }
}

/** The module: what `agentkit host` (or `mcpRouter(ReleaseTools, ...)`) serves. */
@McpServer({ name: "release-tools", tools: [WhoAmI, ListReleases, ShipRelease] })
export class ReleaseTools {}
