/**
 * @module test/agentkit-cli/inbox-page
 * The inbox page of an `agentkit` process, used the way a scripted reviewer
 * uses it: the one-time login, the pending questions and the decisions table
 * as the server renders them, and the answer endpoint (same-origin POST).
 */
import { expect } from "vitest";

/** A logged-in session on a page. */
export interface PageSession {
  readonly cookie: string;
  /** The page's URL (ends with `/`). */
  readonly page: string;
}

/** Log in on the page once (the code works once): the session cookie and the page's URL. */
export async function logIn(loginUrl: string): Promise<PageSession> {
  const login = await fetch(loginUrl, { redirect: "manual" });
  expect(login.status).toBe(303);
  return { cookie: (login.headers.get("set-cookie") ?? "").split(";")[0]!, page: new URL(login.headers.get("location")!, loginUrl).toString() };
}

/** The page's HTML as the server renders it now. */
export async function pageHtml({ cookie, page }: PageSession): Promise<string> {
  const res = await fetch(page, { headers: { Cookie: cookie } });
  expect(res.status).toBe(200);
  return res.text();
}

/** Answer the first pending question about `tool` on the page with `body`. */
export async function answerOnPage(session: PageSession, tool: string, body: Record<string, unknown>): Promise<void> {
  let id: string | undefined;
  for (const t = Date.now(); !id && Date.now() - t < 20_000; await new Promise((r) => setTimeout(r, 100))) {
    const html = await pageHtml(session);
    const article = /<article class="question" id="q-[^"]+" data-id="([0-9a-f-]{36})" data-status="pending"[^]*?<\/article>/.exec(html);
    if (article && article[0].includes(tool)) id = article[1];
  }
  expect(id, "the question never appeared on the page").toBeDefined();
  const r = await fetch(`${session.page}answer`, { method: "POST", headers: { "Content-Type": "application/json", Cookie: session.cookie, Origin: new URL(session.page).origin }, body: JSON.stringify({ id, ...body }) });
  expect(r.status, await r.clone().text()).toBe(200);
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

/** The decisions table's rows in `html`, newest first, as cell texts (Tool, Allowed, Source, Asked, Actor, Reason, Time, From). */
export function decisionRows(html: string): string[][] {
  const body = /<table id="decisions">[^]*?<tbody>([^]*?)<\/tbody>/.exec(html)?.[1] ?? "";
  return [...body.matchAll(/<tr [^>]*>([^]*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<td>([^]*?)<\/td>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, "").replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!)));
}
