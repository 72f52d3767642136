/**
 * @module test/mcp-serve/served-extras.test
 * The pure pieces under the resource and progress handlers: URI template
 * matching ({var} is one segment and percent-decoded, {+var} may hold '/',
 * literals are literal), a fixed URI before a template, and the progress
 * coalescing of CallChannel (the trailing value is sent after the interval;
 * nothing after the call ended).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CallChannel, PROGRESS_MIN_INTERVAL_MS } from "../../src/mcp/serve/call-channel.js";
import { ServedExtras, templateMatcher } from "../../src/mcp/serve/served-extras.js";

describe("templateMatcher", () => {
  it("binds {var} to one decoded segment, {+var} across '/', and escapes literals", () => {
    const m = templateMatcher("test://template/{id}/data");
    expect(m("test://template/123/data")).toEqual({ id: "123" });
    expect(m("test://template/a%2Fb/data")).toEqual({ id: "a/b" });
    expect(m("test://template/1/2/data")).toBeUndefined();
    expect(m("test://templateX123/data")).toBeUndefined();
    expect(templateMatcher("file:///{+path}")("file:///src/a.ts")).toEqual({ path: "src/a.ts" });
    expect(templateMatcher("a.b://{x}")("aXb://1")).toBeUndefined();
  });

  it("a fixed URI wins over a template that also matches it", () => {
    const extras = new ServedExtras([
      { uriTemplate: "n://{id}", name: "any", read: () => "t" },
      { uri: "n://readme", name: "readme", read: () => "f" },
    ]);
    expect(extras.find("n://readme")?.served.resource.name).toBe("readme");
    expect(extras.find("n://7")).toMatchObject({ params: { id: "7" } });
  });
});

describe("CallChannel progress coalescing", () => {
  // The interval is what these tests are about: a fake clock (the channel reads Date.now and holds a setTimeout).
  beforeEach(() => void vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] }));
  afterEach(() => void vi.useRealTimers());

  function channel(token: string | undefined) {
    const sent: Array<Record<string, unknown>> = [];
    const extra = {
      mcpReq: {
        _meta: token === undefined ? undefined : { progressToken: token },
        notify: async (n: { params: Record<string, unknown> }) => void sent.push(n.params),
      },
    };
    const c = new CallChannel({ serverName: "s", logLevel: undefined, clientCapabilities: () => undefined }, extra as never);
    return { c, sent };
  }

  it("sends the first at once, the latest of a burst after the interval, and nothing once ended", async () => {
    const { c, sent } = channel("t1");
    c.progress(1, undefined, undefined);
    c.progress(2, undefined, "two");
    c.progress(3, undefined, "three");
    expect(sent).toEqual([{ progressToken: "t1", progress: 1 }]);
    await vi.advanceTimersByTimeAsync(PROGRESS_MIN_INTERVAL_MS + 1);
    expect(sent).toEqual([
      { progressToken: "t1", progress: 1 },
      { progressToken: "t1", progress: 3, message: "three" },
    ]);
    c.progress(4, undefined, undefined);
    c.progress(5, undefined, undefined);
    c.end();
    const atEnd = sent.length;
    await vi.advanceTimersByTimeAsync(PROGRESS_MIN_INTERVAL_MS + 1);
    // 4 went out at once or was pending; 5 was pending: nothing pending leaves after end().
    expect(sent.length).toBe(atEnd);
    expect(sent.map((p) => p.progress)).not.toContain(5);
  });

  it("sends nothing without a token", () => {
    const { c, sent } = channel(undefined);
    c.progress(1, 1, undefined);
    expect(sent).toEqual([]);
  });
});
