/**
 * @module test/mcp-di/request-scope
 * Request scope through providers: a provider that injects the per-call
 * `RunContext` is built per call (as is everything that depends on it), so
 * no call — and no session — ever sees another call's context. Two real MCP
 * sessions over the loopback listener, three calls each way.
 */
import "reflect-metadata";
import { container, inject, injectable } from "tsyringe";
import { describe, expect, it } from "vitest";
import { RunContext, Tool } from "../../src/index.js";
import { TOKENS } from "../../src/keys.js";
import { MCPClient, McpServer, StreamableHttpServer, bootstrap, type McpApp, type ModuleClass } from "../../src/mcp/index.js";

/** A module singleton by declaration, but it injects the call's context. */
@injectable()
class CallAudit {
  constructor(readonly call: RunContext) {}
}

/** Two steps away from the context: depends on CallAudit only. */
@injectable()
class AuditReport {
  constructor(readonly audit: CallAudit) {}
}

/** Injects the context through the token, not the class. */
@injectable()
class TokenAudit {
  constructor(@inject(TOKENS.RunContext) readonly call: RunContext) {}
}

/** Built once per app: shared by every call. */
@injectable()
class Counter {
  n = 0;
}

function seen(call: RunContext, ctx: RunContext, counter: Counter) {
  counter.n++;
  const caller = call.caller?.kind === "loopback" ? call.caller : undefined;
  return JSON.stringify({
    session: caller?.sessionId,
    request: caller?.requestId,
    cancelled: call.cancelled,
    isThisCall: call === ctx,
    n: counter.n,
  });
}

@Tool({ description: "Report the context a provider was built with; the tool takes the context too.", sideEffecting: false })
class Direct {
  constructor(
    private readonly audit: CallAudit,
    private readonly call: RunContext,
    private readonly counter: Counter,
  ) {}
  run(_input: unknown, ctx: RunContext): string {
    expect(this.call).toBe(ctx);
    return seen(this.audit.call, ctx, this.counter);
  }
}

@Tool({ description: "Report the context a provider two steps away was built with.", sideEffecting: false })
class Indirect {
  constructor(
    private readonly report: AuditReport,
    private readonly counter: Counter,
  ) {}
  run(_input: unknown, ctx: RunContext): string {
    return seen(this.report.audit.call, ctx, this.counter);
  }
}

@Tool({ description: "Report the context a provider injected by token was built with.", sideEffecting: false })
class ByToken {
  constructor(
    private readonly audit: TokenAudit,
    private readonly counter: Counter,
  ) {}
  run(_input: unknown, ctx: RunContext): string {
    return seen(this.audit.call, ctx, this.counter);
  }
}

/** One module per tool: nothing else builds the provider before the first call. */
function moduleServing(tool: typeof Direct | typeof Indirect | typeof ByToken): ModuleClass {
  class ScopeModule {}
  McpServer({ name: "scope", tools: [tool], providers: [CallAudit, AuditReport, TokenAudit, Counter] })(ScopeModule);
  return ScopeModule;
}

async function connect(app: McpApp): Promise<MCPClient> {
  // Sessions are the point here: the 2025 era has them (on 2026-07-28 every request stands alone).
  return MCPClient.start(new StreamableHttpServer({ url: app.spec!.url!, headers: app.spec!.authHeaders, protocol: "2025-11-25" }));
}
function text(res: { content: Array<{ type: string; text?: string }> }): string {
  return res.content.map((b) => b.text ?? `[${b.type}]`).join("");
}

describe("a provider that injects RunContext", () => {
  for (const [tool, cls] of [
    ["direct", Direct],
    ["indirect", Indirect],
    ["by_token", ByToken],
  ] as const) {
    it(`is built per call: two sessions, three calls, each sees its own live context (${tool})`, async () => {
      await using app = await bootstrap(moduleServing(cls), { container: container.createChildContainer() });
      await using a = await connect(app);
      await using b = await connect(app);
      const calls = [
        JSON.parse(text(await a.callTool(tool, {}))),
        JSON.parse(text(await b.callTool(tool, {}))),
        JSON.parse(text(await a.callTool(tool, {}))),
      ];
      for (const c of calls) expect(c).toMatchObject({ cancelled: false, isThisCall: true });
      expect(calls.map((c) => c.n)).toEqual([1, 2, 3]);
      expect(new Set(calls.map((c) => `${c.session}/${c.request}`)).size).toBe(3);
      expect(calls[0].session).toBe(calls[2].session);
      expect(calls[0].session).not.toBe(calls[1].session);
      // Outside a call the module container still builds it, with the app's own context.
      expect(app.container.resolve(CallAudit).call).toBe(app.ctx);
    });
  }
});
