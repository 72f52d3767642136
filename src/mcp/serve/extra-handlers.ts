/**
 * @module mcp/serve/extra-handlers
 * The JSON-RPC handlers a served registry adds besides `tools/*`:
 * `resources/list`, `resources/templates/list`, `resources/read`,
 * `resources/subscribe` / `unsubscribe`, `prompts/list`, `prompts/get`,
 * `completion/complete` and `logging/setLevel`. A read, render or completion
 * that throws is a JSON-RPC error carrying its message; the session stays up.
 */
import type { GetPromptResult, ReadResourceResult, ServerContext } from "@modelcontextprotocol/server";
import type { RunContext } from "../../context/run-context.js";
import type { Caller, LoopbackCaller } from "../../context/caller.js";
import type { LogLevel } from "../../context/client-channel.js";
import { isContentBlock, isResourceContents, type ResourceContents } from "../../tools/mcp-content.js";
import type { PromptMessage, PromptRender, ResourceRead } from "../../tools/served-items.js";
import { describeValue, errorLine, pyList } from "../../util/format.js";
import { isProtocolError, sdkServer, type SdkServer } from "../peers/sdk-server.js";
import { CallChannel, type SessionView } from "./call-channel.js";
import type { ServedExtras, ServedPrompt } from "./served-extras.js";
import type { AttachedSkills } from "../sdk-reach.js";

type Extra = ServerContext;

/**
 * MCP's "resource not found" error code as thrown here. The SDK v2 sends it
 * as `-32602` (Invalid Params) with `data: { uri }` on every protocol
 * revision (the 2026-07-28 rule); clients accept both.
 */
export const RESOURCE_NOT_FOUND = -32002;

/** JSON-RPC's "invalid params" and "internal error" codes. */
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/** Per-session state the handlers keep: the logging level and the subscribed URIs. */
export interface SessionState extends SessionView {
  logLevel: LogLevel | undefined;
  readonly subscriptions: Set<string>;
}

function rpcError(code: number, message: string, data?: unknown): Error {
  return new (sdkServer().ProtocolError)(code, message, data);
}

/** An `McpError` of the SDK v1 (`@modelcontextprotocol/sdk`), known by its name and an integer code. */
function isV1McpError(err: unknown): err is Error & { code: number; data?: unknown } {
  return err instanceof Error && err.name === "McpError" && Number.isSafeInteger((err as { code?: unknown }).code);
}

/**
 * Who is calling a request of module `server` (its `ctx.caller`): the loopback listener's client (`loopbackCaller`),
 * stdio's, or a hosted router's.
 */
export type CallerOf = (extra: ServerContext, server: string) => Caller;

/** A client of the loopback listener: its 2025-era session (none on 2026-07-28) and the request. */
export function loopbackCaller(extra: ServerContext, server: string): LoopbackCaller {
  return Object.freeze({ kind: "loopback", server, sessionId: extra.sessionId ?? null, requestId: extra.mcpReq.id });
}

/** What every request context of these handlers derives from: the served registry's context and, when hosted, who is calling. */
interface HandlerBase {
  readonly ctx: RunContext;
  readonly callerOf: CallerOf;
}

/**
 * Run `fn` with a request context (cancelled with the request, released after); a throw becomes a JSON-RPC error `what:
 * <errorLine>` (`Name: message`, as a tool's failure reads).
 */
async function withCtx<T>(
  base: HandlerBase,
  session: SessionState,
  extra: Extra,
  what: string,
  fn: (ctx: RunContext) => Promise<T> | T,
): Promise<T> {
  const caller = base.callerOf(extra, session.serverName);
  const ctx = base.ctx.child({ caller, signal: extra.mcpReq.signal, channel: new CallChannel(session, extra) });
  try {
    return await fn(ctx);
  } catch (err) {
    if (isProtocolError(err)) throw err;
    // An app still throwing the SDK v1's McpError: its code and data are kept (the v1 class is not the v2 brand).
    if (isV1McpError(err)) throw rpcError(err.code, err.message, err.data);
    throw rpcError(INTERNAL_ERROR, `${what}: ${errorLine(err)}`);
  } finally {
    ctx.release();
  }
}

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** A `read()` value as `resources/read` contents; throws naming what was returned and what is accepted. */
export function readContents(value: ResourceRead, uri: string, mimeType: string | undefined, name: string): ResourceContents[] {
  if (typeof value === "string") return [{ uri, mimeType: mimeType ?? "text/plain", text: value }];
  if (value instanceof Uint8Array) return [{ uri, mimeType: mimeType ?? "application/octet-stream", blob: toBase64(value) }];
  if (Array.isArray(value) && value.length > 0 && value.every(isResourceContents)) return value as ResourceContents[];
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const v = value as { text?: unknown; blob?: unknown; mimeType?: unknown; uri?: unknown };
    const base = {
      uri: typeof v.uri === "string" ? v.uri : uri,
      ...(typeof v.mimeType === "string" ? { mimeType: v.mimeType } : mimeType ? { mimeType } : {}),
    };
    if (typeof v.text === "string") return [{ ...base, text: v.text }];
    if (typeof v.blob === "string") return [{ ...base, blob: v.blob }];
  }
  throw new Error(
    `read() of resource '${name}' returned ${describeValue(value)}; return a string, bytes (Uint8Array), { text } ` +
      `or { blob }, or an array of { uri, text | blob }`,
  );
}

