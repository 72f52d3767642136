/**
 * @module test/mcp-client/session-state.test
 * The session state machine of `MCPClient` as a table: every (state, event)
 * pair and the state and effect it gives. The behaviour tests (stdio-client,
 * session-loss, process-tree, leader-exit) show the client following it.
 */
import { describe, expect, it } from "vitest";
import { isUsable, nextSession, type SessionEffect, type SessionEvent, type SessionState } from "../../src/mcp/client/session-state.js";

const STATES: readonly SessionState[] = ["open", "renewing", "lost", "closing", "closed"];
const EVENTS: readonly SessionEvent[] = ["peer-closed", "renew", "renewed", "renew-failed", "close", "closed"];

/** state -> event -> [next state, effect]; "=" keeps the state with no effect. */
const EXPECTED: Record<SessionState, Record<SessionEvent, readonly [SessionState, SessionEffect] | "=">> = {
  open: {
    "peer-closed": ["lost", "drop-caches"],
    renew: ["renewing", "none"],
    renewed: "=",
    "renew-failed": "=",
    close: ["closing", "teardown"],
    closed: "=",
  },
  renewing: {
    "peer-closed": "=",
    renew: "=",
    renewed: ["open", "drop-caches"],
    "renew-failed": ["lost", "none"],
    close: ["closing", "teardown"],
    closed: "=",
  },
  lost: { "peer-closed": "=", renew: ["renewing", "none"], renewed: "=", "renew-failed": "=", close: ["closing", "teardown"], closed: "=" },
  closing: { "peer-closed": "=", renew: "=", renewed: "=", "renew-failed": "=", close: "=", closed: ["closed", "none"] },
  closed: { "peer-closed": "=", renew: "=", renewed: "=", "renew-failed": "=", close: "=", closed: "=" },
};

const rows = STATES.flatMap((state) => EVENTS.map((event) => [state, event, EXPECTED[state][event]] as const));

describe("MCPClient session: state x event -> state + effect", () => {
  it.each(rows)("%s + %s", (state, event, expected) => {
    const [next, effect] = expected === "=" ? [state, "none" as const] : expected;
    expect(nextSession(state, event)).toEqual({ state: next, effect });
  });

  it("one renew path: a respawn (from lost) and a re-initialization (from open) both pass through renewing and end open with fresh caches", () => {
    for (const start of ["lost", "open"] as const) {
      const renewing = nextSession(start, "renew");
      expect(renewing.state).toBe("renewing");
      expect(nextSession(renewing.state, "renewed")).toEqual({ state: "open", effect: "drop-caches" });
    }
  });

  it("nothing revives a client once close() was called", () => {
    for (const from of ["closing", "closed"] as const) {
      for (const event of EVENTS) expect(isUsable(nextSession(from, event).state)).toBe(false);
    }
    expect(STATES.filter(isUsable)).toEqual(["open", "renewing", "lost"]);
  });
});
