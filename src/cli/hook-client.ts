/**
 * @module cli/hook-client
 * The program the Claude CLI runs as its `PreToolUse` hook (`hookSettings`
 * points the command at this file, compiled: `node <dist>/cli/hook-client.js
 * <url> <token variable> <limit ms>`). It reads the hook JSON on stdin, POSTs
 * it to the listener with the token from the variable its second argument
 * names, and prints the listener's answer. It fails closed: an unreachable
 * listener, a refusal, a missing token or no answer within its limit all
 * print a deny. It imports nothing of the package: it starts in a few ms.
 */
import { request } from "node:http";

/** Print a deny the CLI obeys, naming why, and end. */
function deny(why: string): never {
  process.stdout.write(
    JSON.stringify({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: `agentkit hook: ${why}` },
    }),
  );
  process.exit(0);
}

/** POST `input` to `url` with `token`; print the answer, or deny. */
function post(url: string, token: string, limitMs: number, input: string): void {
  const req = request(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` } }, (res) => {
    let body = "";
    res.setEncoding("utf8");
    res.on("data", (d: string) => (body += d));
    res.on("end", () => {
      if (res.statusCode !== 200) deny(`the listener answered HTTP ${res.statusCode}: ${body.slice(0, 300)}`);
      try {
        JSON.parse(body);
      } catch {
        deny("the listener answered with something that is not JSON");
      }
      process.stdout.write(body);
      process.exit(0);
    });
  });
  if (limitMs > 0) req.setTimeout(limitMs, () => req.destroy(new Error(`no answer within ${limitMs} ms`)));
  req.on("error", (e) => deny(`could not reach the listener at ${url}: ${e.message}`));
  req.end(input);
}

const [url = "", tokenVar = "", limit = "0"] = process.argv.slice(2);
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d: string) => (input += d));
process.stdin.on("end", () => {
  const token = process.env[tokenVar];
  if (!token) deny(`the token variable ${tokenVar} is not set in the environment of the CLI`);
  post(url, token, Number(limit), input);
});
