// guard serve's page: plain JavaScript, no build step. All text goes in through
// textContent, never innerHTML, so a lock's fields cannot inject markup.
"use strict";

const state = { locks: [], rooms: [], room: "", pending: null };
const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

// The token: taken from the URL's fragment (#token=..., which the browser never
// sends to any server), kept in this tab's sessionStorage (so a reload keeps the
// person signed in, and no other tab, site or port sees it) and sent as a header.
// Never a cookie: a cookie on 127.0.0.1 would go to every server on this machine.
const TOKEN_KEY = "guard-serve-token";
let token = "";

async function signIn() {
  const frag = new URLSearchParams(location.hash.slice(1));
  const fromURL = frag.get("token");
  const code = frag.get("code");
  if (fromURL || code) history.replaceState(null, "", location.pathname + location.search);
  if (fromURL) {
    sessionStorage.setItem(TOKEN_KEY, fromURL);
  } else if (code) {
    // guard serve --open: a one-time code, traded once for the token.
    const r = await fetch("/api/session", { method: "POST", credentials: "omit", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code }) });
    const data = await r.json().catch(() => ({}));
    if (r.ok && data.token) sessionStorage.setItem(TOKEN_KEY, data.token);
    else say("Could not sign in: " + (data.error || r.status), true);
  }
  token = sessionStorage.getItem(TOKEN_KEY) || "";
  if (!token) say("Not signed in: open the URL guard serve printed in its terminal (it ends in #token=...).", true);
  return token !== "";
}

async function api(method, path, body) {
  const opts = { method, credentials: "omit", headers: { Authorization: "Bearer " + token } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || r.status + " " + r.statusText);
  return data;
}

function say(text, isError) {
  const m = $("message");
  m.textContent = text;
  m.className = isError ? "error" : "";
}

function eventLine(ev) {
  const t = new Date(ev.time).toLocaleTimeString();
  let s = t + "  " + ev.event + "  " + (ev.path || ev.resource || "");
  if (ev.owner) s += "  owner " + ev.owner;
  if (ev.actor) s += "  by " + ev.actor;
  if (ev.detail) s += "  (" + ev.detail + ")";
  return s;
}

function countdown(lock) {
  if (!lock.expires_at) {
    if (lock.kind === "user") return "held by a person";
    if (lock.kind === "condition") return "until condition met";
    return "no expiry";
  }
  const ms = new Date(lock.expires_at) - Date.now();
  if (ms <= 0) return "expired";
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60), sec = s % 60;
  return (d ? d + "d " : "") + (d || h ? h + "h " : "") + m + "m " + String(sec).padStart(2, "0") + "s";
}

function renderRooms() {
  const ul = $("rooms");
  ul.replaceChildren();
  const sel = $("f-room");
  const keep = sel.value;
  sel.replaceChildren(el("option", "all"));
  sel.firstChild.value = "";
  const dl = $("c-dirs");
  dl.replaceChildren();
  for (const r of state.rooms) {
    const li = el("li", r.label + " — " + r.active + " active" + (r.total > r.active ? ", " + (r.total - r.active) + " expired" : ""));
    li.title = r.path;
    li.dataset.key = r.key;
    if (state.room === r.key) li.classList.add("selected");
    li.addEventListener("click", () => { state.room = state.room === r.key ? "" : r.key; $("f-room").value = state.room; renderRooms(); renderLocks(); });
    ul.append(li);
    const o = el("option", r.label); o.value = r.key; sel.append(o);
    const d = el("option"); d.value = r.path; dl.append(d);
  }
  sel.value = state.room || keep;
  if (!$("c-dir").value && state.rooms.length) $("c-dir").value = state.rooms[0].path;
}

