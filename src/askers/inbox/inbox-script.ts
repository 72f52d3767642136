/**
 * @module askers/inbox/inbox-script
 * The page's small inline scripts and style (no build step). The login
 * script turns the code in the URL fragment into a session and keeps its key
 * in `sessionStorage` (per origin: no other loopback port reads it). The
 * page's script reads the live stream with that key in a header (a fetch, as
 * `EventSource` cannot send one), inserts the server-rendered fragments it
 * sends, counts ages and deadlines, checks edited arguments before sending
 * them (the server checks again), posts the person's answers as JSON with
 * the page's own Origin, cookie and key, and shows how to log in again when
 * the session is gone.
 */

import { ANSWER_KEYS } from "../approval-prompt.js";

/** The page's title without questions (kept in step with inbox-html's `PAGE_TITLE`). */
const TITLE = "agentkit inbox";

/** The single keys the page answers to, key → action (the terminal's, `ANSWER_KEYS`), as a script literal. */
const KEYS = JSON.stringify(Object.fromEntries(Object.entries(ANSWER_KEYS).map(([act, key]) => [key, act])));

/** Where a page keeps its session key, per inbox base path (sessionStorage is per origin and per tab). */
const KEY_NAME = `"agentkit-inbox-key:" + document.body.dataset.base`;

/** The login page's script: the code from the fragment (dropped from the address bar first) for a session. */
export const LOGIN_SCRIPT = `
(() => {
  "use strict";
  const base = document.body.dataset.base;
  const status = document.getElementById("login-status");
  const attempt = () => {
    const m = /^#code=([A-Za-z0-9_-]{16,200})$/.exec(location.hash);
    if (location.hash) history.replaceState(null, "", location.pathname + location.search);
    if (!m) { status.textContent = document.body.dataset.loggedOut; return; }
    status.textContent = "Logging in…";
    fetch(base + "/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code: m[1] }), credentials: "same-origin", cache: "no-store" })
      .then(async (res) => {
        const data = await res.json();
        if (!res.ok) { status.textContent = data.error; return; }
        sessionStorage.setItem(${KEY_NAME}, data.key);
        location.replace(data.page);
      })
      .catch((err) => { status.textContent = "Could not reach the inbox: " + err.message; });
  };
  // A second link opened in the same tab changes only the fragment: no reload.
  window.addEventListener("hashchange", attempt);
  attempt();
})();
`;

