/**
 * @module test/mcp-di/tsx-metadata.test
 * Decorated code run under tsx (esbuild emits no `design:paramtypes`), as a
 * new user runs TypeScript: the missing metadata is named when `@Tool` is
 * applied and when bootstrap scans a provider — not deep inside tsyringe as
 * `TypeInfo not known for "RunCheck"` — and `@inject(Token)` on each
 * parameter is the fix that works there.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURE = fileURLToPath(new URL("../fixtures/tsx/no-decorator-metadata.ts", import.meta.url));
// tsx's loader from this package's node_modules (a pinned devDependency), handed to node directly.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const exec = promisify(execFile);

async function underTsx(which: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ["--import", TSX, FIXTURE, which], {
      cwd: ROOT,
      timeout: 80_000,
      // tsx's file cache would be a directory in tmp that outlives the test.
      env: { ...process.env, TSX_DISABLE_CACHE: "1" },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout: string; stderr: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout, stderr: e.stderr };
  }
}

const WHY = "the build does not emit decorator metadata (tsx and esbuild never do, nor does vitest on vite 7)";
const FIXES =
  'Fix one of: build with tsc ("experimentalDecorators" and "emitDecoratorMetadata" on); run tests with vitest 4.1 on vite 8; use SWC with decorator metadata (jsc.transform.decoratorMetadata); or put @inject(Token) on each constructor parameter.';

describe("under tsx (no decorator metadata)", { timeout: 90_000 }, () => {
  it("a @Tool class with a constructor dependency is refused when decorated, naming the class, the count, why and the fixes", async () => {
    const run = await underTsx("tool");
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain("decorated");
    expect(run.stderr).not.toContain("TypeInfo not known");
    expect(run.stderr).toContain(
      `DefinitionError: @Tool on RunCheck: its constructor takes 1 parameter(s), but the class carries no design:paramtypes metadata and none of them has @inject(Token), so the container cannot know what to pass. Why: ${WHY}. ${FIXES}`,
    );
  });

  it("@inject(Token) on each parameter works there (parameter decorators run before the class decorator)", async () => {
    expect(await underTsx("injected")).toMatchObject({ code: 0, stdout: "lint:ok\n" });
  });

  it("a module provider with a constructor dependency is refused by bootstrap with a BootstrapError", async () => {
    const run = await underTsx("provider");
    expect(run.stdout).not.toContain("booted");
    expect(run.stderr.trim()).toBe(
      `BootstrapError bootstrap: bootstrap(ReportsModule): cannot build provider Reports: its constructor takes 1 parameter(s), but the class carries no design:paramtypes metadata and none of them has @inject(Token), so the container cannot know what to pass. Why: the class has no decorator (add @injectable() from tsyringe; TypeScript writes the metadata only for decorated classes), or ${WHY}. ${FIXES}`,
    );
  });
});