function renderLocks() {
  const kinds = new Set(state.locks.map((l) => l.kind));
  const ks = $("f-kind");
  const kv = ks.value;
  ks.replaceChildren(el("option", "all"));
  ks.firstChild.value = "";
  for (const k of [...kinds].sort()) { const o = el("option", k); o.value = k; ks.append(o); }
  ks.value = kinds.has(kv) ? kv : "";
  const owner = $("f-owner").value.toLowerCase();
  const room = $("f-room").value;
  const tb = $("locks").tBodies[0];
  tb.replaceChildren();
  let active = 0;
  for (const l of state.locks) {
    active++;
    if (ks.value && l.kind !== ks.value) continue;
    if (owner && !(l.owner || "").toLowerCase().includes(owner)) continue;
    if (room && l.room !== room) continue;
    const tr = el("tr");
    tr.dataset.id = l.id;
    tr.dataset.path = l.path;
    const p = el("td", l.path, "path");
    p.title = "show its detail and history";
    p.addEventListener("click", () => showDetail(l.id));
    tr.append(p, el("td", l.kind, "kind-" + l.kind), el("td", l.owner), el("td", l.host),
      el("td", l.release_condition || l.purpose), el("td", countdown(l), "countdown"));
    const b = el("button", "Release", "release");
    b.addEventListener("click", () => release(l));
    const td = el("td"); td.append(b); tr.append(td);
    tr._lock = l;
    tb.append(tr);
  }
  $("counts").textContent = active + " active lock" + (active === 1 ? "" : "s") + " in " + state.rooms.length + " room" + (state.rooms.length === 1 ? "" : "s");
}

function tick() {
  for (const tr of $("locks").tBodies[0].rows) {
    const c = tr.querySelector(".countdown");
    if (c && tr._lock) {
      c.textContent = countdown(tr._lock);
      const ms = tr._lock.expires_at ? new Date(tr._lock.expires_at) - Date.now() : Infinity;
      c.classList.toggle("soon", ms < 5 * 60 * 1000);
    }
  }
}

async function refresh() {
  try {
    const [locks, rooms] = await Promise.all([api("GET", "/api/locks?status=active"), api("GET", "/api/rooms")]);
    state.locks = locks; state.rooms = rooms;
    renderRooms(); renderLocks();
  } catch (e) { say("Could not load the locks: " + e.message, true); }
}

let refreshTimer = null;
function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, 100);
}

async function loadTimeline() {
  try {
    const evs = await api("GET", "/api/history?limit=50");
    const ol = $("timeline");
    ol.replaceChildren(...evs.map((ev) => el("li", eventLine(ev))));
  } catch (e) { say("Could not load the history: " + e.message, true); }
}

async function showDetail(id) {
  try {
    const l = await api("GET", "/api/locks/" + encodeURIComponent(id));
    const dl = $("detail");
    dl.replaceChildren();
    for (const k of ["path", "kind", "scope", "owner", "host", "created", "expires_at", "mode", "purpose", "release_condition", "fence", "operations"]) {
      const v = l[k];
      if (v === null || v === undefined || v === "" || (Array.isArray(v) && !v.length)) continue;
      dl.append(el("dt", k), el("dd", Array.isArray(v) ? v.join(", ") : v));
    }
    $("detail-events").replaceChildren(...(l.events || []).map((ev) => el("li", eventLine(ev))));
    $("detail-section").hidden = false;
  } catch (e) { say(e.message, true); }
}

async function release(l) {
  let q = "";
  if (l.kind !== "user" && !window.confirm("Release " + l.path + "?")) return;
  if (l.kind === "user" && !window.confirm("Remove the user lock " + l.path + "? It is a person's lock.")) return;
  try {
    await api("DELETE", "/api/locks/" + encodeURIComponent(l.id) + q);
    say("released " + l.path);
  } catch (e) {
    if (window.confirm(e.message + "\n\nRelease it anyway (as guard unlock --force)?")) {
      try { await api("DELETE", "/api/locks/" + encodeURIComponent(l.id) + "?force=true"); say("released " + l.path); }
      catch (e2) { say(e2.message, true); }
    } else say(e.message, true);
  }
  refresh();
}

async function claim(ev) {
  ev.preventDefault();
  const kind = $("c-kind").value;
  const body = { dir: $("c-dir").value.trim(), scope: $("c-scope").value.trim(), expires: $("c-expires").value.trim(),
    purpose: $("c-purpose").value.trim(), release_condition: $("c-cond").value.trim(), user: kind === "user", condition: kind === "condition" };
  try {
    const res = await api("POST", "/api/locks", body);
    say(res.action + " " + res.path);
  } catch (e) { say(e.message, true); }
  refresh();
}

