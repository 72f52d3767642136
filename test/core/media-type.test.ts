/**
 * @module test/core/media-type
 * The Content-Type check both HTTP endpoints share (the MCP transport and the
 * inbox's answer route): the media type, not a substring of the header.
 */
import { describe, expect, it } from "vitest";
import { isJsonContentType, mediaTypeOf } from "../../src/wire/media-type.js";

describe("mediaTypeOf / isJsonContentType", () => {
  it.each([
    ["application/json", "application/json", true],
    ["Application/JSON; charset=utf-8", "application/json", true],
    ["application/json;", "application/json", true],
    ["  application/json ; charset=", "application/json", true],
    ["text/plain; a=application/json", "text/plain", false],
    ["application/json-patch+json", "application/json-patch+json", false],
    ["application/json, text/plain", undefined, false],
    ["application/json; charset=utf-8, text/plain", undefined, false],
    ["", undefined, false],
    [undefined, undefined, false],
  ])("%j has media type %j (JSON: %s)", (header, type, json) => {
    expect(mediaTypeOf(header)).toBe(type);
    expect(isJsonContentType(header)).toBe(json);
  });
});
