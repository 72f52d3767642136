/**
 * @module test/askers/inbox-store.test
 * The inbox's parts without a browser: the in-process store's
 * compare-and-set and its events; the asker's answers, deadline and
 * decisions rows (the gate's record, written once); the answer
 * parser the server applies; HTML escaping; option errors; the entry's exports.
 */
import { describe, expect, it } from "vitest";
import * as askers from "../../src/askers/index.js";
import { inboxAsker, MemoryInboxStore, type InboxEvent, type StoredQuestion } from "../../src/askers/index.js";
import { InboxAsker } from "../../src/askers/inbox/inbox-asker.js";
import { questionHtml, decisionHtml } from "../../src/askers/inbox/inbox-html.js";
import { pageScript } from "../../src/askers/inbox/inbox-script.js";
import { parseAnswer } from "../../src/askers/inbox/inbox-routes.js";
import { gateVerdict } from "../../src/gate/index.js";
import { approvalGuard } from "../../src/mcp/approvals/approval-guard.js";

function questionFor(id: string, tool = "Write"): StoredQuestion {
  return {
    id,
    callId: null,
    tool,
    arguments: { a: 1 },
    question: "ok?",
    source: "approval_server",
    from: "engine",
    askedAt: new Date().toISOString(),
    deadlineAt: null,
    status: "pending",
  };
}

/** Answers the first question `store` announces with `answer`. */
function answerNext(store: MemoryInboxStore, answer: Parameters<MemoryInboxStore["settle"]>[1]): void {
  const off = store.subscribe((e) => {
    if (e.type !== "question") return;
    off();
    queueMicrotask(() => void store.settle(e.question.id, answer));
  });
}

describe("MemoryInboxStore", () => {
  it("settles a pending question exactly once and announces it; a loser is told the state", async () => {
    const store = new MemoryInboxStore();
    const events: InboxEvent["type"][] = [];
    store.subscribe((e) => events.push(e.type));
    await store.put(questionFor("q1"));
    const first = await store.settle("q1", { status: "answered", answer: { kind: "approve", actor: "ada" } });
    const second = await store.settle("q1", { status: "timed_out", reason: "late" });
    expect(first).toMatchObject({ ok: true, question: { status: "answered", answer: { actor: "ada" } } });
    expect(second).toMatchObject({ ok: false, question: { status: "answered" } });
    expect(await store.settle("nope", { status: "withdrawn", reason: "x" })).toEqual({ ok: false, question: undefined });
    expect(events).toEqual(["question", "settled"]);
    expect(await store.pending()).toEqual([]);
  });

  it("a decision with the same id replaces the row, keeping its place", async () => {
    const store = new MemoryInboxStore();
    const row = {
      tool: "T",
      allowed: true,
      source: "asker" as const,
      asked: true,
      actor: "a",
      reason: "r",
      at: "2026-01-01T00:00:00Z",
      from: "f",
      confirmed: false,
    };
    await store.recordDecision({ ...row, id: "1" });
    await store.recordDecision({ ...row, id: "2" });
    await store.recordDecision({ ...row, id: "1", allowed: false, confirmed: true });
    expect((await store.decisions(10)).map((d) => [d.id, d.allowed])).toEqual([
      ["2", true],
      ["1", false],
    ]);
  });
});

