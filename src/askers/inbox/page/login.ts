/**
 * The login page's script (compiled to a plain script and inlined by
 * inbox-html): the code from the URL fragment (dropped from the address bar
 * first) is exchanged for a session, whose key is kept in `sessionStorage`
 * under the name the server put in `data-key-name` (per inbox base path;
 * sessionStorage is per origin and per tab).
 */
(() => {
  "use strict";
  const body = document.body;
  const base = body.dataset.base ?? "";
  const keyName = body.dataset.keyName ?? "";
  const status = document.getElementById("login-status")!;
  const attempt = (): void => {
    const m = /^#code=([A-Za-z0-9_-]{16,200})$/.exec(location.hash);
    if (location.hash) history.replaceState(null, "", location.pathname + location.search);
    if (!m) {
      status.textContent = body.dataset.loggedOut ?? "";
      return;
    }
    status.textContent = "Logging in…";
    fetch(base + "/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code: m[1] }),
      credentials: "same-origin",
      cache: "no-store",
    })
      .then(async (res) => {
        const data = (await res.json()) as { error: string; key: string; page: string };
        if (!res.ok) {
          status.textContent = data.error;
          return;
        }
        sessionStorage.setItem(keyName, data.key);
        location.replace(data.page);
      })
      .catch((err: Error) => {
        status.textContent = "Could not reach the inbox: " + err.message;
      });
  };
  // A second link opened in the same tab changes only the fragment: no reload.
  window.addEventListener("hashchange", attempt);
  attempt();
})();
