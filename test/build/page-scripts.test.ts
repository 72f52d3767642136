/**
 * @module test/build/page-scripts.test
 * The inbox page's browser scripts (src/askers/inbox/page) are real,
 * type-checked files: their tsconfig (the DOM lib) passes on them, a type
 * error planted in a copy fails it, `npm run typecheck` and `npm run build`
 * run it, the Node-typed tsconfigs leave them out, ESLint lints them with
 * browser globals and type information, and the build emits plain scripts
 * (no module syntax) that inbox-html inlines.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { copyFile, mkdtemp, rm, writeFile, appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";
import { buildIfMissing } from "../helpers/build-if-missing.js";
import { loginPageHtml, pageHtml } from "../../src/askers/inbox/inbox-html.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAGE = join(ROOT, "src/askers/inbox/page");
const PAGE_TSCONFIG = "src/askers/inbox/page/tsconfig.json";
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const SCRIPTS = ["login", "inbox"] as const;

/** Run tsc with `args` (directly, not through npx): its exit code and output. */
function tsc(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSC, ...args], { cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

beforeAll(() => buildIfMissing(ROOT, SCRIPTS.map((s) => `dist/askers/inbox/page/${s}.js`)), 300_000);

describe("the inbox page's scripts", () => {
  it("their tsconfig (DOM lib) passes on them; a DOM type error planted in a copy fails it", async () => {
    expect(await tsc(["-p", PAGE_TSCONFIG, "--noEmit"])).toEqual({ code: 0, out: "" });
    const dir = await mkdtemp(join(tmpdir(), "agentkit-page-scripts-"));
    try {
      for (const s of SCRIPTS) await copyFile(join(PAGE, `${s}.ts`), join(dir, `${s}.ts`));
      // Read a property an HTMLElement does not have (and that may be null): JavaScript would run it, tsc must not pass it.
      await appendFile(join(dir, "inbox.ts"), '\n(() => { const planted: string = document.getElementById("actor").value; void planted; })();\n');
      await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ extends: join(PAGE, "tsconfig.json"), compilerOptions: { noEmit: true, rootDir: "." }, include: ["*.ts"] }));
      const planted = await tsc(["-p", join(dir, "tsconfig.json")]);
      expect(planted.code).not.toBe(0);
      expect(planted.out).toMatch(/inbox\.ts\(\d+,\d+\): error TS2531: Object is possibly 'null'/);
      expect(planted.out).toMatch(/error TS2339: Property 'value' does not exist on type 'HTMLElement'/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("npm run typecheck and npm run build run their tsconfig; the Node-typed tsconfigs leave them out", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.typecheck).toContain(`tsc -p ${PAGE_TSCONFIG} --noEmit`);
    expect(pkg.scripts.build).toContain(`tsc -p ${PAGE_TSCONFIG}`);
    for (const config of ["tsconfig.json", "tsconfig.build.json"]) {
      const { exclude } = JSON.parse(readFileSync(join(ROOT, config), "utf8")) as { exclude?: string[] };
      expect(exclude, config).toContain("src/askers/inbox/page");
    }
  });

  it("ESLint lints them with browser globals and type information, and passes", async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const config = (await eslint.calculateConfigForFile(join(PAGE, "inbox.ts"))) as { languageOptions: { globals: Record<string, string> } };
    expect(config.languageOptions.globals).toMatchObject({ document: "readonly", sessionStorage: "readonly", Notification: "readonly", process: "off" });
    const results = await eslint.lintFiles(SCRIPTS.map((s) => join(PAGE, `${s}.ts`)));
    expect(results.map((r) => r.messages.map((m) => `${r.filePath}:${m.line} ${m.ruleId} ${m.message}`)).flat()).toEqual([]);
    expect(results).toHaveLength(2);
  }, 120_000);

  it("the build emits plain scripts (one IIFE, no module syntax), and the pages inline exactly that text with the server's values as data", () => {
    for (const s of SCRIPTS) {
      const text = readFileSync(join(ROOT, `dist/askers/inbox/page/${s}.js`), "utf8");
      expect(text, s).not.toMatch(/^\s*(import|export)\b/m);
      expect(text, s).toMatch(/^\(\(\) => \{$/m);
      expect(text, s).not.toContain("sourceMappingURL");
    }
    const page = pageHtml({ nonce: "n0nce", base: "/inbox" });
    expect(page).toContain(`<script nonce="n0nce">${readFileSync(join(ROOT, "dist/askers/inbox/page/inbox.js"), "utf8")}</script>`);
    expect(page).toMatch(/<body data-base="\/inbox" data-key-name="agentkit-inbox-key:\/inbox" data-title="agentkit inbox" data-keys="\{&quot;[^"]+\}">/);
    const login = loginPageHtml("n0nce", "/a&b");
    expect(login).toContain(`<script nonce="n0nce">${readFileSync(join(ROOT, "dist/askers/inbox/page/login.js"), "utf8")}</script>`);
    expect(login).toContain('data-key-name="agentkit-inbox-key:/a&amp;b"');
  });
});
