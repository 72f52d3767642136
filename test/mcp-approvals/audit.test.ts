/**
 * @module test/mcp-approvals/audit.test
 * The audit: in memory first, then gate.check without arguments (best-effort);
 * the JSONL sink (one fsync'd 0600 line per decision, serialized, fail-closed
 * when it cannot write); and approvalGuard using the same engine and audit.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Asker } from "../../src/contracts/elicitation.js";
import { makeTestCtx } from "../../src/testing/index.js";
import { setLogger } from "../../src/util/logger.js";
import { ApprovalAudit } from "../../src/mcp/approvals/approval-audit.js";
import { approvalGuard } from "../../src/mcp/approvals/approval-guard.js";
import { AgentkitError, type GateRecord } from "../../src/index.js";
import { JsonlAuditSink } from "../../src/gate/jsonl-audit-sink.js";
import { DECISIONS_KEPT } from "../../src/gate/gate-recorder.js";
import { errorVerdict, verdictFromDecision, type GateSubject } from "../../src/gate/index.js";
import { askerAnswering } from "../helpers/asker.js";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "agentkit-approvals-test-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const readLines = (path: string): GateRecord[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as GateRecord);

const prompt: GateSubject = { tool: "Write", arguments: { file_path: "/etc/passwd" }, via: "approval_server" };

describe("ApprovalAudit", () => {
  it("appends in memory before emitting gate.check, which carries everything but the arguments", async () => {
    const ctx = makeTestCtx();
    const audit = new ApprovalAudit({ ctx });
    let sizeWhenEmitted = -1;
    ctx.on(() => (sizeWhenEmitted = audit.decisions.length));
    await audit.record(prompt, verdictFromDecision({ kind: "reject", actor: "ci", note: "/etc is out of scope" }, prompt, undefined));
    expect(sizeWhenEmitted).toBe(1);
    const [d] = audit.decisions;
    expect(d).toMatchObject({
      tool: "Write",
      arguments: { file_path: "/etc/passwd" },
      allowed: false,
      source: "asker",
      asked: true,
      reason: "/etc is out of scope",
      actor: "ci",
    });
    // The engine's record: id, via and kind joined the seed's fields when the four gates became one.
    expect(Object.keys(d!).sort()).toEqual([
      "actor",
      "allowed",
      "arguments",
      "asked",
      "at",
      "id",
      "kind",
      "questionId",
      "reason",
      "source",
      "tool",
      "via",
    ]);
    expect(new Date(d!.at).toISOString()).toBe(d!.at);
    expect(Object.isFrozen(d) && Object.isFrozen(d!.arguments)).toBe(true);
    expect(ctx.events).toEqual([
      {
        event: "gate.check",
        data: {
          tool: "Write",
          id: null,
          questionId: null,
          via: "approval_server",
          allowed: false,
          source: "asker",
          asked: true,
          kind: "reject",
          reason: "/etc is out of scope",
          actor: "ci",
          at: d!.at,
        },
      },
    ]);
  });

  it("a modify keeps the original arguments and adds updatedArguments (off the broadcast)", async () => {
    const ctx = makeTestCtx();
    const audit = new ApprovalAudit({ ctx });
    await audit.record(prompt, verdictFromDecision({ kind: "modify", value: { file_path: "/tmp/p" } }, prompt, undefined));
    expect(audit.decisions[0]).toMatchObject({
      arguments: { file_path: "/etc/passwd" },
      updatedArguments: { file_path: "/tmp/p" },
      allowed: true,
    });
    expect(ctx.events[0]!.data).not.toHaveProperty("updatedArguments");
    expect(ctx.events[0]!.data).not.toHaveProperty("arguments");
  });

  it("a broken event listener cannot lose the decision", async () => {
    const ctx = {
      emit: () => {
        throw new Error("listener down");
      },
    };
    const audit = new ApprovalAudit({ ctx });
    const v = await audit.record(prompt, errorVerdict(prompt, "x", false));
    expect(v.allowed).toBe(false);
    expect(audit.decisions).toHaveLength(1);
  });

  it("checks its options", () => {
    expect(() => new ApprovalAudit({ ctx: {} as never })).toThrow(
      "approvals: 'ctx' must be a RunContext (an object with emit(event, data)), or be left unset, got object {}",
    );
    expect(() => new ApprovalAudit({ auditPath: "" })).toThrow(`approvals: 'auditPath' must be a file path, got string ""`);
  });
});

describe("JsonlAuditSink", () => {
  it("appends one JSON line per decision to a 0600 file, in order, concurrent appends not interleaved", async () => {
    const path = join(tempDir(), "audit.jsonl");
    const audit = new ApprovalAudit({ auditPath: path });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        audit.record(
          { tool: `T${i}`, arguments: { i, blob: "x".repeat(5000) }, via: "approval_server" },
          errorVerdict({ tool: `T${i}`, arguments: {}, via: "approval_server" }, "r", false),
        ),
      ),
    );
    const lines = readLines(path);
    expect(lines.map((l) => l.tool)).toEqual(audit.decisions.map((d) => d.tool));
    expect(lines).toEqual(JSON.parse(JSON.stringify(audit.decisions)));
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("fails early on a path it cannot open, naming it", async () => {
    const path = join(tempDir(), "missing-dir", "audit.jsonl");
    const sink = new JsonlAuditSink(path);
    const err = await sink.check().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentkitError);
    expect((err as AgentkitError).code).toBe("audit_sink");
    expect((err as Error).message).toMatch(new RegExp(`^approval audit file '${path}' could not be opened for appending: ENOENT`));
  });

  it("fails closed: an allow whose line cannot be written becomes a deny (source error)", async () => {
    const warned: string[] = [];
    const prev = setLogger({ debug: () => {}, info: () => {}, warn: (m) => warned.push(m), error: () => {} });
    try {
      const path = join(tempDir(), "gone", "audit.jsonl");
      const audit = new ApprovalAudit({ auditPath: path });
      const v = await audit.record(prompt, verdictFromDecision({ kind: "approve" }, prompt, undefined));
      expect(v).toMatchObject({ allowed: false, source: "error", asked: true });
      expect(v.reason).toMatch(
        /^approval for 'Write' failed: the decision could not be written to the audit file \(approval audit file '.*' could not be appended to and flushed: ENOENT/,
      );
      expect(audit.decisions).toHaveLength(1);
      expect(audit.decisions[0]!.allowed).toBe(false);
      expect(warned[0]).toMatch(/^approvals: AgentkitError: approval audit file/);
      // a deny stays a deny
      const d = await audit.record(prompt, verdictFromDecision({ kind: "reject", note: "no" }, prompt, undefined));
      expect(d).toMatchObject({ allowed: false, source: "asker", reason: "no" });
    } finally {
      setLogger(prev);
    }
  });
});

describe("approvalGuard (called directly)", () => {
  const gated = { requiresApproval: true };
  const req = (args: unknown, ctx = makeTestCtx()) => ({
    tool: gated,
    name: "deploy",
    qualifiedName: "mcp__engine__deploy",
    arguments: args,
    ctx,
  });

  it("passes tools that do not require approval, asking nobody and recording nothing", async () => {
    const asker = askerAnswering({ kind: "reject" });
    const guard = approvalGuard({ asker });
    expect(await guard({ ...req({ env: "prod" }), tool: { requiresApproval: false } })).toEqual({ allowed: true });
    expect(asker.seen).toHaveLength(0);
    expect(guard.decisions).toHaveLength(0);
  });

  it("asks for requiresApproval tools; approve runs, modify runs with the edit", async () => {
    const asker = askerAnswering({ kind: "approve", actor: "ops" });
    const guard = approvalGuard({ asker });
    expect(await guard(req({ env: "prod" }))).toEqual({ allowed: true });
    expect(asker.seen[0]).toMatchObject({ source: "mcp_guard", toolCall: { name: "mcp__engine__deploy", arguments: { env: "prod" } } });
    const edit = approvalGuard({ asker: askerAnswering({ kind: "modify", value: { env: "staging" } }) });
    expect(await edit(req({ env: "prod" }))).toEqual({ allowed: true, arguments: { env: "staging" } });
  });

  it("a denial names who refused and why; records under the qualified name; gate.check on the call's ctx", async () => {
    const ctx = makeTestCtx();
    const guard = approvalGuard({ asker: askerAnswering({ kind: "reject", actor: "ops", note: "not today" }) });
    expect(await guard(req({ env: "prod" }, ctx))).toEqual({
      allowed: false,
      message: "tool 'deploy' was not run: rejected by ops: not today",
    });
    expect(guard.decisions[0]).toMatchObject({
      tool: "mcp__engine__deploy",
      arguments: { env: "prod" },
      source: "asker",
      actor: "ops",
      reason: "not today",
    });
    expect(ctx.eventsNamed("gate.check")).toHaveLength(1);
  });

  it("timeout, expired, a throwing Asker and non-object arguments are denials with their sources", async () => {
    const never: Asker = { ask: () => new Promise(() => {}) };
    const t = approvalGuard({ asker: never, timeoutMs: 50 });
    expect(await t(req({}))).toEqual({
      allowed: false,
      message:
        "tool 'deploy' was not run: approval for 'mcp__engine__deploy' timed out: nobody answered within 0.05s; denied (a timeout, not a refusal)",
    });
    expect(t.decisions[0]).toMatchObject({ source: "timeout", asked: true, allowed: false });

    const e = approvalGuard({ asker: askerAnswering({ kind: "expired" }), timeoutMs: 60_000 });
    expect(await e(req({}))).toEqual({
      allowed: false,
      message: "tool 'deploy' was not run: approval for 'mcp__engine__deploy' expired: nobody answered before the 60s deadline",
    });

    const x = approvalGuard({ asker: { ask: async () => Promise.reject(new Error("queue down")) } });
    expect(await x(req({}))).toEqual({
      allowed: false,
      message:
        "tool 'deploy' was not run: approval for 'mcp__engine__deploy' failed: the Asker threw Error: queue down; denied (not a policy decision)",
    });
    expect(x.decisions[0]).toMatchObject({ source: "error", asked: true });

    const asker = askerAnswering({ kind: "approve" });
    const n = approvalGuard({ asker });
    expect(await n(req(["x"]))).toMatchObject({
      allowed: false,
      message: expect.stringContaining("the call's arguments must be a JSON object, got array"),
    });
    expect(asker.seen).toHaveLength(0);
    expect(n.decisions[0]).toMatchObject({ source: "error", asked: false });
  });

  it("a cancelled call abandons the pending ask", async () => {
    const ctx = makeTestCtx();
    const guard = approvalGuard({ asker: { ask: () => new Promise(() => {}) } });
    const pending = guard(req({}, ctx));
    ctx.cancel(new Error("client went away"));
    expect(await pending).toEqual({
      allowed: false,
      message: "tool 'deploy' was not run: approval for 'mcp__engine__deploy' failed: client went away; denied (not a policy decision)",
    });
  });

  it("keeps a bounded decisions log: the newest DECISIONS_KEPT; answeredBy takes a tool-use id's answer from what the server still keeps", async () => {
    const guard = approvalGuard({ asker: askerAnswering({ kind: "approve", actor: "ops" }) });
    for (let i = 0; i <= DECISIONS_KEPT; i++) await guard(req({ n: i }));
    expect(guard.decisions).toHaveLength(DECISIONS_KEPT);
    expect(guard.decisions[0]!.arguments).toEqual({ n: 1 });
    // The approval server's log is bounded the same way; the guard looks its tool-use id up there.
    // An ApprovalServer's `decisions` are its ApprovalAudit's.
    const audit = new ApprovalAudit();
    const asked = askerAnswering({ kind: "approve", actor: "here" });
    const follower = approvalGuard({ asker: asked, answeredBy: audit });
    const prompted = (id: string): GateSubject => ({ tool: "mcp__engine__deploy", arguments: { env: id }, via: "approval_server" });
    await audit.record(
      prompted("old"),
      verdictFromDecision({ kind: "approve", actor: "cli" }, { ...prompted("old"), id: "toolu_old" }, undefined),
    );
    for (let i = 0; i < DECISIONS_KEPT; i++)
      await audit.record(
        prompted(`n${i}`),
        verdictFromDecision({ kind: "approve", actor: "cli" }, { ...prompted(`n${i}`), id: `toolu_${i}` }, undefined),
      );
    expect(await follower({ ...req({ env: `n${DECISIONS_KEPT - 1}` }), toolUseId: `toolu_${DECISIONS_KEPT - 1}` })).toEqual({
      allowed: true,
    });
    expect(asked.seen).toHaveLength(0);
    // The oldest answer has left the server's log: that call is asked here.
    expect(await follower({ ...req({ env: "old" }), toolUseId: "toolu_old" })).toEqual({ allowed: true });
    expect(asked.seen).toHaveLength(1);
  });

  it("shares a decisions array and writes the JSONL sink before answering", async () => {
    const path = join(tempDir(), "guard.jsonl");
    const shared: GateRecord[] = [];
    const guard = approvalGuard({ asker: askerAnswering({ kind: "approve", actor: "ops" }), auditPath: path, decisions: shared });
    await guard(req({ env: "prod" }));
    expect(shared).toHaveLength(1);
    expect(guard.decisions).toBe(shared);
    expect(readLines(path)).toEqual(JSON.parse(JSON.stringify(shared)));
  });

  it("checks its options at once", () => {
    expect(() => approvalGuard({} as never)).toThrow(
      "approvalGuard: asker must be an Asker (an object with an ask(request) method), got undefined",
    );
    expect(() => approvalGuard({ asker: askerAnswering({ kind: "approve" }), timeoutMs: -5 })).toThrow(/^approvalGuard: timeoutMs must be/);
    // An unknown option is refused by name with the accepted ones (it used to be dropped silently: no autoAllow here).
    expect(() => approvalGuard({ asker: askerAnswering({ kind: "approve" }), autoAllow: ["Read"] } as never)).toThrow(
      "approvalGuard: unknown option 'autoAllow'. Accepted options: asker, ctx, auditPath, timeoutMs, decisions, answeredBy",
    );
    expect(() => approvalGuard({ asker: askerAnswering({ kind: "approve" }), auditPath: "" })).toThrow(
      `approvalGuard: 'auditPath' must be a file path, got string ""`,
    );
  });
});