describe("InboxAsker", () => {
  it("returns the page's answer as a Decision with the actor; the decisions row is the gate's record, written once", async () => {
    const store = new MemoryInboxStore();
    const asker = inboxAsker({ store, source: "engine" });
    const writes: string[] = [];
    store.subscribe((e) => e.type === "decision" && writes.push(e.decision.id));
    answerNext(store, { status: "answered", answer: { kind: "modify", actor: "ada", value: { path: "b" } } });
    const verdict = await gateVerdict({ tool: "Edit", arguments: { path: "a" }, via: "approval_server", id: "toolu_9", asker });
    expect(verdict).toMatchObject({ allowed: true, source: "asker", arguments: { path: "b" } });
    // The asker only asks: the answer alone writes no row.
    expect(await store.decisions(10)).toEqual([]);
    asker.emit("gate.check", { ...verdict.record, arguments: undefined });
    const rows = await store.decisions(10);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: verdict.record.questionId,
      tool: "Edit",
      allowed: true,
      from: "engine",
      confirmed: true,
      source: "asker",
      actor: "ada",
    });
    expect(writes).toEqual([verdict.record.questionId]);
    asker.emit("gate.check", {
      tool: "Read",
      allowed: true,
      source: "auto_allow",
      asked: false,
      actor: null,
      reason: "pre-approved",
      id: null,
      at: "2026-01-01T00:00:00Z",
    });
    expect((await store.decisions(10)).map((d) => d.source)).toEqual(["auto_allow", "asker"]);
    asker.emit("tool.call", { tool: "x" });
    asker.emit("gate.check", { tool: "x", source: "made-up" });
    expect(await store.decisions(10)).toHaveLength(2);
  });

  it("wired as the guard's ctx, each decision is one write: the gate's record", async () => {
    const store = new MemoryInboxStore();
    const asker = inboxAsker({ store, source: "engine" });
    const writes: Array<[string, boolean]> = [];
    store.subscribe((e) => e.type === "decision" && writes.push([e.decision.id, e.decision.confirmed]));
    const guard = approvalGuard({ asker, ctx: asker });
    const call = (env: string) =>
      guard({ tool: { requiresApproval: true }, name: "deploy", qualifiedName: "mcp__engine__deploy", arguments: { env } });
    answerNext(store, { status: "answered", answer: { kind: "approve", actor: "ada" } });
    expect(await call("staging")).toEqual({ allowed: true });
    answerNext(store, { status: "answered", answer: { kind: "reject", actor: "ada", note: "not prod" } });
    expect(await call("prod")).toMatchObject({ allowed: false });
    expect(writes).toEqual(guard.decisions.map((d) => [d.questionId, true]));
    expect(writes).toHaveLength(2);
  });

  it("at its deadline the question is marked timed out and ask() answers expired; a later answer is refused", async () => {
    const store = new MemoryInboxStore();
    const asker = new InboxAsker({ store });
    let id = "";
    store.subscribe((e) => {
      if (e.type === "question") id = e.question.id;
    });
    const decision = await asker.ask({ question: "q", toolCall: { id: "1", name: "Deploy", arguments: {} }, timeoutMs: 50 });
    expect(decision).toMatchObject({ kind: "expired", note: expect.stringContaining("deadline passed") });
    expect(await store.get(id)).toMatchObject({ status: "timed_out", from: "agentkit" });
    expect(await store.pending()).toEqual([]);
    expect(await store.settle(id, { status: "answered", answer: { kind: "approve", actor: "late" } })).toMatchObject({
      ok: false,
      question: { status: "timed_out" },
    });
    expect(await store.decisions(1)).toEqual([]); // no row until the gate reports the timeout
  });

  it("the gate's own timeout withdraws the question from the page as timed out", async () => {
    const store = new MemoryInboxStore();
    const asker = new InboxAsker({ store, source: "s" });
    let id = "";
    store.subscribe((e) => {
      if (e.type === "question") id = e.question.id;
    });
    const verdict = await gateVerdict({ tool: "Deploy", arguments: {}, via: "approval_server", asker, timeoutMs: 30 });
    asker.emit("gate.check", { ...verdict.record });
    expect(verdict.source).toBe("timeout");
    expect(await store.get(id)).toMatchObject({ status: "timed_out" });
    expect(await store.settle(id, { status: "answered", answer: { kind: "approve", actor: "late" } })).toMatchObject({ ok: false });
  });

  it("refuses bad options by name", () => {
    expect(() => new InboxAsker({} as never)).toThrow(
      /^inboxAsker: 'store' is required \(an InboxStore: an inbox's store, or new MemoryInboxStore\(\)\)$/,
    );
    expect(() => new InboxAsker({ store: new MemoryInboxStore(), source: "" })).toThrow(
      /^inboxAsker: 'source' must be a non-empty name of the run or server/,
    );
    expect(() => new InboxAsker({ store: new MemoryInboxStore(), sorce: "x" } as never)).toThrow(
      expect.objectContaining({
        code: "invalid_option",
        where: "inboxAsker",
        option: "sorce",
        message: "inboxAsker: unknown option 'sorce'. Accepted options: store, source, worker",
      }),
    );
    expect(() => new InboxAsker({ store: {} } as never)).toThrow(
      expect.objectContaining({
        option: "store",
        message: "inboxAsker: 'store' must be an InboxStore (an inbox's store, or new MemoryInboxStore()), got object {}",
      }),
    );
    expect(() => new InboxAsker({ store: new MemoryInboxStore(), worker: "w".repeat(101) })).toThrow(
      expect.objectContaining({ option: "worker" }),
    );
  });
});

