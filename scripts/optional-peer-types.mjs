#!/usr/bin/env node
/**
 * Build step: a program that installed only some of the MCP SDK's packages
 * compiles against the published declarations with `skipLibCheck: false`.
 * `arc-agentkit/mcp` (and the parts beside it) serves both directions from
 * one entry point, so its declarations name types of both
 * `@modelcontextprotocol/client` and `@modelcontextprotocol/server`; a
 * client-only user has no server package and a server-only user no client
 * package. Each declaration import from either package in dist/ gets a
 * `// @ts-ignore` line above it (tsc drops such comments from its output, so
 * the build adds them here, as Vite does for its optional peers): with the
 * package installed the import resolves as before; without it, the names it
 * brings stand for `any` in the parts the program does not use, instead of
 * TS2307. Idempotent; prints the count and exits 1 when it found none (the
 * emitted form changed and this step would silently do nothing).
 * test/build/consumer-peers.test.ts compiles one scratch project per peer
 * combination under TypeScript 5.9, 6.0 and 7.x.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = process.argv[2] ?? "dist";
/** A one-line declaration import from the MCP SDK's client or server package (the form tsc emits). */
const PEER_IMPORT = /^import\b.*\bfrom "@modelcontextprotocol\/(?:client|server)(?:\/[^"]*)?";$/;
const MARK = "// @ts-ignore optional peer: without it installed, these names are `any`";

/** Every `.d.ts` file under `dir`. */
function declarations(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? declarations(join(dir, e.name)) : e.name.endsWith(".d.ts") ? [join(dir, e.name)] : [],
  );
}

let marked = 0;
for (const file of declarations(root)) {
  const lines = readFileSync(file, "utf8").split("\n");
  const out = [];
  for (const [i, line] of lines.entries()) {
    if (PEER_IMPORT.test(line)) {
      marked++;
      if (lines[i - 1] !== MARK) out.push(MARK);
    }
    out.push(line);
  }
  if (out.length !== lines.length) writeFileSync(file, out.join("\n"));
}
console.log(`optional-peer-types: ${marked} declaration imports of @modelcontextprotocol/client or /server under ${root}`);
if (marked === 0) process.exit(1);