/** A `render()` value as prompt messages; throws naming what was returned and what is accepted. */
export function promptMessages(value: PromptRender, name: string): { messages: PromptMessage[]; description?: string } {
  if (typeof value === "string") return { messages: [{ role: "user", content: { type: "text", text: value } }] };
  const messages = Array.isArray(value)
    ? value
    : value && typeof value === "object"
      ? (value as { messages?: unknown }).messages
      : undefined;
  const ok =
    Array.isArray(messages) &&
    messages.every((m: PromptMessage) => m && (m.role === "user" || m.role === "assistant") && isContentBlock(m.content));
  if (!ok)
    throw new Error(
      `render() of prompt '${name}' returned ${describeValue(value)}; return a string, or messages [{ role: "user" ` +
        `| "assistant", content: { type: "text", text } | image | audio | resource }]`,
    );
  const description =
    !Array.isArray(value) && typeof (value as { description?: unknown }).description === "string"
      ? (value as { description: string }).description
      : undefined;
  return { messages: messages as PromptMessage[], ...(description !== undefined ? { description } : {}) };
}

/** Only declared arguments, every required one present; else `-32602` naming the bad and the accepted ones. */
function promptArgs(p: ServedPrompt, given: Record<string, unknown> | undefined): Record<string, string> {
  const args: Record<string, string> = {};
  const accepted = p.arguments.map((a) => a.name);
  const unknown = Object.keys(given ?? {}).filter((k) => !accepted.includes(k));
  if (unknown.length)
    throw rpcError(
      INVALID_PARAMS,
      `prompt '${p.name}' got unexpected argument(s) ${pyList(unknown)}. Accepted arguments: ${pyList(accepted)}`,
    );
  const missing = p.arguments.filter((a) => a.required && (given?.[a.name] === undefined || given[a.name] === null)).map((a) => a.name);
  if (missing.length)
    throw rpcError(
      INVALID_PARAMS,
      `prompt '${p.name}' is missing required argument(s) ${pyList(missing)}. Accepted arguments: ${pyList(accepted)}`,
    );
  for (const [k, v] of Object.entries(given ?? {})) if (v !== undefined && v !== null) args[k] = String(v);
  return args;
}

function resourceDescriptor(r: { name: string; description?: string; mimeType?: string }): {
  name: string;
  description?: string;
  mimeType?: string;
} {
  return {
    name: r.name,
    ...(r.description !== undefined ? { description: r.description } : {}),
    ...(r.mimeType !== undefined ? { mimeType: r.mimeType } : {}),
  };
}

/**
 * Register the resource handlers (when the catalog has resources or skills
 * at session start). The skills' `skill://` files are listed, templated and
 * read after the module's own resources, by the SDK's skills extension.
 */
function resourceHandlers(
  s: SdkServer,
  extras: ServedExtras,
  ctx: HandlerBase,
  session: SessionState,
  skills: AttachedSkills | undefined,
): void {
  s.setRequestHandler("resources/list", (_req, extra) =>
    withCtx(ctx, session, extra, "resources/list failed", async (c) => {
      const resources: Array<{ uri: string; name: string }> = [...extras.fixed.values()].map((f) => ({
        uri: f.key,
        ...resourceDescriptor(f.resource),
      }));
      for (const t of extras.templates) {
        if (!t.resource.list) continue;
        for (const e of await t.resource.list(c))
          resources.push({
            ...resourceDescriptor({ name: t.resource.name, description: t.resource.description, mimeType: t.resource.mimeType, ...e }),
            uri: e.uri,
          });
      }
      if (skills) resources.push(...(await skills.list(extra)));
      return { resources };
    }),
  );
  const skillTemplate = skills ? [{ uriTemplate: skills.uriTemplate, name: skills.name }] : [];
  s.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: [...extras.templates.map((t) => ({ uriTemplate: t.key, ...resourceDescriptor(t.resource) })), ...skillTemplate],
  }));
  s.setRequestHandler("resources/read", (req, extra) => {
    const uri = req.params.uri;
    const found = extras.find(uri);
    if (!found && skills?.owns(uri)) return skills.read(uri, extra);
    if (!found)
      throw rpcError(
        RESOURCE_NOT_FOUND,
        `resource '${uri}' not found. Served resources: ${pyList([...extras.fixed.keys()])}; templates: ` +
          `${pyList(extras.templates.map((t) => t.key))}`,
        { uri },
      );
    const r = found.served.resource;
    // A resource's own cache hint, on 2026-07-28 only (a 2025 result has no such fields).
    const hint = extra.mcpReq.envelope ? r.cacheHint : undefined;
    return withCtx(
      ctx,
      session,
      extra,
      `resource '${uri}' could not be read`,
      async (c) => ({ contents: readContents(await r.read(found.params, c), uri, r.mimeType, r.name), ...hint }) as ReadResourceResult,
    );
  });
  s.setRequestHandler("resources/subscribe", (req) => {
    session.subscriptions.add(req.params.uri);
    return {};
  });
  s.setRequestHandler("resources/unsubscribe", (req) => {
    session.subscriptions.delete(req.params.uri);
    return {};
  });
}

