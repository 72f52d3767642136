/**
 * @module test/helpers/one-helper.test
 * One helper per harness idea: the scripted Asker (`askerAnswering`, in
 * `helpers/asker.ts`) and the SDK v2 HTTP client (`v2Client`, in
 * `helpers/v2-client.ts`) are written once, under `test/helpers/`. A test file
 * that writes its own copy again fails here, naming the file and the line.
 *
 * Waiting, too: the one polling loop is `until`/`untilValue`
 * (`helpers/wait.ts`). A polling helper (`waitFor…`, `poll…`, `eventually…`,
 * `until…`) written outside `test/helpers/` that does not go through them
 * fails here, and so does a fixed sleep above the ceiling: the sleeps left are
 * the ones that prove something does not happen within a window (a named
 * constant), and time spent in another process or a tool body (a fixture
 * server's, a real CLI's own pace). The ceiling only goes down.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const TEST = fileURLToPath(new URL("..", import.meta.url));

/** Every .ts file under test/, outside the top-level folders `skip` (test/helpers/ and test/fixtures/ unless told). */
function testSources(skip = ["helpers", "fixtures", "node_modules"], dir = TEST): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return skip.includes(e.name) && dir === TEST ? [] : testSources(skip, path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** `file:line: text` for each line of a test source matching `pattern`. */
function copiesOf(pattern: RegExp, sources = testSources()): string[] {
  return sources.flatMap((file) =>
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

/**
 * A fixed sleep: a promise on a timer (`setTimeout(r, …)`), or a call of a
 * `sleep`/`delay` function. A line that says `// on the fake clock` is a
 * test's own fake time, not a wait.
 */
const FIXED_SLEEP = /^(?!.*\/\/ on the fake clock).*(setTimeout\((r|res|resolve)\b|\bsleep\(|\bdelay\()/;

/** The fixed sleeps left in test/ outside test/helpers/ (fixture servers included): only goes down. */
const SLEEP_CEILING = 32;

/** A polling helper's definition: a function named for waiting. */
const POLLING_HELPER =
  /\basync\s+function\s+(waitFor|poll|eventually|until)\w*\s*[(<]|\b(const|let)\s+(waitFor|poll|eventually|until)\w*\s*=\s*async\b/;

/** `file:line: text` of each polling helper outside test/helpers/ with a loop or a timer of its own (one that waits through `until`/`untilValue` has neither). */
function ownPollingLoops(): string[] {
  return testSources(["helpers", "node_modules"]).flatMap((file) => {
    const lines = readFileSync(file, "utf8").split("\n");
    return lines.flatMap((line, i) => {
      if (!POLLING_HELPER.test(line)) return [];
      const end = lines.findIndex((l, j) => j > i && /^(\s*)\}/.test(l) && l.search(/\S/) <= line.search(/\S/));
      const body = lines.slice(i, end < 0 ? undefined : end + 1).join("\n");
      return /\b(for|while)\s*\(|\bsetTimeout\b|\bsetImmediate\b/.test(body) ? [`${relative(TEST, file)}:${i + 1}: ${line.trim()}`] : [];
    });
  });
}

describe("one way to wait (helpers/wait.ts)", () => {
  it(`no more than ${SLEEP_CEILING} fixed sleeps outside test/helpers/, and the ceiling is what is left`, () => {
    const sleeps = copiesOf(FIXED_SLEEP, testSources(["helpers", "node_modules"]));
    expect(
      sleeps.length <= SLEEP_CEILING,
      `${sleeps.length} fixed sleeps, above the ceiling of ${SLEEP_CEILING}: wait with until()/untilValue() from test/helpers/wait.ts, or a fake clock where time is what the test is about:\n${sleeps.join("\n")}`,
    ).toBe(true);
    expect(sleeps.length, `fewer fixed sleeps than the ceiling: lower SLEEP_CEILING to ${sleeps.length}`).toBe(SLEEP_CEILING);
  });

  it("no polling helper outside test/helpers/ that loops on its own (waitFor…, poll…, eventually…, until… go through until/untilValue)", () => {
    expect(ownPollingLoops()).toEqual([]);
  });
});