// preview shows what an action would do; its commit button then does it for real.
async function preview(title, path, dryBody, commitBody, show) {
  try {
    const res = await api("POST", path, dryBody);
    $("action-title").textContent = title;
    $("action-result").textContent = show(res);
    state.pending = { path, body: commitBody, title };
    $("action-commit").hidden = false;
    $("action-section").hidden = false;
  } catch (e) { say(e.message, true); }
}

async function commit() {
  const p = state.pending;
  if (!p) return;
  state.pending = null;
  try {
    const res = await api("POST", p.path, p.body);
    $("action-result").textContent = "Done.\n" + JSON.stringify(res, null, 2);
    $("action-commit").hidden = true;
  } catch (e) { say(e.message, true); }
  refresh();
}

function list(label, xs) { return label + ":\n" + ((xs && xs.length) ? xs.map((x) => "  " + (x.root || x.path || x) + (x.reason ? " (" + x.reason + ")" : "")).join("\n") : "  (none)"); }

// connect follows /api/events. EventSource cannot send a header, so the stream is
// read with fetch and a ReadableStream reader, and parsed as Server-Sent Events here;
// a dropped stream is opened again after a pause.
function connect() {
  const live = (on, text) => { $("live").textContent = text; $("live").className = "badge " + (on ? "on" : "off"); };
  const handle = (block) => {
    let name = "message", data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const i = line.indexOf(":");
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
      if (field === "event") name = value;
      else if (field === "data") data.push(value);
    }
    if (name !== "lock" || !data.length) return;
    const ev = JSON.parse(data.join("\n"));
    const ol = $("timeline");
    ol.prepend(el("li", eventLine(ev)));
    while (ol.children.length > 200) ol.lastChild.remove();
    refreshSoon();
  };
  const run = async () => {
    try {
      const r = await fetch("/api/events", { credentials: "omit", headers: { Authorization: "Bearer " + token, Accept: "text/event-stream" } });
      if (!r.ok || !r.body) throw new Error(String(r.status));
      live(true, "live");
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value.replace(/\r\n?/g, "\n");
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          handle(buf.slice(0, i));
          buf = buf.slice(i + 2);
        }
      }
    } catch (e) { /* reconnect below */ }
    live(false, "reconnecting…");
    setTimeout(run, 2000);
  };
  run();
}

document.addEventListener("DOMContentLoaded", () => {
  $("claim").addEventListener("submit", claim);
  for (const id of ["f-kind", "f-room"]) $(id).addEventListener("change", () => { state.room = $("f-room").value; renderRooms(); renderLocks(); });
  $("f-owner").addEventListener("input", renderLocks);
  $("detail-close").addEventListener("click", () => { $("detail-section").hidden = true; });
  $("action-cancel").addEventListener("click", () => { $("action-section").hidden = true; state.pending = null; });
  $("action-commit").addEventListener("click", commit);
  $("scan").addEventListener("click", async () => { try { const r = await api("POST", "/api/scan", {}); say("scanned: " + r.locks_found + " lock files" + (r.watcher ? " (new " + r.new + ", changed " + r.modified + ", expired " + r.expired + ", gone " + r.deleted + ")" : "")); } catch (e) { say(e.message, true); } refresh(); });
  $("prune-preview").addEventListener("click", () => preview("Prune expired locks", "/api/prune", { dry_run: true }, { dry_run: false },
    (r) => list("Would remove", r.would_remove)));
  $("lockdown-preview").addEventListener("click", () => preview("Lock down every root", "/api/lockdown", { commit: false }, { commit: true },
    (r) => list("Would lock", r.would_lock || r.would_lock_paths) + "\n" + list("Skipped", r.skipped)));
  $("undo-preview").addEventListener("click", () => preview("Undo the lockdown", "/api/lockdown/undo", { commit: false }, { commit: true },
    (r) => JSON.stringify(r, null, 2)));
  setInterval(tick, 1000);
  signIn().then((ok) => {
    if (!ok) return;
    refresh();
    loadTimeline();
    connect();
  });
});
