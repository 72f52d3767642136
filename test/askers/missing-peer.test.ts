/**
 * @module test/askers/missing-peer.test
 * Without the prompt library: the built `askers` entry still imports, and the
 * check a `TerminalAsker` runs at construction throws MissingPeerError with the
 * install line. The built files are copied to a directory with no
 * node_modules above it, so `@inquirer/*` cannot resolve. Needs `npm run build`.
 */
import { expect, it } from "vitest";
import { runInBareDist } from "../helpers/bare-dist.js";

it("arc-agentkit/askers imports without @inquirer/*, and the construction check names the install line", () => {
  // The whole build, and no node_modules: neither the prompt library nor express (the inbox's listener) is there.
  const script = `
    const askers = await import("./dist/askers/index.js");
    const { checkPromptLibrary } = await import("./dist/askers/prompt-library.js");
    try { checkPromptLibrary(); console.log("NO THROW"); }
    catch (e) { console.log(JSON.stringify({ exports: Object.keys(askers).sort(), name: e.name, code: e.code, peer: e.peer, installLine: e.installLine, message: e.message })); }`;
  const run = runInBareDist("akt-askers-nopeer-", script);
  expect(run.stderr).toBe("");
  const out = JSON.parse(run.stdout);
  expect(out).toMatchObject({
    name: "MissingPeerError",
    code: "missing_peer",
    peer: "@inquirer/core",
    installLine: "npm install @inquirer/core @inquirer/prompts",
  });
  expect(out.exports).toEqual([
    "ApprovalInbox",
    "MEMORY_PENDING_LIMIT",
    "MemoryInboxStore",
    "TerminalAsker",
    "inboxAsker",
    "migrateInboxStore",
    "pgliteInboxStore",
    "postgresInboxStore",
  ]);
  expect(out.message).toContain("Install them with: npm install @inquirer/core @inquirer/prompts");
});

it("without pg: the askers entry imports, and postgresInboxStore() throws MissingPeerError naming the install line", () => {
  const script = `
    const { postgresInboxStore } = await import("./dist/askers/index.js");
    try { postgresInboxStore({ connectionString: "postgres://someone@127.0.0.1:5432/db" }); console.log("NO THROW"); }
    catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, peer: e.peer, installLine: e.installLine, message: e.message })); }`;
  const run = runInBareDist("akt-askers-nopg-", script);
  expect(run.stderr).toBe("");
  expect(JSON.parse(run.stdout)).toMatchObject({
    name: "MissingPeerError",
    code: "missing_peer",
    peer: "pg",
    installLine: "npm install pg@8.23.1",
  });
});
