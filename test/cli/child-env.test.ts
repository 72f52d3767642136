/**
 * @module test/cli/child-env.test
 * `childEnv()` (src/cli/cli-process.ts), the environment a CLI child gets:
 * by default `process.env` with the overlay on top; an `undefined` value
 * removes a variable; `inheritEnv: false` starts from the overlay alone.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { childEnv } from "../../src/cli/cli-process.js";

const PARENT = "AGENTKIT_CHILDENV_PARENT";
const OVERRIDDEN = "AGENTKIT_CHILDENV_OVERRIDDEN";
const ADDED = "AGENTKIT_CHILDENV_ADDED";

/** process.env without its undefined entries, as a plain object. */
function parentEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}

beforeEach(() => {
  process.env[PARENT] = "from-parent";
  process.env[OVERRIDDEN] = "parent-value";
});
afterEach(() => {
  delete process.env[PARENT];
  delete process.env[OVERRIDDEN];
});

describe("childEnv", () => {
  it("by default: every parent variable, with the overlay laid on top", () => {
    const env = childEnv({ [OVERRIDDEN]: "overlay-value", [ADDED]: "added" });
    expect(env).toEqual({ ...parentEnv(), [OVERRIDDEN]: "overlay-value", [ADDED]: "added" });
    expect(env[PARENT]).toBe("from-parent");
    expect(env.PATH).toBe(process.env.PATH);
    // A copy: the parent is untouched, and editing the result does not reach it.
    expect(process.env[OVERRIDDEN]).toBe("parent-value");
    expect(process.env[ADDED]).toBeUndefined();
    env[PARENT] = "edited";
    expect(process.env[PARENT]).toBe("from-parent");
  });

  it("no overlay: the parent's environment as it is", () => {
    expect(childEnv(undefined)).toEqual(parentEnv());
    expect(childEnv({})).toEqual(parentEnv());
  });

  it("an undefined value unsets the variable (inherited or not)", () => {
    const env = childEnv({ [PARENT]: undefined, [ADDED]: undefined, [OVERRIDDEN]: "kept" });
    expect(PARENT in env).toBe(false);
    expect(ADDED in env).toBe(false);
    expect(env[OVERRIDDEN]).toBe("kept");
    const { [PARENT]: _gone, ...rest } = parentEnv();
    expect(env).toEqual({ ...rest, [OVERRIDDEN]: "kept" });
  });

  it("inheritEnv false: the overlay alone, undefined values dropped", () => {
    expect(childEnv({ [ADDED]: "only", [PARENT]: undefined }, false)).toEqual({ [ADDED]: "only" });
    expect(childEnv(undefined, false)).toEqual({});
  });
});