/** The inline style. Focus is always visible; nothing depends on colour alone. */
export const INBOX_STYLE = `
body{font:16px/1.45 system-ui,sans-serif;margin:0 auto;max-width:70rem;padding:1rem 1.5rem;color:#1b1b1b;background:#fafafa}
h1{margin:.2rem 0}h2{margin-top:1.5rem}h3{margin:.1rem 0 .3rem;font-family:ui-monospace,monospace}
.question{background:#fff;border:1px solid #bbb;border-left:6px solid #1f5fbf;border-radius:6px;padding:.6rem 1rem;margin:.8rem 0}
.question.closed{border-left-color:#888;background:#f1f1f1}
.question.closed .actions button{opacity:.6}
.meta{margin:.2rem 0;color:#333}.ask{margin:.2rem 0;color:#444;white-space:pre-wrap;overflow-wrap:anywhere}
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

/** The inline script (plain ES2020, no dependencies). */
export const INBOX_SCRIPT = `
(() => {
  "use strict";
  const base = document.body.dataset.base;
  const pending = document.getElementById("pending");
  const tbody = document.querySelector("#decisions tbody");
  const announcer = document.getElementById("announcer");
  const actorInput = document.getElementById("actor");
  const connection = document.getElementById("connection");
  // The name typed once is kept across runs: localStorage is per origin and each run's port differs, so a
  // cookie (per host, any port; not HttpOnly, only a claimed name) carries it to the next run's page too.
  const NAME_COOKIE = "agentkit_inbox_name";
  const savedName = () => {
    try { const v = localStorage.getItem("agentkit-inbox-actor"); if (v) return v; } catch {}
    const m = document.cookie.split("; ").find((c) => c.startsWith(NAME_COOKIE + "="));
    try { return m ? decodeURIComponent(m.slice(NAME_COOKIE.length + 1)).slice(0, 100) : ""; } catch { return ""; }
  };
  actorInput.value = savedName();
  actorInput.addEventListener("change", () => {
    const v = actorInput.value.trim().slice(0, 100);
    try { localStorage.setItem("agentkit-inbox-actor", v); } catch {}
    document.cookie = NAME_COOKIE + "=" + encodeURIComponent(v) + "; Path=" + base + "; Max-Age=" + (v ? 31536000 : 0) + "; SameSite=Strict";
  });

  const announce = (text) => { announcer.textContent = ""; setTimeout(() => { announcer.textContent = text; }, 30); };
  const fragment = (html) => { const t = document.createElement("template"); t.innerHTML = html.trim(); return t.content.firstElementChild; };
  const articleOf = (id) => document.getElementById("q-" + id);
  const count = () => {
    const n = pending.querySelectorAll("article").length;
    document.getElementById("pending-count").textContent = String(n);
    document.getElementById("empty").hidden = n > 0;
    document.title = n > 0 ? "(" + n + ") ${TITLE}" : "${TITLE}";
  };
  // Times: how long ago (kept current), the full date in the reader's zone in the title.
  const ago = (iso) => { const s = Math.max(0, Math.floor((Date.now() - Date.parse(iso)) / 1000)); return s < 10 ? "just now" : s < 60 ? s + " s ago" : s < 3600 ? Math.floor(s / 60) + " min ago" : s < 86400 ? Math.floor(s / 3600) + " h ago" : Math.floor(s / 86400) + " d ago"; };
  const dated = (root) => {
    for (const el of root.querySelectorAll("time[datetime]")) {
      const t = new Date(el.getAttribute("datetime"));
      if (!Number.isNaN(t.getTime())) el.title = t.toLocaleString(undefined, { dateStyle: "full", timeStyle: "long" });
    }
  };
  const pad = (n) => String(n).padStart(2, "0");
  const left = (ms) => { const t = Math.max(0, Math.ceil(ms / 1000)); const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), s = t % 60; return h > 0 ? h + ":" + pad(m) + ":" + pad(s) : m + ":" + pad(s); };
  // Everything under root (a new question or row: only it; the 1 s timer: the whole page).
  const tick = (root = document) => {
    for (const el of root.querySelectorAll("time[data-ago]")) el.textContent = ago(el.getAttribute("datetime"));
    for (const el of root.querySelectorAll("#pending article[data-status=pending] [data-asked]")) el.textContent = "waiting " + left(Date.now() - Date.parse(el.dataset.asked));
    for (const el of root.querySelectorAll("[data-deadline]")) {
      const art = el.closest("article");
      if (art && art.dataset.status !== "pending") continue;
      const ms = Date.parse(el.dataset.deadline) - Date.now();
      el.textContent = ms > 0 ? "time left " + left(ms) : "deadline passed";
    }
  };
  setInterval(() => tick(), 1000);

  const close = (art, status, text) => {
    art.dataset.status = status;
    art.classList.add("closed");
    for (const b of art.querySelectorAll(".actions button")) b.setAttribute("aria-disabled", "true");
    art.querySelector("[data-role=outcome]").textContent = text;
    const timer = art.querySelector("[data-deadline]");
    if (timer && status === "timed_out") timer.textContent = "timed out";
  };
  // After an answer, focus goes to the next question (else the previous), or to the pending list's landmark when none is left.
  const remove = (art) => {
    // (focus on <body> counts only for a question answered from this page: another reviewer's answer moves nothing)
    const hadFocus = art.contains(document.activeElement) || (!!art.dataset.sending && (document.activeElement === document.body || !document.activeElement));
    const next = art.nextElementSibling || art.previousElementSibling;
    art.remove();
    count();
    if (hadFocus) (next || document.getElementById("pending-section")).focus();
  };

  let key = null;
  try { key = sessionStorage.getItem(${KEY_NAME}); } catch {}
  let ended = false;
  const loggedOut = (why) => {
    ended = true;
    document.getElementById("logged-out").hidden = false;
    document.querySelector("main").hidden = true;
    document.querySelector("#logged-out [data-role=why]").textContent = why || "";
    connection.textContent = "Logged out.";
    announce("Logged out of the inbox. " + (why || ""));
  };
  // Browser notifications: opt-in by a button (the permission is asked only on its click), for questions arriving live.
  const notifyButton = document.getElementById("notify");
  const notifyState = document.getElementById("notify-state");
  const canNotify = typeof Notification === "function";
  let notifyOn = false;
  const showNotify = () => {
    if (!canNotify) return;
    notifyButton.hidden = false;
    let wanted = false;
    try { wanted = localStorage.getItem("agentkit-inbox-notify") === "on"; } catch {}
    notifyOn = wanted && Notification.permission === "granted";
    notifyButton.setAttribute("aria-pressed", String(notifyOn));
    notifyState.textContent = Notification.permission === "denied" ? "Notifications are blocked for this page in the browser's settings." : notifyOn ? "On: each new question shows a notification." : "";
  };
  if (canNotify) notifyButton.addEventListener("click", async () => {
    const want = !notifyOn;
    const permission = want && Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
    try { localStorage.setItem("agentkit-inbox-notify", want && permission === "granted" ? "on" : "off"); } catch {}
    showNotify();
  });
  showNotify();
  const focusQuestion = (art) => { if (art) { art.focus(); art.scrollIntoView({ block: "nearest" }); } };
  const notify = (data) => {
    if (!notifyOn || Notification.permission !== "granted") return;
    try {
      const n = new Notification("New question: " + data.tool, { body: "from " + data.from, tag: "agentkit-inbox-" + data.id });
      n.onclick = () => { window.focus(); focusQuestion(articleOf(data.id)); n.close(); };
    } catch {}
  };
  let live = false;
  let seen = new Set();
  const handlers = {
    decisions: (data) => { tbody.innerHTML = data.html; dated(tbody); tick(tbody); seen = new Set(); },
    question: (data) => {
      seen.add(data.id);
      if (articleOf(data.id)) return;
      const art = fragment(data.html);
      dated(art);
      pending.appendChild(art);
      count();
      tick(art);
      announce("New question: " + data.tool + " from " + data.from);
      if (live) notify(data);
    },
    ready: (data) => {
      // textContent: the label is the server's, but never markup
      if (typeof data.session === "string") document.getElementById("who").textContent = "Decisions you make here are recorded as made by " + data.session + ".";
      // Settled while the stream was down: gone from the list the server just sent.
      for (const art of pending.querySelectorAll("article[data-status=pending]")) if (!seen.has(art.dataset.id)) art.remove();
      count();
      live = true;
      connection.textContent = "Live: new questions appear here without a reload.";
    },
    settled: (data) => {
      const art = articleOf(data.id);
      if (!art) return;
      if (data.status === "answered") { remove(art); announce(data.tool + ": " + data.text); }
      else { close(art, data.status, data.text); announce(data.tool + ": " + data.text); }
    },
    decision: (data) => {
      const row = fragment("<table><tbody>" + data.html + "</tbody></table>").querySelector("tr");
      dated(row);
      tick(row);
      const old = tbody.querySelector('tr[data-id="' + CSS.escape(data.id) + '"]');
      if (old) old.replaceWith(row); else tbody.insertBefore(row, tbody.firstElementChild);
    },
  };
  const dispatch = (block) => {
    let event = "message";
    const data = [];
    for (const line of block.split("\\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length && Object.hasOwn(handlers, event)) handlers[event](JSON.parse(data.join("\\n")));
  };
  const retry = () => { if (ended) return; connection.textContent = "Connection lost; reconnecting…"; setTimeout(connect, 1000); };
  const connect = async () => {
    if (!key) return loggedOut("");
    let res;
    try { res = await fetch(base + "/events", { headers: { "X-Agentkit-Session": key, Accept: "text/event-stream" }, credentials: "same-origin", cache: "no-store" }); }
    catch { return retry(); }
    if (res.status === 401) { let why = ""; try { why = (await res.json()).error; } catch {} return loggedOut(why); }
    if (res.status === 404) { ended = true; connection.textContent = "This inbox has stopped: nothing more will arrive here."; return; }
    if (!res.ok || !res.body) return retry();
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        for (let at = buf.indexOf("\\n\\n"); at >= 0; at = buf.indexOf("\\n\\n")) { dispatch(buf.slice(0, at)); buf = buf.slice(at + 2); }
      }
    } catch {}
    retry();
  };
  void connect();

  const parseArgs = (text) => {
    let value;
    try { value = JSON.parse(text); } catch (err) { return { error: "not valid JSON: " + err.message + '. The arguments must be a JSON object, e.g. {"path": "a.txt"}' }; }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      const got = value === null ? "null" : Array.isArray(value) ? "an array" : "a " + typeof value;
      return { error: "not a JSON object: got " + got + '. The arguments must be a JSON object, e.g. {"path": "a.txt"}' };
    }
    return { value };
  };

  const send = async (art, body) => {
    const outcome = art.querySelector("[data-role=outcome]");
    body.id = art.dataset.id;
    const typed = actorInput.value.trim();
    if (typed) body.actor = typed;
    outcome.textContent = "Sending…";
    art.dataset.sending = "1";
    let res, data;
    try {
      res = await fetch(base + "/answer", { method: "POST", headers: { "Content-Type": "application/json", "X-Agentkit-Session": key || "" }, body: JSON.stringify(body), credentials: "same-origin" });
      data = await res.json();
    } catch (err) { delete art.dataset.sending; outcome.textContent = "Could not reach the inbox: " + err.message; announce(outcome.textContent); return; }
    if (res.ok) { outcome.textContent = data.message; return; } // it leaves the page when settled
    delete art.dataset.sending;
    if (res.status === 401) { outcome.textContent = data.error; loggedOut(data.error); return; }
    if (data.status && data.status !== "pending") close(art, data.status, data.error);
    else outcome.textContent = data.error;
    if (data.field === "arguments") { art.querySelector("[data-role=error]").textContent = data.error; outcome.textContent = ""; }
    announce(data.error);
  };

  const toggle = (art, which, button) => {
    const form = art.querySelector("form[data-form=" + which + "]");
    const open = form.hidden;
    form.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    if (open) form.querySelector("input, textarea").focus();
  };

  pending.addEventListener("click", (e) => {
    const button = e.target.closest("button[data-act]");
    if (!button) return;
    const art = button.closest("article");
    const act = button.dataset.act;
    if (act === "approve") void send(art, { kind: "approve" });
    else toggle(art, act, button);
  });
  pending.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    const form = e.target.closest("form");
    if (!form) return;
    form.hidden = true;
    const button = form.closest("article").querySelector("button[data-act=" + form.dataset.form + "]");
    button.setAttribute("aria-expanded", "false");
    button.focus();
  });
  // Single keys, the terminal's: for the question holding focus, else the first; never while typing in a field.
  const ACTS = ${KEYS};
  const typing = (el) => !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    const arts = [...pending.querySelectorAll("article")];
    if (!arts.length || !document.querySelector("main") || document.querySelector("main").hidden) return;
    const holder = document.activeElement && document.activeElement.closest ? document.activeElement.closest("#pending article") : null;
    if (e.key === "j" || e.key === "k") {
      e.preventDefault();
      const at = arts.indexOf(holder);
      focusQuestion(at < 0 ? arts[0] : arts[Math.max(0, Math.min(arts.length - 1, at + (e.key === "j" ? 1 : -1)))]);
      return;
    }
    if (!Object.hasOwn(ACTS, e.key) || e.repeat) return;
    const art = holder || arts[0];
    e.preventDefault();
    if (ACTS[e.key] === "details") {
      const open = !art.querySelector("details[data-role=details]").open;
      for (const d of art.querySelectorAll("details")) d.open = open;
      if (!holder) focusQuestion(art);
      return;
    }
    const button = art.querySelector("button[data-act=" + ACTS[e.key] + "]");
    // one answer per question: a key pressed again while it is on its way does nothing
    if (button && art.dataset.status === "pending" && !art.dataset.sending) { if (!holder) focusQuestion(art); button.click(); }
  });

  pending.addEventListener("submit", (e) => {
    e.preventDefault();
    const form = e.target;
    const art = form.closest("article");
    if (form.dataset.form === "reject") { void send(art, { kind: "reject", note: form.elements.note.value }); return; }
    const error = art.querySelector("[data-role=error]");
    const parsed = parseArgs(form.elements.arguments.value);
    if (parsed.error) { error.textContent = parsed.error; form.elements.arguments.focus(); return; }
    error.textContent = "";
    void send(art, { kind: "modify", arguments: form.elements.arguments.value });
  });
  count();
})();
`;