/** Register the prompt handlers (when the catalog has prompts at session start). */
function promptHandlers(s: SdkServer, extras: ServedExtras, ctx: HandlerBase, session: SessionState): void {
  s.setRequestHandler("prompts/list", () => ({
    prompts: [...extras.prompts.values()].map((p) => ({
      name: p.name,
      ...(p.prompt.description !== undefined ? { description: p.prompt.description } : {}),
      arguments: p.arguments.map((a) => ({
        name: a.name,
        ...(a.description !== undefined ? { description: a.description } : {}),
        required: a.required ?? false,
      })),
    })),
  }));
  s.setRequestHandler("prompts/get", (req, extra) => {
    const p = extras.prompts.get(req.params.name);
    if (!p) throw rpcError(INVALID_PARAMS, `unknown prompt '${req.params.name}'. Available prompts: ${extras.promptNames()}`);
    const args = promptArgs(p, req.params.arguments);
    return withCtx(ctx, session, extra, `prompt '${p.name}' could not be rendered`, async (c) => {
      const out = promptMessages(await p.prompt.render(args, c), p.name);
      const description = out.description ?? p.prompt.description;
      return { ...(description !== undefined ? { description } : {}), messages: out.messages } as GetPromptResult;
    });
  });
}

/** `completion/complete`: the prompt's or resource's `complete(argument, value, ctx)`, at most 100 values; none without one. */
function completionHandler(s: SdkServer, extras: ServedExtras, ctx: HandlerBase, session: SessionState): void {
  s.setRequestHandler("completion/complete", (req, extra) => {
    const { ref, argument } = req.params;
    let complete: ((a: string, v: string, c: RunContext) => readonly string[] | Promise<readonly string[]>) | undefined;
    let what: string;
    if (ref.type === "ref/prompt") {
      const p = extras.prompts.get(ref.name);
      if (!p) throw rpcError(INVALID_PARAMS, `completion for unknown prompt '${ref.name}'. Available prompts: ${extras.promptNames()}`);
      complete = p.prompt.complete?.bind(p.prompt);
      what = `prompt '${p.name}'`;
    } else {
      const r = extras.byKey(ref.uri);
      if (!r)
        throw rpcError(
          INVALID_PARAMS,
          `completion for unknown resource '${ref.uri}'. Templates: ${pyList(extras.templates.map((t) => t.key))}`,
        );
      complete = r.resource.complete?.bind(r.resource);
      what = `resource '${r.key}'`;
    }
    if (!complete) return { completion: { values: [], total: 0, hasMore: false } };
    const fn = complete;
    return withCtx(ctx, session, extra, `completion of ${what} failed`, async (c) => {
      const all = await fn(argument.name, argument.value, c);
      if (!Array.isArray(all) || all.some((v) => typeof v !== "string"))
        throw new Error(`complete() returned ${describeValue(all)}; return an array of strings`);
      return { completion: { values: all.slice(0, 100), total: all.length, hasMore: all.length > 100 } };
    });
  });
}

/**
 * Register every handler of this module on `s`: logging always; resources,
 * prompts and completion when the catalog has them; the skills extension
 * (`skills/list`, `skills/get`, `resources/directory/read`, `skill://` reads)
 * when it has skills. `session` is this server's (one session's) state;
 * `callerOf` (default `loopbackCaller`) puts who is calling into each read's,
 * render's and completion's `ctx.caller`, as into a tool call's.
 */
export function registerExtraHandlers(
  s: SdkServer,
  extras: ServedExtras,
  runCtx: RunContext,
  session: SessionState,
  callerOf: CallerOf = loopbackCaller,
): void {
  const ctx: HandlerBase = { ctx: runCtx, callerOf };
  s.setRequestHandler("logging/setLevel", (req) => {
    session.logLevel = req.params.level;
    return {};
  });
  // Skills first: the extension declares its capability and methods on the server before anything connects.
  const skills = extras.skills?.attach(s);
  if (extras.hasResources) resourceHandlers(s, extras, ctx, session, skills);
  if (extras.hasPrompts) promptHandlers(s, extras, ctx, session);
  if (extras.hasResources || extras.hasPrompts) completionHandler(s, extras, ctx, session);
}

/** The capabilities a served server declares for `extras` (tools and logging always). */
export function servedCapabilities(extras: ServedExtras): Record<string, object> {
  return {
    tools: { listChanged: true },
    logging: {},
    ...(extras.hasResources ? { resources: { subscribe: true, listChanged: true } } : {}),
    ...(extras.hasPrompts ? { prompts: { listChanged: true } } : {}),
    ...(extras.hasResources || extras.hasPrompts ? { completions: {} } : {}),
  };
}
