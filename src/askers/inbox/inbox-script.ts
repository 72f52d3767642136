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
  try { const saved = localStorage.getItem("agentkit-inbox-actor"); if (saved) actorInput.value = saved; } catch {}
  actorInput.addEventListener("change", () => { try { localStorage.setItem("agentkit-inbox-actor", actorInput.value.trim()); } catch {} });

  const announce = (text) => { announcer.textContent = ""; setTimeout(() => { announcer.textContent = text; }, 30); };
  const fragment = (html) => { const t = document.createElement("template"); t.innerHTML = html.trim(); return t.content.firstElementChild; };
  const articleOf = (id) => document.getElementById("q-" + id);
  const count = () => {
    const n = pending.querySelectorAll("article").length;
    document.getElementById("pending-count").textContent = String(n);
    document.getElementById("empty").hidden = n > 0;
  };
  const pad = (n) => String(n).padStart(2, "0");
  const left = (ms) => { const t = Math.max(0, Math.ceil(ms / 1000)); const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), s = t % 60; return h > 0 ? h + ":" + pad(m) + ":" + pad(s) : m + ":" + pad(s); };
  const tick = () => {
    for (const el of pending.querySelectorAll("article[data-status=pending] [data-asked]")) el.textContent = "waiting " + left(Date.now() - Date.parse(el.dataset.asked));
    for (const el of document.querySelectorAll("[data-deadline]")) {
      const art = el.closest("article");
      if (art && art.dataset.status !== "pending") continue;
      const ms = Date.parse(el.dataset.deadline) - Date.now();
      el.textContent = ms > 0 ? "time left " + left(ms) : "deadline passed";
    }
  };
  setInterval(tick, 1000);

  const close = (art, status, text) => {
    art.dataset.status = status;
    art.classList.add("closed");
    for (const b of art.querySelectorAll(".actions button")) b.setAttribute("aria-disabled", "true");
    art.querySelector("[data-role=outcome]").textContent = text;
    const timer = art.querySelector("[data-deadline]");
    if (timer && status === "timed_out") timer.textContent = "timed out";
  };
  const remove = (art) => {
    const hadFocus = art.contains(document.activeElement);
    const next = art.nextElementSibling || art.previousElementSibling;
    art.remove();
    count();
    if (hadFocus) (next ? next.querySelector("button") : document.getElementById("pending-h")).focus();
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
  let seen = new Set();
  const handlers = {
    decisions: (data) => { tbody.innerHTML = data.html; seen = new Set(); },
    question: (data) => {
      seen.add(data.id);
      if (articleOf(data.id)) return;
      pending.appendChild(fragment(data.html));
      count();
      tick();
      announce("New question: " + data.tool + " from " + data.from);
    },
    ready: (data) => {
      // textContent: the label is the server's, but never markup
      if (typeof data.session === "string") document.getElementById("who").textContent = "Decisions you make here are recorded as made by " + data.session + ".";
      // Settled while the stream was down: gone from the list the server just sent.
      for (const art of pending.querySelectorAll("article[data-status=pending]")) if (!seen.has(art.dataset.id)) art.remove();
      count();
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
    let res, data;
    try {
      res = await fetch(base + "/answer", { method: "POST", headers: { "Content-Type": "application/json", "X-Agentkit-Session": key || "" }, body: JSON.stringify(body), credentials: "same-origin" });
      data = await res.json();
    } catch (err) { outcome.textContent = "Could not reach the inbox: " + err.message; announce(outcome.textContent); return; }
    if (res.ok) { outcome.textContent = data.message; return; }
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
