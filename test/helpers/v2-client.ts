/**
 * @module test/helpers/v2-client
 * The SDK v2 client of the tests, over Streamable HTTP: one function opens it
 * on a URL with the era, bearer token, headers and question answers a test
 * asks for, and keeps a log of every JSON-RPC request it POSTed (`sent`), so a
 * test can say what went over the wire. `await using` closes it.
 */
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client";

/**
 * How the client negotiates: a version to pin (`"2026-07-28"` opens with
 * `server/discover`; `"2025-11-25"` with `initialize`), the SDK's `"legacy"`
 * (2025 `initialize` only) or `"auto"` mode; left out, the SDK's default.
 */
export type V2Version = "2026-07-28" | "2025-11-25" | "legacy" | "auto";

/** One JSON-RPC request as the client POSTed it. */
export interface SentRequest {
  /** The JSON-RPC method (`"(response)"` for a response the client sent back). */
  readonly method: string;
  /** The `Mcp-Protocol-Version` header, or null. */
  readonly protocolHeader: string | null;
  /** The `Mcp-Session-Id` header, or null. */
  readonly session: string | null;
  /** The protocol version in the request's `_meta` envelope (2026-07-28 requests carry one), or undefined. */
  readonly envelopeVersion: unknown;
  /** The request's `params`, as sent. */
  readonly params: Record<string, unknown> | undefined;
}

/** The answer a person would give to an `elicitation/create` question. */
export type ElicitAnswer =
  { action: "accept"; content: Record<string, string | number | boolean | string[]> } | { action: "decline" | "cancel" };

/** What `v2Client` opens. */
export interface V2ClientOptions {
  /** The negotiation (see {@link V2Version}); left out, the SDK's default. */
  readonly version?: V2Version | undefined;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** More headers on every request (e.g. a served spec's `authHeaders`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Declares form elicitation and answers each question with this (given its message). */
  readonly elicit?: (message: string) => ElicitAnswer | Promise<ElicitAnswer>;
  /** Declares sampling and answers each `sampling/createMessage` with this text. */
  readonly sample?: string;
  /** Sends a request elsewhere: given its URL, its JSON-RPC method and how many of that method were sent (this one included). */
  readonly route?: (url: string, method: string, nth: number) => string;
  /** The fetch each request goes through after it is logged and routed (default: the global `fetch`), to watch responses. */
  readonly fetch?: (url: string | URL, init?: RequestInit) => Promise<Response>;
  /** The client's name in its `clientInfo` (default `"agentkit-test"`). */
  readonly name?: string;
}

/** An open SDK v2 client with its transport and its log of sent requests; `await using` closes it. */
export type TestV2Client = V2Client & AsyncDisposable & { readonly http: V2Http; readonly sent: SentRequest[] };

function negotiation(version: V2Version | undefined): { versionNegotiation?: { mode: "legacy" | "auto" | { pin: string } } } {
  if (version === undefined) return {};
  return { versionNegotiation: { mode: version === "legacy" || version === "auto" ? version : { pin: version } } };
}

/** Opens an SDK v2 client on `url` (see {@link V2ClientOptions}); it is connected when this resolves. */
export async function v2Client(url: string | URL, options: V2ClientOptions = {}): Promise<TestV2Client> {
  const sent: SentRequest[] = [];
  const headers = { ...options.headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) };
  const transport = new V2Http(new URL(url), {
    requestInit: { headers },
    fetch: (to, init) => {
      let method = "";
      if (init?.method === "POST" && typeof init.body === "string") {
        const body = JSON.parse(init.body) as { method?: string; params?: Record<string, unknown> };
        const sentHeaders = new Headers(init.headers);
        method = body.method ?? "(response)";
        sent.push({
          method,
          protocolHeader: sentHeaders.get("mcp-protocol-version"),
          session: sentHeaders.get("mcp-session-id"),
          envelopeVersion: (body.params?._meta as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/protocolVersion"],
          params: body.params,
        });
      }
      const nth = sent.filter((s) => s.method === method).length;
      const send = options.fetch ?? fetch;
      return send(options.route && method ? options.route(String(to), method, nth) : to, init);
    },
  });
  const capabilities = {
    ...(options.elicit ? { elicitation: { form: {} } } : {}),
    ...(options.sample !== undefined ? { sampling: {} } : {}),
  };
  const client = new V2Client({ name: options.name ?? "agentkit-test", version: "1" }, { capabilities, ...negotiation(options.version) });
  const { elicit, sample } = options;
  if (elicit) client.setRequestHandler("elicitation/create", (req) => elicit(String(req.params.message)));
  if (sample !== undefined)
    client.setRequestHandler("sampling/createMessage", () => ({
      role: "assistant",
      content: { type: "text", text: sample },
      model: "fake-model",
    }));
  await client.connect(transport);
  return Object.assign(client, { http: transport, sent, [Symbol.asyncDispose]: () => client.close() });
}