describe("ApprovalInbox.start", () => {
  it("refuses bad options by name, before binding anything", async () => {
    await expect(askers.ApprovalInbox.start({ port: -1 })).rejects.toThrow(/port must be an integer 0-65535/);
    await expect(askers.ApprovalInbox.start({ path: "inbox/" })).rejects.toThrow(/^ApprovalInbox.start: 'path' must be "\/inbox"-like/);
    await expect(askers.ApprovalInbox.start({ store: {} as never })).rejects.toThrow(
      /^ApprovalInbox.start: 'store' must be an InboxStore \(put, settle/,
    );
    await expect(askers.ApprovalInbox.start({ token: "x" } as never)).rejects.toThrow(
      /unknown option 'token'. Accepted options: store, port, path, loginTtlMs, sessionTtlMs$/,
    );
  });

  it("two inboxes on one listener get their own paths and their own cookies", async () => {
    await using a = await askers.ApprovalInbox.start();
    await using b = await askers.ApprovalInbox.start();
    expect(new URL(a.url).port).toBe(new URL(b.url).port);
    expect([new URL(a.url).pathname, new URL(b.url).pathname]).toEqual(["/inbox/", "/inbox-2/"]);
    const url = new URL(a.loginUrl);
    const login = await fetch(`${url.origin}${url.pathname}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: url.origin },
      body: JSON.stringify({ code: url.hash.slice("#code=".length) }),
    });
    const ca = login.headers.get("set-cookie")!;
    expect(ca).toMatch(/; Path=\/inbox; HttpOnly; SameSite=Strict$/);
    const headers = { Cookie: ca.split(";")[0]!, "X-Agentkit-Session": ((await login.json()) as { key: string }).key };
    expect((await fetch(a.url, { headers })).status).toBe(200);
    expect((await fetch(b.url, { headers })).status).toBe(401);
    const events = (inbox: typeof a) => fetch(`${inbox.url}events`, { headers }).then(async (r) => (await r.body?.cancel(), r.status));
    expect(await events(a)).toBe(200);
    expect(await events(b)).toBe(401);
  });
});

describe("the answer the server accepts", () => {
  it("checks kind, actor, note and (for modify) the arguments as a JSON object; the actor is the session, a typed name only a claim", () => {
    expect(parseAnswer({ id: "1", kind: "approve" }, "inbox session 3 (abcdef)")).toEqual({
      ok: true,
      id: "1",
      answer: { kind: "approve", actor: "inbox session 3 (abcdef)" },
    });
    expect(parseAnswer({ id: "1", kind: "reject", note: "  no  ", actor: " ada " }, "inbox session 3 (abcdef)")).toEqual({
      ok: true,
      id: "1",
      answer: { kind: "reject", actor: "inbox session 3 (abcdef)", claimed: "ada", note: "no" },
    });
    expect(parseAnswer({ id: "1", kind: "approve", actor: "x".repeat(150), login: "forged" }, "s")).toEqual({
      ok: true,
      id: "1",
      answer: { kind: "approve", actor: "s", claimed: "x".repeat(100) },
    });
    expect(parseAnswer({ id: "1", kind: "approve", actor: 7 }, "s")).toMatchObject({ ok: false, field: "actor" });
    expect(parseAnswer({ id: "1", kind: "modify", arguments: '{"a": 2}' })).toMatchObject({ ok: true, answer: { value: { a: 2 } } });
    expect(parseAnswer({ id: "1", kind: "modify", arguments: "{a" })).toMatchObject({
      ok: false,
      field: "arguments",
      error: expect.stringMatching(/^not valid JSON: /),
    });
    expect(parseAnswer({ id: "1", kind: "modify", arguments: "null" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^not a JSON object: got null/),
    });
    expect(parseAnswer({ id: "1", kind: "allow" })).toMatchObject({
      ok: false,
      error: 'kind must be approve, reject or modify, got "allow"',
    });
    expect(parseAnswer([1])).toMatchObject({ ok: false });
    expect(parseAnswer({ kind: "approve" })).toMatchObject({ ok: false, field: "id" });
  });
});

describe("the page's HTML", () => {
  it("the inline scripts the page and the login page send are valid JavaScript", () => {
    for (const script of [pageScript("inbox"), pageScript("login")]) expect(() => new Function(script)).not.toThrow();
  });

  it("escapes everything that came from outside (tool name, arguments, source, reason)", () => {
    const evil = '<img src=x onerror="alert(1)">';
    const html = questionHtml({ ...questionFor("q"), tool: evil, arguments: { x: evil }, from: evil, question: evil });
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    const row = decisionHtml({
      id: "1",
      tool: evil,
      allowed: false,
      source: "asker",
      asked: true,
      actor: evil,
      reason: evil,
      at: "2026-01-01T00:00:00Z",
      from: evil,
      confirmed: true,
    });
    expect(row).not.toContain("<img");
  });
});

describe("a question's heading and source in words", () => {
  const text = (html: string) =>
    html
      .replace(/<[^>]+>/g, "")
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
  it("a qualified name reads as the tool and its server, the exact name kept beside; the entry point in words", () => {
    const html = questionHtml({ ...questionFor("q", "mcp__ops__deploy"), source: "mcp_guard" });
    const heading = /<h3[^>]*>(.*?)<\/h3>/s.exec(html)![1]!;
    expect(text(heading)).toBe("deploy, a tool of the ops server mcp__ops__deploy");
    expect(text(html)).toContain("asked by the approval guard");
    expect(text(html)).not.toContain("source mcp_guard");
    expect(text(questionHtml({ ...questionFor("r"), source: "approval_server" }))).toContain("asked by the approval server");
    expect(text(questionHtml({ ...questionFor("r"), source: "claude_hook" }))).toContain("asked by the Claude Code hook");
    expect(text(questionHtml({ ...questionFor("r"), source: "react" }))).toContain("asked by an agent's loop");
  });

  it("a plain name and an unknown source stay as they are; parts of a qualified name are escaped and bounded", () => {
    const plain = questionHtml({ ...questionFor("q", "Write"), source: "billing" });
    expect(text(/<h3[^>]*>(.*?)<\/h3>/s.exec(plain)![1]!)).toBe("Write");
    expect(text(plain)).toContain("source billing");
    const evil = questionHtml({ ...questionFor("q", 'mcp__ops__<img src=x onerror="1">' + "x".repeat(5000)), source: "<i>" });
    expect(evil).not.toContain("<img");
    expect(evil).not.toContain("<i>");
    expect(evil).toContain("source <b>&lt;i&gt;</b>");
    const words = text(/<h3[^>]*>(.*?)<code/s.exec(evil)![1]!);
    expect(words).toMatch(/^<img src=x .*….*x, a tool of the ops server $/);
    expect(Array.from(words.replace(", a tool of the ops server ", "")).length).toBeLessThanOrEqual(64);
    // Not a qualified name (the server part is not one plain token): shown as it is.
    expect(text(/<h3[^>]*>(.*?)<\/h3>/s.exec(questionHtml(questionFor("q", "mcp__a b__c")))![1]!)).toBe("mcp__a b__c");
  });
});

it("arc-agentkit/askers exports exactly these names", () => {
  expect(Object.keys(askers).sort()).toEqual([
    "ApprovalInbox",
    "MEMORY_PENDING_LIMIT",
    "MemoryInboxStore",
    "TerminalAsker",
    "inboxAsker",
    "migrateInboxStore",
    "pgliteInboxStore",
    "postgresInboxStore",
  ]);
});
