/**
 * @module askers/inbox/inbox-script
 * The page's inline style, and the text of its two browser scripts: the
 * login page's (page/login.ts: the code in the URL fragment for a session,
 * its key kept in `sessionStorage`, per origin) and the inbox page's
 * (page/inbox.ts: the live stream, the answers, the single keys). Those are
 * real TypeScript files checked against the DOM (page/tsconfig.json, part of
 * `npm run build` and `npm run typecheck`) and compiled to plain scripts; the
 * page inlines them (the Content-Security-Policy allows only nonce'd inline
 * scripts). What the server decides reaches them as data on `<body>`, never
 * as code.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The page's browser scripts, by name (page/<name>.ts, compiled to page/<name>.js). */
export type PageScriptName = "login" | "inbox";

const scripts = new Map<PageScriptName, string>();

/**
 * The compiled text of a page script, read once per process: beside this
 * module (the built package, `dist/askers/inbox/page/<name>.js`), else the
 * build's copy when this module runs from its sources (tests).
 *
 * @throws Error when neither file exists (the package is not built: run `npm run build`).
 */
export function pageScript(name: PageScriptName): string {
  const cached = scripts.get(name);
  if (cached !== undefined) return cached;
  const beside = fileURLToPath(new URL(`./page/${name}.js`, import.meta.url));
  const built = fileURLToPath(new URL(`../../../dist/askers/inbox/page/${name}.js`, import.meta.url));
  const path = existsSync(beside) ? beside : existsSync(built) ? built : undefined;
  if (path === undefined)
    throw new Error(`the inbox page's ${name} script is not built: neither ${beside} nor ${built} exists — run npm run build`);
  const text = readFileSync(path, "utf8");
  scripts.set(name, text);
  return text;
}

/** The inline style. Focus is always visible; nothing depends on colour alone. */
export const INBOX_STYLE = `
body{font:16px/1.45 system-ui,sans-serif;margin:0 auto;max-width:70rem;padding:1rem 1.5rem;color:#1b1b1b;background:#fafafa}
h1{margin:.2rem 0}h2{margin-top:1.5rem}h3{margin:.1rem 0 .3rem;font-family:ui-monospace,monospace}
.question{background:#fff;border:1px solid #bbb;border-left:6px solid #1f5fbf;border-radius:6px;padding:.6rem 1rem;margin:.8rem 0}
.question.closed{border-left-color:#888;background:#f1f1f1}
.question.closed .actions button{opacity:.6}
.meta{margin:.2rem 0;color:#333}h3 code.qualified{font-size:.8em;font-weight:400;color:#555}.ask{margin:.2rem 0;color:#444;white-space:pre-wrap;overflow-wrap:anywhere}
h3,.link-url code,dl.fields{overflow-wrap:anywhere}dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.4rem 0}dl.fields dt{font-weight:600}dl.fields dd{margin:0}
pre.args{background:#f4f6f8;border:1px solid #d6dbe0;padding:.5rem;overflow:auto;max-height:20rem;margin:.4rem 0}
.actions{display:flex;gap:.5rem;margin:.4rem 0}
button{font:inherit;padding:.3rem .9rem;border-radius:4px;border:1px solid #555;background:#fff;cursor:pointer}
button[data-act=approve]{background:#1d6b2f;color:#fff;border-color:#1d6b2f}
button[data-act=reject]{background:#a4262c;color:#fff;border-color:#a4262c}
:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
form{margin:.4rem 0;display:flex;flex-direction:column;gap:.3rem;max-width:40rem}
[hidden]{display:none !important}
textarea{font:14px/1.4 ui-monospace,monospace}
.error{color:#a4262c;font-weight:600;margin:0}.error:empty{display:none}
.outcome{font-weight:600;margin:.2rem 0}.outcome:empty{display:none}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
tr.denied td:nth-child(2){color:#a4262c;font-weight:600}tr.allowed td:nth-child(2){color:#1d6b2f;font-weight:600}
.connection{color:#555;margin:.2rem 0}.empty{color:#555}
.logged-out{background:#fff4e5;border:1px solid #a15c00;border-radius:6px;padding:.6rem 1rem}
td.args code{font-size:13px}td.args pre{margin:.3rem 0;max-height:16rem;overflow:auto}
.tool-facts{margin:.2rem 0}.description{margin:.2rem 0;white-space:pre-wrap;overflow-wrap:anywhere;max-height:8rem;overflow:auto;color:#333}
ul.facts{display:flex;flex-wrap:wrap;gap:.3rem;list-style:none;padding:0;margin:.3rem 0}ul.facts li{border:1px solid #888;border-radius:999px;padding:0 .6rem;font-size:14px;background:#fff;overflow-wrap:anywhere}
pre.diff,pre.command-line{background:#f4f6f8;border:1px solid #d6dbe0;padding:.5rem;overflow:auto;max-height:24rem;margin:.3rem 0}
pre.diff del{background:#ffebe9;color:#82071e;text-decoration:none}pre.diff ins{background:#dafbe1;color:#116329;text-decoration:none}pre.diff .more{color:#444;font-style:italic}pre.diff .hunk{color:#0a3069;font-weight:600}
.view-head{margin:.2rem 0;color:#333;overflow-wrap:anywhere}
details summary{cursor:pointer}details.call-details dl{margin:.3rem 0;display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem}details.call-details dt{font-weight:600}details.call-details dd{margin:0;overflow-wrap:anywhere}
.keys{color:#333;margin:.2rem 0;font-size:14px}kbd{border:1px solid #777;border-bottom-width:2px;border-radius:3px;padding:0 .3rem;font:13px ui-monospace,monospace;background:#fff}
article.question:focus{outline:3px solid #f0a500;outline-offset:2px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;
