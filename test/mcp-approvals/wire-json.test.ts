/**
 * @module test/mcp-approvals/wire-json.test
 * The approval answers' JSON spelling (Python separators), never throwing.
 */
import { describe, expect, it } from "vitest";
import { wireJson } from "../../src/mcp/approvals/wire-json.js";

describe("wireJson", () => {
  it("spells JSON as the seed prints it", () => {
    expect(wireJson({ behavior: "allow", updatedInput: { file_path: "/etc/passwd", n: [1, null, true] } })).toBe(
      '{"behavior": "allow", "updatedInput": {"file_path": "/etc/passwd", "n": [1, null, true]}}',
    );
    expect(JSON.parse(wireJson({ a: 'q"\n\u00e9', b: undefined, c: [undefined] }))).toEqual({ a: 'q"\n\u00e9', c: [null] });
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(wireJson(cyc)).toBe('{"self": null}');
    expect(wireJson({ n: 10n })).toBe('{"n": null}');
  });
});
