/**
 * @module test/mcp-serve/result-pages.test
 * The cutting of a result over its budget, over 1,000 seeded random payloads
 * (plain text, JSON arrays and objects, NDJSON, mixed content blocks): every
 * preview is a valid document of the payload's kind and within its room, every
 * spilled answer is within the budget, and the pages `read_result` would
 * answer, joined, are the original byte for byte (each within its length, and
 * ending after a whole value whenever one fits).
 */
import { describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { RunContext } from "../../src/index.js";
import { PayloadLayout } from "../../src/mcp/serve/result-pages.js";
import { resultChars, ServedResults } from "../../src/mcp/serve/served-results.js";
import { recordOwner } from "../../src/mcp/serve/round-records.js";
import { seeded as rng } from "../helpers/seeded.js";

const ALPHABET = ["a", "b", "z", " ", "\n", '"', "\\", "é", "😀", "{", "]", ",", "\t", "0"];

function words(r: () => number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return s;
}

function value(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * (depth > 2 ? 4 : 6));
  if (k === 0) return Math.floor(r() * 1e6) - 5e5;
  if (k === 1) return words(r, Math.floor(r() * 40));
  if (k === 2) return r() < 0.5;
  if (k === 3) return null;
  if (k === 4) return Array.from({ length: Math.floor(r() * 5) }, () => value(r, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(r() * 5) }, (_, i) => [`k${i}${words(r, 3)}`, value(r, depth + 1)]));
}

type Kind = "text" | "json-array" | "json-object" | "ndjson" | "mixed";
const KINDS: Kind[] = ["text", "json-array", "json-object", "ndjson", "mixed"];

function payload(r: () => number, kind: Kind): CallToolResult {
  const n = 1 + Math.floor(r() * 400);
  const indent = r() < 0.3 ? 2 : undefined;
  switch (kind) {
    case "text":
      return { content: [{ type: "text", text: words(r, Math.floor(r() * 30_000)) }] };
    case "json-array":
      return {
        content: [
          {
            type: "text",
            text: JSON.stringify(
              Array.from({ length: n }, () => value(r)),
              null,
              indent,
            ),
          },
        ],
      };
    case "json-object":
      return {
        content: [
          {
            type: "text",
            text: JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`key${i}`, value(r)])), null, indent),
          },
        ],
      };
    case "ndjson":
      return {
        content: [
          {
            type: "text",
            text: Array.from({ length: n }, () => JSON.stringify(value(r))).join(r() < 0.5 ? "\n" : "\r\n") + (r() < 0.5 ? "\n" : ""),
          },
        ],
      };
    case "mixed": {
      const content: CallToolResult["content"] = [];
      for (let i = 0, m = 1 + Math.floor(r() * 5); i < m; i++) {
        const c = r();
        if (c < 0.5) content.push({ type: "text", text: words(r, Math.floor(r() * 8_000)) });
        else if (c < 0.8) content.push({ type: "image", data: "aGVsbG8=", mimeType: "image/png" });
        else content.push({ type: "audio", data: "aGVsbG8=", mimeType: "audio/wav" });
      }
      return { content, structuredContent: { n: content.length } };
    }
  }
}

/** True when `preview` is a valid document of the layout's kind and a faithful prefix of it. */
function validPreview(layout: PayloadLayout, preview: string): boolean {
  if (preview === "") return true;
  if (layout.shape === "json") {
    JSON.parse(preview);
    return true;
  }
  if (layout.shape === "ndjson") {
    for (const line of preview.split("\n")) if (line.trim() !== "") JSON.parse(line);
    return layout.text.startsWith(preview);
  }
  return layout.text.startsWith(preview);
}

describe("results over their budget, 1,000 seeded payloads", () => {
  it("every preview valid and within its room, every answer within budget, the pages joined byte-identical", async () => {
    const results = new ServedResults("prop");
    const ctx = new RunContext();
    const owner = recordOwner("prop", ctx.caller);
    let spilled = 0;
    for (let seed = 1; seed <= 1_000; seed++) {
      const r = rng(seed);
      const kind = KINDS[seed % KINDS.length]!;
      const result = payload(r, kind);
      const budget = 600 + Math.floor(r() * 10_000);
      const where = `seed ${seed} (${kind}, budget ${budget})`;
      if (!results.over(result, budget)) continue;
      spilled++;
      const answer = await results.spill(result, budget, owner, "t");
      expect(resultChars(answer), where).toBeLessThanOrEqual(budget);
      expect(answer.structuredContent, where).toEqual(result.structuredContent);
      const link = answer.content.find((b) => b.type === "resource_link") as { uri: string };
      const id = link.uri.slice("agentkit://results/".length);
      const stored = await results.find(id, ctx, "test");
      const original = result.content
        .filter((b) => b.type === "text")
        .map((b) => (b as { text: string }).text)
        .join("\n");
      expect(stored.text === original, where).toBe(true);
      const layout = new PayloadLayout(stored.text);
      const second = answer.content[1] as { type: string; text?: string } | undefined;
      const preview = second?.type === "text" && second.text!.startsWith("[Result of") ? (answer.content[0] as { text: string }).text : "";
      expect(validPreview(layout, preview), where).toBe(true);
      // Page through it with a random length, as read_result does.
      const length = 1 + Math.floor(r() * 6_000);
      let offset = 0;
      let joined = "";
      for (let guard = 0; guard < 100_000; guard++) {
        const page = layout.page(offset, length);
        expect(page.offset, where).toBe(offset);
        expect(page.text.length, where).toBeLessThanOrEqual(Math.max(length, 2));
        joined += page.text;
        if (page.nextOffset === null) break;
        expect(page.nextOffset, where).toBeGreaterThan(offset);
        offset = page.nextOffset;
      }
      expect(joined === original, where).toBe(true);
    }
    // The generator makes most payloads spill: the property is exercised, not vacuous.
    expect(spilled).toBeGreaterThan(600);
  });

  it("a JSON array is cut after whole members: the preview closes the array, a page ends after a member's comma", () => {
    const text = JSON.stringify(Array.from({ length: 10 }, (_, i) => ({ id: i, name: `item-${i}` })));
    const layout = new PayloadLayout(text);
    expect(layout.shape).toBe("json");
    const preview = layout.preview(100);
    expect(JSON.parse(preview.text)).toEqual([
      { id: 0, name: "item-0" },
      { id: 1, name: "item-1" },
      { id: 2, name: "item-2" },
    ]);
    expect(text.slice(preview.next).startsWith('{"id":3')).toBe(true);
    const page = layout.page(preview.next, 60);
    expect(page.text).toBe('{"id":3,"name":"item-3"},{"id":4,"name":"item-4"},');
    expect(layout.preview(1).text).toBe("");
    expect(layout.preview(2).text).toBe("[]");
  });

  it("NDJSON is cut between lines; text anywhere but inside a surrogate pair", () => {
    const nd = new PayloadLayout('{"a":1}\n{"a":2}\n{"a":3}\n');
    expect(nd.shape).toBe("ndjson");
    expect(nd.preview(17).text).toBe('{"a":1}\n{"a":2}\n');
    expect(nd.page(8, 10).text).toBe('{"a":2}\n');
    const t = new PayloadLayout("ab😀cd");
    expect(t.shape).toBe("text");
    expect(t.preview(3).text).toBe("ab");
    expect(t.page(2, 1).text).toBe("😀");
  });
});
