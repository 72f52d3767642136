/**
 * The inbox page's script (compiled to a plain script and inlined by
 * inbox-html; no dependencies). It reads the live stream with the session
 * key in a header (a fetch, as `EventSource` cannot send one), inserts the
 * server-rendered fragments it sends, counts ages and deadlines, checks
 * edited arguments before sending them (the server checks again), posts the
 * person's answers as JSON with the page's own Origin, cookie and key, and
 * shows how to log in again when the session is gone. What the server
 * decides travels as data on `<body>`: `data-base` (the inbox's path),
 * `data-title` (the page's title without questions), `data-key-name` (where
 * the session key is kept) and `data-keys` (the single keys, key → action, JSON).
 */
(() => {
  "use strict";
  const base = document.body.dataset.base ?? "";
  const TITLE = document.body.dataset.title ?? "";
  const KEY_NAME = document.body.dataset.keyName ?? "";
  const KEYS = JSON.parse(document.body.dataset.keys ?? "{}") as Record<string, string>;
  /** What the live stream's events carry (each event uses some of these). */
  interface EventData {
    id: string;
    html: string;
    tool: string;
    from: string;
    status: string;
    text: string;
    session?: unknown;
  }
  /** What the server answers to a posted answer. */
  interface AnswerReply {
    message: string;
    error: string;
    status?: string;
    field?: string;
  }
  /** An element the frame always has (inbox-html's `pageHtml`). */
  const byId = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
  const pending = byId("pending");
  const tbody = document.querySelector<HTMLTableSectionElement>("#decisions tbody")!;
  const announcer = byId("announcer");
  const actorInput = byId<HTMLInputElement>("actor");
  const connection = byId("connection");
  // The name typed once is kept across runs: localStorage is per origin and each run's port differs, so a
  // cookie (per host, any port; not HttpOnly, only a claimed name) carries it to the next run's page too.
  const NAME_COOKIE = "agentkit_inbox_name";
  const savedName = (): string => {
    try {
      const v = localStorage.getItem("agentkit-inbox-actor");
      if (v) return v;
    } catch {}
    const m = document.cookie.split("; ").find((c) => c.startsWith(NAME_COOKIE + "="));
    try {
      return m ? decodeURIComponent(m.slice(NAME_COOKIE.length + 1)).slice(0, 100) : "";
    } catch {
      return "";
    }
  };
  actorInput.value = savedName();
  actorInput.addEventListener("change", () => {
    const v = actorInput.value.trim().slice(0, 100);
    try {
      localStorage.setItem("agentkit-inbox-actor", v);
    } catch {}
    document.cookie =
      NAME_COOKIE + "=" + encodeURIComponent(v) + "; Path=" + base + "; Max-Age=" + (v ? 31536000 : 0) + "; SameSite=Strict";
  });

  const announce = (text: string): void => {
    announcer.textContent = "";
    setTimeout(() => {
      announcer.textContent = text;
    }, 30);
  };
  const fragment = (html: string): HTMLElement => {
    const t = document.createElement("template");
    t.innerHTML = html.trim();
    return t.content.firstElementChild as HTMLElement;
  };
  const articleOf = (id: string): HTMLElement | null => document.getElementById("q-" + id);
  // A question closed while in view (withdrawn, timed out) stays shown for a late click, but no longer counts as pending.
  const count = (): void => {
    const n = pending.querySelectorAll("article[data-status=pending]").length;
    byId("pending-count").textContent = String(n);
    byId("empty").hidden = n > 0;
    document.title = n > 0 ? "(" + n + ") " + TITLE : TITLE;
  };
  // Times: how long ago (kept current), the full date in the reader's zone in the title.
  const ago = (iso: string): string => {
    const s = Math.max(0, Math.floor((Date.now() - Date.parse(iso)) / 1000));
    return s < 10
      ? "just now"
      : s < 60
        ? s + " s ago"
        : s < 3600
          ? Math.floor(s / 60) + " min ago"
          : s < 86400
            ? Math.floor(s / 3600) + " h ago"
            : Math.floor(s / 86400) + " d ago";
  };
  const dated = (root: ParentNode): void => {
    for (const el of root.querySelectorAll<HTMLElement>("time[datetime]")) {
      const t = new Date(el.getAttribute("datetime")!);
      if (!Number.isNaN(t.getTime())) el.title = t.toLocaleString(undefined, { dateStyle: "full", timeStyle: "long" });
    }
  };
  const pad = (n: number): string => String(n).padStart(2, "0");
  const left = (ms: number): string => {
    const t = Math.max(0, Math.ceil(ms / 1000));
    const h = Math.floor(t / 3600),
      m = Math.floor((t % 3600) / 60),
      s = t % 60;
    return h > 0 ? h + ":" + pad(m) + ":" + pad(s) : m + ":" + pad(s);
  };
  // Everything under root (a new question or row: only it; the 1 s timer: the whole page).
  const tick = (root: ParentNode = document): void => {
    for (const el of root.querySelectorAll("time[data-ago]")) el.textContent = ago(el.getAttribute("datetime")!);
    for (const el of root.querySelectorAll<HTMLElement>("#pending article[data-status=pending] [data-asked]"))
      el.textContent = "waiting " + left(Date.now() - Date.parse(el.dataset.asked!));
    for (const el of root.querySelectorAll<HTMLElement>("[data-deadline]")) {
      const art = el.closest("article");
      if (art && art.dataset.status !== "pending") continue;
      const ms = Date.parse(el.dataset.deadline!) - Date.now();
      el.textContent = ms > 0 ? "time left " + left(ms) : "deadline passed";
    }
  };
  setInterval(() => tick(), 1000);

  const close = (art: HTMLElement, status: string, text: string): void => {
    art.dataset.status = status;
    art.classList.add("closed");
    for (const b of art.querySelectorAll(".actions button")) b.setAttribute("aria-disabled", "true");
    art.querySelector("[data-role=outcome]")!.textContent = text;
    const timer = art.querySelector("[data-deadline]");
    if (timer && status === "timed_out") timer.textContent = "timed out";
    count();
  };
  // After an answer, focus goes to the next question (else the previous), or to the pending list's landmark when none is left.
  const remove = (art: HTMLElement): void => {
    // (focus on <body> counts only for a question answered from this page: another reviewer's answer moves nothing)
    const hadFocus =
      art.contains(document.activeElement) ||
      (!!art.dataset.sending && (document.activeElement === document.body || !document.activeElement));
    const next = (art.nextElementSibling || art.previousElementSibling) as HTMLElement | null;
    art.remove();
    count();
    if (hadFocus) (next || byId("pending-section")).focus();
  };

  let key: string | null = null;
  try {
    key = sessionStorage.getItem(KEY_NAME);
  } catch {}
  let ended = false;
  const loggedOut = (why: string): void => {
    ended = true;
    byId("logged-out").hidden = false;
    document.querySelector("main")!.hidden = true;
    document.querySelector("#logged-out [data-role=why]")!.textContent = why || "";
    connection.textContent = "Logged out.";
    announce("Logged out of the inbox. " + (why || ""));
  };
  // Browser notifications: opt-in by a button (the permission is asked only on its click), for questions arriving live.
  const notifyButton = byId<HTMLButtonElement>("notify");
  const notifyState = byId("notify-state");
  const canNotify = typeof Notification === "function";
  let notifyOn = false;
  const showNotify = (): void => {
    if (!canNotify) return;
    notifyButton.hidden = false;
    let wanted = false;
    try {
      wanted = localStorage.getItem("agentkit-inbox-notify") === "on";
    } catch {}
    notifyOn = wanted && Notification.permission === "granted";
    notifyButton.setAttribute("aria-pressed", String(notifyOn));
    notifyState.textContent =
      Notification.permission === "denied"
        ? "Notifications are blocked for this page in the browser's settings."
        : notifyOn
          ? "On: each new question shows a notification."
          : "";
  };
  if (canNotify)
    notifyButton.addEventListener(
      "click",
      () =>
        void (async () => {
          const want = !notifyOn;
          const permission =
            want && Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
          try {
            localStorage.setItem("agentkit-inbox-notify", want && permission === "granted" ? "on" : "off");
          } catch {}
          showNotify();
        })(),
    );
  showNotify();
  const focusQuestion = (art: HTMLElement | null | undefined): void => {
    if (art) {
      art.focus();
      art.scrollIntoView({ block: "nearest" });
    }
  };
  const notify = (data: EventData): void => {
    if (!notifyOn || Notification.permission !== "granted") return;
    try {
      const n = new Notification("New question: " + data.tool, { body: "from " + data.from, tag: "agentkit-inbox-" + data.id });
      n.onclick = () => {
        window.focus();
        focusQuestion(articleOf(data.id));
        n.close();
      };
    } catch {}
  };
  let live = false;
  let seen = new Set<string>();
  const handlers: Record<string, (data: EventData) => void> = {
    decisions: (data) => {
      tbody.innerHTML = data.html;
      dated(tbody);
      tick(tbody);
      seen = new Set<string>();
    },
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
      if (typeof data.session === "string")
        byId("who").textContent = "Decisions you make here are recorded as made by " + data.session + ".";
      // Settled while the stream was down: gone from the list the server just sent.
      for (const art of pending.querySelectorAll<HTMLElement>("article[data-status=pending]")) if (!seen.has(art.dataset.id!)) art.remove();
      count();
      live = true;
      connection.textContent = "Live: new questions appear here without a reload.";
    },
    settled: (data) => {
      const art = articleOf(data.id);
      if (!art) return;
      if (data.status === "answered") {
        remove(art);
        announce(data.tool + ": " + data.text);
      } else {
        close(art, data.status, data.text);
        announce(data.tool + ": " + data.text);
      }
    },
    decision: (data) => {
      const row = fragment("<table><tbody>" + data.html + "</tbody></table>").querySelector("tr")!;
      dated(row);
      tick(row);
      const old = tbody.querySelector('tr[data-id="' + CSS.escape(data.id) + '"]');
      if (old) old.replaceWith(row);
      else tbody.insertBefore(row, tbody.firstElementChild);
    },
  };
  const dispatch = (block: string): void => {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length && Object.hasOwn(handlers, event)) handlers[event]!(JSON.parse(data.join("\n")) as EventData);
  };
  const retry = (): void => {
    if (ended) return;
    connection.textContent = "Connection lost; reconnecting…";
    setTimeout(() => void connect(), 1000);
  };
  const connect = async (): Promise<void> => {
    if (!key) return loggedOut("");
    let res: Response;
    try {
      res = await fetch(base + "/events", {
        headers: { "X-Agentkit-Session": key, Accept: "text/event-stream" },
        credentials: "same-origin",
        cache: "no-store",
      });
    } catch {
      return retry();
    }
    if (res.status === 401) {
      let why = "";
      try {
        why = ((await res.json()) as { error: string }).error;
      } catch {}
      return loggedOut(why);
    }
    if (res.status === 404) {
      ended = true;
      connection.textContent = "This inbox has stopped: nothing more will arrive here.";
      return;
    }
    if (!res.ok || !res.body) return retry();
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        for (let at = buf.indexOf("\n\n"); at >= 0; at = buf.indexOf("\n\n")) {
          dispatch(buf.slice(0, at));
          buf = buf.slice(at + 2);
        }
      }
    } catch {}
    retry();
  };
  void connect();

  const parseArgs = (text: string): { value?: object; error?: string } => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { error: "not valid JSON: " + (err as Error).message + '. The arguments must be a JSON object, e.g. {"path": "a.txt"}' };
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      const got = value === null ? "null" : Array.isArray(value) ? "an array" : "a " + typeof value;
      return { error: "not a JSON object: got " + got + '. The arguments must be a JSON object, e.g. {"path": "a.txt"}' };
    }
    return { value };
  };

  const send = async (art: HTMLElement, body: Record<string, unknown>): Promise<void> => {
    const outcome = art.querySelector<HTMLElement>("[data-role=outcome]")!;
    body.id = art.dataset.id;
    const typed = actorInput.value.trim();
    if (typed) body.actor = typed;
    outcome.textContent = "Sending…";
    art.dataset.sending = "1";
    let res: Response, data: AnswerReply;
    try {
      res = await fetch(base + "/answer", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Agentkit-Session": key || "" },
        body: JSON.stringify(body),
        credentials: "same-origin",
      });
      data = (await res.json()) as AnswerReply;
    } catch (err) {
      delete art.dataset.sending;
      outcome.textContent = "Could not reach the inbox: " + (err as Error).message;
      announce(outcome.textContent);
      return;
    }
    if (res.ok) {
      outcome.textContent = data.message;
      return;
    } // it leaves the page when settled
    delete art.dataset.sending;
    if (res.status === 401) {
      outcome.textContent = data.error;
      loggedOut(data.error);
      return;
    }
    if (data.status && data.status !== "pending") close(art, data.status, data.error);
    else outcome.textContent = data.error;
    if (data.field === "arguments") {
      art.querySelector("[data-role=error]")!.textContent = data.error;
      outcome.textContent = "";
    }
    announce(data.error);
  };

  const toggle = (art: HTMLElement, which: string, button: HTMLElement): void => {
    const form = art.querySelector<HTMLFormElement>("form[data-form=" + which + "]")!;
    const open = form.hidden;
    form.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    if (open) form.querySelector<HTMLElement>("input, textarea")!.focus();
  };

  pending.addEventListener("click", (e) => {
    const button = (e.target as Element).closest<HTMLElement>("button[data-act]");
    if (!button) return;
    const art = button.closest("article")!;
    const act = button.dataset.act!;
    if (act === "approve") void send(art, { kind: "approve" });
    else toggle(art, act, button);
  });
  pending.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    const form = (e.target as Element).closest("form");
    if (!form) return;
    form.hidden = true;
    const button = form.closest("article")!.querySelector<HTMLElement>("button[data-act=" + form.dataset.form + "]")!;
    button.setAttribute("aria-expanded", "false");
    button.focus();
  });
  // Single keys, the terminal's: for the question holding focus, else the first; never while typing in a field.
  const ACTS = KEYS;
  const typing = (el: EventTarget | null): boolean =>
    !!el && ((el as HTMLElement).isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test((el as HTMLElement).tagName));
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    const arts = [...pending.querySelectorAll("article")];
    if (!arts.length || !document.querySelector("main") || document.querySelector("main")!.hidden) return;
    const holder =
      document.activeElement && document.activeElement.closest ? document.activeElement.closest<HTMLElement>("#pending article") : null;
    if (e.key === "j" || e.key === "k") {
      e.preventDefault();
      const at = holder ? arts.indexOf(holder) : -1;
      focusQuestion(at < 0 ? arts[0] : arts[Math.max(0, Math.min(arts.length - 1, at + (e.key === "j" ? 1 : -1)))]);
      return;
    }
    if (!Object.hasOwn(ACTS, e.key) || e.repeat) return;
    const art = holder || arts[0]!;
    e.preventDefault();
    if (ACTS[e.key] === "details") {
      const open = !art.querySelector<HTMLDetailsElement>("details[data-role=details]")!.open;
      for (const d of art.querySelectorAll("details")) d.open = open;
      if (!holder) focusQuestion(art);
      return;
    }
    const button = art.querySelector<HTMLElement>("button[data-act=" + ACTS[e.key] + "]");
    // one answer per question: a key pressed again while it is on its way does nothing
    if (button && art.dataset.status === "pending" && !art.dataset.sending) {
      if (!holder) focusQuestion(art);
      button.click();
    }
  });

  pending.addEventListener("submit", (e) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const art = form.closest("article")!;
    const field = (name: string): HTMLInputElement | HTMLTextAreaElement =>
      form.elements.namedItem(name) as HTMLInputElement | HTMLTextAreaElement;
    if (form.dataset.form === "reject") {
      void send(art, { kind: "reject", note: field("note").value });
      return;
    }
    const error = art.querySelector("[data-role=error]")!;
    const parsed = parseArgs(field("arguments").value);
    if (parsed.error) {
      error.textContent = parsed.error;
      field("arguments").focus();
      return;
    }
    error.textContent = "";
    void send(art, { kind: "modify", arguments: field("arguments").value });
  });
  count();
})();
