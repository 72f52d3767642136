/**
 * @module test/core/gate/four-entry-points.test
 * One table of cases, run through all four gate entry points — ReActCognition
 * (FakeLLM), ApprovalServer (a real MCP client calling `approve` over
 * loopback HTTP), approvalGuard via serveRegistry (a real MCP client calling
 * a requiresApproval tool) and the Claude hook endpoint (a real HTTP POST of a
 * PreToolUse document). Where an entry point's semantics legitimately differ
 * (only ApprovalServer has autoAllow, the guard asks only for requiresApproval
 * tools, the hook has no tier), the difference is a column of the row, not a
 * skipped case. Every entry point that settled the same way must emit the
 * same `gate.check` payload (the tool name, id and `via` normalised).
 */
import { describe, expect, it } from "vitest";
import type { Asker, Decision } from "../../../src/index.js";
import { ENTRY_POINTS, runThrough, type EntryPoint, type GateOutcome, type GateSetup } from "./entry-points.js";

/** What one entry point must show; `source: null` means it settled nothing it records (an ungated call). */
interface Expect {
  readonly allowed: boolean;
  readonly source: string | null;
  readonly asked: boolean;
  readonly actor?: string | null;
  readonly ranWith?: Record<string, unknown>;
  readonly message?: string;
}

interface Case {
  readonly name: string;
  readonly setup: GateSetup;
  /** The same for every entry point, unless `per` says otherwise for one. */
  readonly all: Expect;
  readonly per?: Partial<Record<EntryPoint, Partial<Expect>>>;
  /** False when each entry point words the reason its own way (who cancelled). */
  readonly reasonComparable?: boolean;
}

const answering = (decision: unknown) => (): Asker => ({ ask: async () => decision as Decision });
const reject = answering({ kind: "reject", actor: "ops", note: "not today" });
const never = (): Asker => ({ ask: () => new Promise<Decision>(() => {}) });
const circular = (): Record<string, unknown> => {
  const v: Record<string, unknown> = { target: "x" };
  v.me = v;
  return v;
};
const denied = (source: string, actor: string | null = null): Expect => ({ allowed: false, source, asked: true, actor });
const rejected: Expect = denied("asker", "ops");
const autoAllowed: Partial<Expect> = { allowed: true, source: "auto_allow", asked: false, actor: null };

const CASES: Case[] = [
  {
    name: "approve",
    setup: { asker: answering({ kind: "approve", actor: "ops" }) },
    all: { allowed: true, source: "asker", asked: true, actor: "ops", ranWith: { target: "prod" } },
  },
  {
    name: "reject with a note",
    setup: { asker: reject },
    all: rejected,
    per: {
      react: { message: "tool 'deploy' was not run: rejected by ops: not today" },
      mcp_guard: { message: "tool 'deploy' was not run: rejected by ops: not today" },
      approval_server: { message: "not today" },
      claude_hook: { message: "not today" },
    },
  },
  {
    name: "modify with a valid object",
    setup: { asker: answering({ kind: "modify", actor: "ops", value: { target: "staging" } }) },
    all: { allowed: true, source: "asker", asked: true, actor: "ops", ranWith: { target: "staging" } },
  },
  {
    name: "modify with a Date",
    setup: { asker: answering({ kind: "modify", actor: "ops", value: new Date(0) }) },
    all: denied("asker", "ops"),
  },
  {
    name: "modify with a BigInt",
    setup: { asker: answering({ kind: "modify", actor: "ops", value: { target: 1n } }) },
    all: denied("asker", "ops"),
  },
  {
    name: "modify with a circular object",
    setup: { asker: () => ({ ask: async () => ({ kind: "modify", actor: "ops", value: circular() }) }) },
    all: denied("asker", "ops"),
  },
  {
    name: "modify with an array",
    setup: { asker: answering({ kind: "modify", actor: "ops", value: [{ target: "x" }] }) },
    all: denied("asker", "ops"),
  },
  { name: "expired", setup: { asker: answering({ kind: "expired", actor: "pager" }), timeoutMs: 60_000 }, all: denied("asker", "pager") },
  { name: "an unknown kind", setup: { asker: answering({ kind: "maybe", actor: "ops" }) }, all: denied("asker", "ops") },
  { name: "not a Decision", setup: { asker: answering(undefined) }, all: denied("error") },
  {
    name: "the Asker throws",
    setup: { asker: () => ({ ask: async () => Promise.reject(new Error("pager offline")) }) },
    all: denied("error"),
  },
  { name: "the Asker is slow: the deadline fires", setup: { asker: never, timeoutMs: 100 }, all: denied("timeout") },
  {
    name: "autoAllow (ApprovalServer only)",
    setup: { asker: reject, autoAllow: ["deploy"] },
    all: rejected,
    per: { approval_server: autoAllowed },
  },
  {
    name: "autoAllowWhen true (ApprovalServer only)",
    setup: { asker: reject, autoAllow: ["deploy"], autoAllowWhen: () => true },
    all: rejected,
    per: { approval_server: autoAllowed },
  },
  {
    name: "autoAllowWhen false falls through to the Asker",
    setup: { asker: reject, autoAllow: ["deploy"], autoAllowWhen: () => false },
    all: rejected,
  },
  {
    name: "autoAllowWhen throws: falls through to the Asker",
    setup: {
      asker: reject,
      autoAllow: ["deploy"],
      autoAllowWhen: () => {
        throw new Error("bad filter");
      },
    },
    all: rejected,
  },
  {
    name: 'autonomy "auto", no requiresApproval: ungated where there is a tier (the hook has none)',
    setup: { asker: reject, autonomy: "auto", requiresApproval: false },
    all: rejected,
    per: {
      react: { allowed: true, source: "autonomy", asked: false, actor: null },
      mcp_guard: { allowed: true, source: null, asked: false },
      approval_server: { allowed: true, source: "autonomy", asked: false, actor: null },
    },
  },
  {
    name: 'autonomy "gated" asks',
    setup: { asker: reject, autonomy: "gated", requiresApproval: false },
    all: rejected,
    per: { mcp_guard: { allowed: true, source: null, asked: false } },
  },
  {
    name: 'requiresApproval under "auto" still asks (ApprovalServer has no declaration to read)',
    setup: { asker: reject, autonomy: "auto", requiresApproval: true },
    all: rejected,
    per: { approval_server: { allowed: true, source: "autonomy", asked: false, actor: null } },
  },
  {
    // The run cancelled (ReAct, the hook): an abandoned ask, source error. The MCP client stopped waiting
    // (the approval server's prompt, the guarded call): a timeout on the client's side, source timeout.
    name: "the asking side gives up while the Asker decides",
    setup: { asker: (cancel) => ({ ask: () => (setTimeout(cancel, 20), new Promise<Decision>(() => {})) }) },
    all: denied("error"),
    per: { approval_server: denied("timeout"), mcp_guard: denied("timeout") },
    reasonComparable: false,
  },
  {
    // /dev/full opens for appending and refuses every write (ENOSPC): the recorder's one policy turns the allow into a deny everywhere.
    name: "an audit sink that fails: an approve is denied at every entry point",
    setup: { asker: answering({ kind: "approve", actor: "ops" }), auditPath: "/dev/full" },
    all: { allowed: false, source: "error", asked: true, actor: null },
  },
  {
    name: "an audit sink that fails: an ungated call is denied too (ReAct and ApprovalServer record it as autonomy first)",
    setup: { asker: reject, autonomy: "auto", requiresApproval: false, auditPath: "/dev/full" },
    all: rejected,
    per: {
      react: { allowed: false, source: "error", asked: false, actor: null },
      approval_server: { allowed: false, source: "error", asked: false, actor: null },
      mcp_guard: { allowed: true, source: null, asked: false },
    },
  },
  {
    name: "a Decision whose kind getter throws",
    setup: {
      asker: answering({
        get kind(): string {
          throw new Error("kind exploded");
        },
      }),
    },
    all: denied("error"),
  },
];

