/**
 * @module test/file-hygiene.setup
 * Vitest setup file (vitest.config.ts `setupFiles`), run before each test
 * file: (a) every `process.on("warning")` event is collected, and the file
 * fails in `afterAll` if one was emitted that the file did not expect (see
 * `expectWarnings()` in test/helpers/hygiene.ts); (b) the worker's own LISTEN
 * sockets are recorded now, and the file fails in `afterAll` if a new one is
 * still open (a server a test forgot to close). This file's `afterAll` is
 * registered first, so with vitest's stacked hook order it runs after the
 * test file's own hooks.
 */
import { afterAll } from "vitest";
import { hygieneState, ownListenSockets, resetHygiene, unexpectedWarnings } from "./helpers/hygiene.js";
import { until } from "./helpers/wait.js";

resetHygiene();
const collectWarning = (w: Error): void => void hygieneState().warnings.push(w);
process.on("warning", collectWarning);
const before = new Set(ownListenSockets().map((s) => s.inode));

afterAll(async () => {
  // A warning is emitted on process.nextTick; let any raised by the last hook arrive.
  await new Promise((r) => setImmediate(r));
  process.off("warning", collectWarning);
  const problems = unexpectedWarnings().map(
    (w) => `unexpected process warning: ${w} (a file that means to cause it calls expectWarnings() from test/helpers/hygiene.ts)`,
  );
  // A close() already in flight gets a moment (1 s, scaled); a forgotten server does not go away.
  const opened = (): ReturnType<typeof ownListenSockets> => ownListenSockets().filter((s) => !before.has(s.inode));
  await until(() => opened().length === 0, "the file's listening sockets to close", 1000).catch(() => {});
  const left = opened();
  problems.push(...left.map((s) => `listening socket left open on ${s.address} (inode ${s.inode}): close the server the test started`));
  if (problems.length) {
    throw new Error(`test file hygiene check failed:\n  ${problems.join("\n  ")}`);
  }
});
