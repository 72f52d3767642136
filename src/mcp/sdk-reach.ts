/**
 * @module mcp/sdk-reach
 * The one place the package depends on how the MCP SDK
 * (`@modelcontextprotocol/client` and `/server` 2.x) works inside, rather
 * than on its public API. Each reach is checked against the installed SDK by
 * a test that fails, naming what changed, on an SDK that works differently:
 * `test/mcp-client/sdk-reach.test.ts` (`watchSseBody`) and
 * `test/mcp-serve/skills-reach.test.ts` (`attachSkills`).
 *
 * `attachSkills`: the SDK's skills extension (`ext/skills`) serves through
 * `SkillsExtension.attach(mcp)`, typed to take the high-level `McpServer`;
 * this package serves through the low-level `Server` (it never lets the SDK
 * derive or validate a tool). `attach` uses three members of its argument:
 * `isConnected()`, `server` (the low-level `Server`, on which it sets the
 * `skills/*` handlers and declares the capability) and `registerResource`
 * (the `skill://` template and its read). Handing it an object with those
 * three serves the SDK's own list, get, directory and read rules — digests,
 * cache fields, URI checks — instead of a copy of them. The alternative, the
 * catalog's `entries` plus a reader of our own, would repeat the SDK's
 * URI-to-file rules and digest checks.
 *
 * `watchSseBody` is the client's: it stays because the public path costs
 * more than the per-call budget (measured, below).
 *
 * `watchSseBody`: the SDK's HTTP client transport reads an ok SSE response
 * body only as `body.pipeThrough(new TextDecoderStream())`, or cancels it.
 * Giving that one stream a `pipeThrough` that is the `pipeTo` it stands for
 * tells how the body ended without wrapping it; a wrapping `ReadableStream`
 * plus a new `Response` costs 30–60 µs of CPU per call more (measured;
 * a `TransformStream` more still), 3–6 % of an HTTP call's client CPU.
 *
 * (SDK 1.x needed a second reach, `CallSignal`: its request path never
 * removed the abort listener it added to a call's signal. SDK 2.x removes
 * it, so `MCPClient.callTool` hands the run's own signal over; the reach
 * test keeps checking that the listener is removed.)
 */

import type { ReadResourceResult, Resource, ResourceTemplate, ServerContext } from "@modelcontextprotocol/server";
import type { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import type { SdkServer } from "./peers/sdk-server.js";

/** The members of an SSE body stream the SDK is expected to use (checked by the reach test). */
export const SSE_BODY_MEMBERS_USED = ["pipeThrough", "cancel"] as const;

/**
 * Watch an ok SSE response `body` the SDK will read (see the module note):
 * `ended` when it was read to its end or cancelled, `broke` when it errored
 * first (the server died or the connection dropped). A consumer that cancels
 * the piped stream itself would read as broken; the SDK never does (it reads
 * every SSE body to its end). Node's fetch does, when the transport closes
 * and aborts its requests (a long-lived GET stream): then `ended` and `broke`
 * are both called, and a closing transport reports nothing.
 */
export function watchSseBody(body: ReadableStream<Uint8Array>, ended: () => void, broke: (err: unknown) => void): void {
  Object.defineProperties(body, {
    pipeThrough: {
      configurable: true,
      value: (
        transform: { writable: WritableStream<Uint8Array>; readable: ReadableStream<unknown> },
        options?: Parameters<ReadableStream<Uint8Array>["pipeTo"]>[1],
      ): ReadableStream<unknown> => {
        body.pipeTo(transform.writable, options).then(ended, broke);
        return transform.readable;
      },
    },
    cancel: {
      configurable: true,
      value: (reason?: unknown): Promise<void> => {
        ended();
        return ReadableStream.prototype.cancel.call(body, reason);
      },
    },
  });
}

/** The members of its argument `SkillsExtension.attach()` is expected to use (checked by the reach test). */
export const SKILLS_HOST_MEMBERS_USED = ["isConnected", "server", "registerResource"] as const;

/** A skills catalog attached to one low-level server: what its `resources/*` handlers serve for it. */
export interface AttachedSkills {
  /** The template the skill files are read under (`skill://{+path}`). */
  readonly uriTemplate: string;
  /** The name the extension registered the template under (`io.modelcontextprotocol/skills`). */
  readonly name: string;
  /** True when `uri` is under the template's base (`skill://`): the skills answer its read, found or not. */
  owns(uri: string): boolean;
  /** What the extension lists in `resources/list` (each skill's `SKILL.md`). */
  list(extra: ServerContext): Promise<Resource[]>;
  /** A `skill://` file's contents, checked against its digest by the SDK; its errors (not found, changed) are the SDK's. */
  read(uri: string, extra: ServerContext): Promise<ReadResourceResult>;
}

type SkillRead = (
  uri: URL,
  variables: Record<string, string | string[]>,
  extra: ServerContext,
) => Promise<ReadResourceResult> | ReadResourceResult;

/**
 * Attach `extension` to the low-level `server` (before it connects): the
 * SDK sets `skills/list`, `skills/get` (and `resources/directory/read`) on
 * it and declares `extensions["io.modelcontextprotocol/skills"]`; the
 * `skill://` template it registers comes back for the server's own
 * `resources/*` handlers (see the module note).
 *
 * @throws Error when the SDK registered no template (an SDK that attaches differently; the reach test names it).
 */
export function attachSkills(extension: Pick<SkillsExtension, "attach">, server: SdkServer): AttachedSkills {
  let captured: { name: string; template: ResourceTemplate; read: SkillRead } | undefined;
  const host = {
    isConnected: (): boolean => server.transport !== undefined,
    server,
    registerResource: (name: string, template: ResourceTemplate, _config: unknown, read: SkillRead): void => {
      captured = { name, template, read };
    },
  };
  extension.attach(host as unknown as Parameters<SkillsExtension["attach"]>[0]);
  if (!captured)
    throw new Error("the MCP SDK's skills extension registered no resource template on attach(); see src/mcp/sdk-reach.ts (attachSkills)");
  const { name, template, read } = captured;
  const uriTemplate = template.uriTemplate.toString();
  const base = uriTemplate.slice(0, uriTemplate.indexOf("{"));
  const listed = template.listCallback;
  return Object.freeze({
    uriTemplate,
    name,
    owns: (uri: string) => uri.startsWith(base),
    list: async (extra: ServerContext) => (listed ? (await listed(extra)).resources : []),
    read: async (uri: string, extra: ServerContext) => read(new URL(uri), {}, extra),
  });
}