/** The payload with what legitimately differs by entry point normalised. */
function normalised(check: Readonly<Record<string, unknown>>, reasonComparable: boolean): Record<string, unknown> {
  const { at, via: _via, id: _id, questionId: _q, ...rest } = check;
  expect(new Date(String(at)).toISOString()).toBe(at);
  const tool = String(rest.tool).replace("mcp__engine__", "");
  const reason = String(rest.reason).replaceAll("mcp__engine__deploy", "deploy");
  return { ...rest, tool, reason: reasonComparable ? reason : "(differs)" };
}

function check(entry: EntryPoint, out: GateOutcome, want: Expect): void {
  expect({ entry, allowed: out.allowed }).toEqual({ entry, allowed: want.allowed });
  if (want.ranWith) expect(out.ranWith).toEqual(want.ranWith);
  if (want.message) expect(out.message).toBe(want.message);
  if (want.source === null) {
    expect(out.checks).toEqual([]);
    expect(out.askerCalls).toBe(0);
    return;
  }
  expect(out.checks).toHaveLength(1);
  expect(out.record).toMatchObject({
    allowed: want.allowed,
    source: want.source,
    asked: want.asked,
    ...(want.actor !== undefined ? { actor: want.actor } : {}),
  });
  expect(out.askerCalls).toBe(want.asked ? 1 : 0);
  // The question carries its call: the Asker got a signal and an id, and the record (and its gate.check) keeps that id.
  expect(out.signals).toEqual(want.asked ? [true] : []);
  const questionId = want.asked ? out.questionIds[0] : null;
  if (want.asked) expect(questionId).toMatch(/^[0-9a-f-]{36}$/);
  expect({ entry, questionId: out.record?.questionId }).toEqual({ entry, questionId });
  expect(out.checks[0]).toMatchObject({ questionId });
  expect(out.checks[0]).toMatchObject({ via: entry, allowed: want.allowed, source: want.source, asked: want.asked });
  expect(out.checks[0]).not.toHaveProperty("arguments");
  if (out.seen)
    expect(out.seen).toMatchObject({
      source: want.source,
      asked: want.asked,
      decision: want.allowed ? "allow" : "deny",
      questionId,
      record: out.record,
    });
}

describe("one table, four entry points", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const groups = new Map<string, Array<Record<string, unknown>>>();
    for (const entry of ENTRY_POINTS) {
      const want: Expect = { ...c.all, ...c.per?.[entry] };
      const out = await runThrough(entry, c.setup);
      check(entry, out, want);
      if (want.source === null) continue;
      const key = JSON.stringify({ allowed: want.allowed, source: want.source, asked: want.asked });
      groups.set(key, [...(groups.get(key) ?? []), normalised(out.checks[0]!, c.reasonComparable !== false)]);
    }
    // The same verdict through any entry point is the same gate.check payload.
    for (const payloads of groups.values()) for (const p of payloads) expect(p).toEqual(payloads[0]);
  });
});
