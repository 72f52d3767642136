/**
 * @module test/agentkit-cli/inbox-page
 * The inbox page of an `agentkit` process, used the way a scripted reviewer
 * uses it: the one-time login (the code in the URL fragment, posted back for
 * a cookie and a session key), the pending questions and the decisions table
 * as the live stream first sends them, and the answer endpoint (same-origin
 * POST with the cookie and the key).
 */
import { expect } from "vitest";
import { until } from "../helpers/wait.js";

/** A logged-in session on a page. */
export interface PageSession {
  readonly cookie: string;
  /** The session key the page's script would hold (header `X-Agentkit-Session`). */
  readonly key: string;
  /** The page's URL (ends with `/`). */
  readonly page: string;
}

/** The headers a request of this session carries: the cookie and the key. */
export function sessionHeaders(session: PageSession): Record<string, string> {
  return { Cookie: session.cookie, "X-Agentkit-Session": session.key };
}

/** Log in on the page once (the code works once), as the login page's script does: the session cookie, its key and the page's URL. */
export async function logIn(loginUrl: string): Promise<PageSession> {
  const url = new URL(loginUrl);
  const code = /^#code=(.+)$/.exec(url.hash)?.[1];
  expect(code, `no code in the login URL's fragment: ${url.pathname}`).toBeDefined();
  const login = await fetch(`${url.origin}${url.pathname}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: url.origin },
    body: JSON.stringify({ code }),
  });
  expect(login.status).toBe(200);
  const body = (await login.json()) as { key: string; page: string };
  return { cookie: (login.headers.get("set-cookie") ?? "").split(";")[0]!, key: body.key, page: new URL(body.page, loginUrl).toString() };
}

/** The page's content as its live stream first sends it (decisions, then the pending questions, up to `ready`), as one HTML text. */
export async function pageHtml(session: PageSession): Promise<string> {
  const abort = new AbortController();
  const res = await fetch(`${session.page}events`, { headers: sessionHeaders(session), signal: abort.signal });
  expect(res.status).toBe(200);
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    if (text.includes("event: ready\n")) break;
  }
  abort.abort();
  const events = [...text.matchAll(/event: (\w+)\ndata: (.*)\n/g)].map((m) => ({
    type: m[1]!,
    data: JSON.parse(m[2]!) as { html: string },
  }));
  const decisions = events.find((e) => e.type === "decisions")?.data.html ?? "";
  const questions = events.filter((e) => e.type === "question").map((e) => e.data.html);
  return `${questions.join("\n")}\n<table id="decisions"><tbody>${decisions}</tbody></table>`;
}

/** Answer the first pending question about `tool` on the page with `body`. */
export async function answerOnPage(session: PageSession, tool: string, body: Record<string, unknown>): Promise<void> {
  let id: string | undefined;
  await until(
    async () => {
      const article = /<article class="question" id="q-[^"]+" data-id="([0-9a-f-]{36})" data-status="pending"[^]*?<\/article>/.exec(
        await pageHtml(session),
      );
      id = article?.[0].includes(tool) ? article[1] : undefined;
      return id !== undefined;
    },
    `a pending question about ${tool} on the page`,
    20_000,
  );
  const r = await fetch(`${session.page}answer`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...sessionHeaders(session), Origin: new URL(session.page).origin },
    body: JSON.stringify({ id, ...body }),
  });
  expect(r.status, await r.clone().text()).toBe(200);
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

/** The decisions table's rows in `html`, newest first, as cell texts (Tool, Allowed, Source, Asked, Actor, Reason, Time, From). */
export function decisionRows(html: string): string[][] {
  const body = /<table id="decisions">[^]*?<tbody>([^]*?)<\/tbody>/.exec(html)?.[1] ?? "";
  return [...body.matchAll(/<tr [^>]*>([^]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<td>([^]*?)<\/td>/g)].map((cell) =>
      cell[1]!.replace(/<[^>]+>/g, "").replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!),
    ),
  );
}
