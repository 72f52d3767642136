/**
 * @module test/helpers/one-helper.test
 * One helper per harness idea: the scripted Asker (`askerAnswering`, in
 * `helpers/asker.ts`) and the SDK v2 HTTP client (`v2Client`, in
 * `helpers/v2-client.ts`) are written once, under `test/helpers/`. A test file
 * that writes its own copy again fails here, naming the file and the line.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const TEST = fileURLToPath(new URL("..", import.meta.url));

/** Every .ts file under test/, outside test/helpers/ and test/fixtures/. */
function testSources(dir = TEST): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return ["helpers", "fixtures", "node_modules"].includes(e.name) && dir === TEST ? [] : testSources(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** `file:line: text` for each line of a test source matching `pattern`. */
function copiesOf(pattern: RegExp): string[] {
  return testSources().flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) => (pattern.test(line) ? [`${relative(TEST, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe("one helper per harness idea", () => {
  it.each([
    ["the scripted Asker (helpers/asker.ts)", /\b(function|const|let)\s+askerAnswering\w*\b/],
    [
      "the SDK v2 HTTP client (helpers/v2-client.ts)",
      /\b(function|const|let)\s+v2Client\b|new\s+V2Http\(|\bStreamableHTTPClientTransport\b.*"@modelcontextprotocol\/client"/,
    ],
  ])("%s is written once, under test/helpers/", (_idea, pattern) => {
    expect(copiesOf(pattern)).toEqual([]);
  });
});
