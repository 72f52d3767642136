/**
 * @module mcp/oauth/capped-fetch
 * A size cap on what the OAuth steps read: the SDK's auth functions fetch
 * discovery documents, registrations and tokens through the transport's
 * `fetch` and read each body whole, so a server could hand over any amount.
 * Every response to a request other than the MCP endpoint itself is read
 * here, up to the cap, and refused past it.
 */
import type { FetchLike } from "@modelcontextprotocol/client";
import { oauthResponseTooLarge } from "./oauth.error.js";
import { ignoreRejection } from "../../util/logger.js";

/** The most an authorization-server (or metadata) response may hold: 1 MiB. */
export const MAX_AUTH_RESPONSE_BYTES = 1 << 20;

function urlOf(input: string | URL | Request): string {
  return typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
}

/** Read `res`'s body into a new Response, or throw once it passes `limit` bytes (the rest is not read). */
async function readCapped(res: Response, url: string, limit: number): Promise<Response> {
  const declared = Number(res.headers.get("content-length"));
  const tooLarge = (): never => {
    throw oauthResponseTooLarge(url, limit);
  };
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel().catch(ignoreRejection("cancelling a refused response body"));
    tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(ignoreRejection("cancelling a response body past the cap; the cap error is thrown"));
        tooLarge();
      }
      chunks.push(value);
    }
  }
  const body = res.status === 204 || res.status === 304 ? null : Buffer.concat(chunks);
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * `base`, with every response to a URL other than `mcpUrl` (the OAuth and
 * metadata requests) read whole here and capped at `limit` bytes (default
 * `MAX_AUTH_RESPONSE_BYTES`). The MCP endpoint's own responses (SSE streams)
 * pass untouched.
 *
 * @throws AgentkitError (code `oauth_response_too_large`, from the returned fetch) for a larger response; the connection is dropped.
 */
export function cappedAuthFetch(base: FetchLike, mcpUrl: string, limit = MAX_AUTH_RESPONSE_BYTES): FetchLike {
  const endpoint = new URL(mcpUrl).href;
  return async (input, init) => {
    const res = await base(input, init);
    const url = urlOf(input);
    if (new URL(url).href === endpoint) return res;
    return readCapped(res, url, limit);
  };
}

/**
 * `base`, with every response read whole here and capped at `limit` bytes
 * (default `MAX_AUTH_RESPONSE_BYTES`): for a fetch that only ever talks to
 * authorization servers (an enterprise IdP's token exchange).
 *
 * @throws AgentkitError (code `oauth_response_too_large`, from the returned fetch) for a larger response; the connection is dropped.
 */
export function cappedFetch(base: FetchLike, limit = MAX_AUTH_RESPONSE_BYTES): FetchLike {
  return async (input, init) => readCapped(await base(input, init), urlOf(input), limit);
}
