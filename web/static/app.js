// guard serve's page: plain JavaScript, no build step. All text goes in through
// textContent, never innerHTML, so a lock's fields cannot inject markup. Times are
// shown in the browser's own time zone and locale; paths within their room.
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

// --- Time, in the browser's zone: a clock time (with the day when it is not today),
// how long ago or ahead, and the exact stamp on hover.

const fmtClock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const fmtDay = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short" });
const fmtDayYear = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric" });
const fmtExact = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "long" });

function dayNumber(d) { return Math.round(new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime() / 86400000); }

// clock is "14:05", "tomorrow 14:05", "yesterday 09:12", "Thu 3 Dec 14:05".
function clock(d) {
  const now = new Date();
  const days = dayNumber(d) - dayNumber(now);
  const t = fmtClock.format(d);
  if (days === 0) return t;
  if (days === 1) return "tomorrow " + t;
  if (days === -1) return "yesterday " + t;
  return (d.getFullYear() === now.getFullYear() ? fmtDay : fmtDayYear).format(d) + " " + t;
}

// span is a duration as a person reads it: "40s", "12m 05s", "1h 58m", "3d 4h".
function span(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return s + "s";
  const m = Math.floor(s / 60);
  if (m < 60) return m + "m " + String(s % 60).padStart(2, "0") + "s";
  const h = Math.floor(m / 60);
  if (h < 24) return h + "h " + String(m % 60).padStart(2, "0") + "m";
  return Math.floor(h / 24) + "d " + (h % 24) + "h";
}

function fromNow(iso) {
  const ms = new Date(iso) - Date.now();
  if (Math.abs(ms) < 1000) return "now";
  return ms > 0 ? "in " + span(ms) : span(-ms) + " ago";
}

// when is a <time>: the clock time and, below it, how far from now (kept current by
// tick); the exact local stamp is its title.
function when(iso) {
  const d = new Date(iso);
  const t = el("time", null, "when");
  t.dateTime = iso;
  t.title = fmtExact.format(d);
  t.append(el("span", clock(d), "clock"), el("span", fromNow(iso), "ago"));
  return t;
}

// until is a lock's end: when it expires, or what ends it when no time does.
function until(l) {
  if (l.expires_at) return when(l.expires_at);
  if (l.kind === "user") return el("span", "until a person removes it", "open-end");
  if (l.kind === "condition" || l.release_condition) return el("span", "until its condition is met", "open-end");
  return el("span", "no expiry", "open-end");
}

function tick() {
  for (const t of document.querySelectorAll("time.when")) {
    const a = t.querySelector(".ago");
    if (a) a.textContent = fromNow(t.dateTime);
    const ms = new Date(t.dateTime) - Date.now();
    t.classList.toggle("soon", t.closest(".until") !== null && ms < 5 * 60 * 1000);
  }
}

// --- Rooms, identity, paths.

function roomOf(key) { return state.rooms.find((r) => r.key === key); }

// rel is a path as the page shows it: within its room (the longest root holding it).
function rel(path) {
  if (!path) return "";
  let best = null;
  for (const r of state.rooms) {
    const root = r.path.replace(/[\\/]+$/, "");
    if ((path === root || path.startsWith(root + "/") || path.startsWith(root + "\\")) && (!best || root.length > best.length)) best = root;
  }
  if (best === null) return path;
  const rest = path.slice(best.length).replace(/^[\\/]+/, "").replace(/\\/g, "/");
  return rest || ".";
}

// place is a path in a list of what an action does: within its room, and a room's own
// top by the room's name.
function place(path) {
  const r = rel(path);
  if (r !== ".") return r;
  const room = state.rooms.find((x) => x.path.replace(/[\\/]+$/, "") === path.replace(/[\\/]+$/, ""));
  return room ? "room " + room.label : path;
}

function lockPath(l) { return l.relative_path || rel(l.path); }

function who(r) { return r.owner + (r.host ? " on " + r.host : ""); }

function renderWho() {
  const ids = [...new Set(state.rooms.map(who))];
  const w = $("whoami");
  w.replaceChildren(el("span", "You act as "), el("strong", ids[0] || "…"));
  if (ids.length > 1) w.append(el("span", " (and as others in some rooms: see Rooms)"));
  const s = $("settings-who");
  s.replaceChildren(el("span", "guard serve acts as the identity guard lock would use in each room (GUARD_OWNER, else the room's .guard.toml, else user@host): "),
    el("strong", ids.join(", ") || "…"), el("span", "."));
}

function renderRooms() {
  const ul = $("rooms");
  ul.replaceChildren();
  const sel = $("f-room");
  const keep = sel.value;
  sel.replaceChildren(el("option", "all"));
  sel.firstChild.value = "";
  const cr = $("c-room");
  const keepClaim = cr.value;
  cr.replaceChildren();
  const first = state.rooms.length ? who(state.rooms[0]) : "";
  for (const r of state.rooms) {
    const li = el("li", null, "room");
    li.append(el("strong", r.label), el("span", " " + r.active + " active" + (r.total > r.active ? ", " + (r.total - r.active) + " expired" : "")));
    if (who(r) !== first) li.append(el("span", " · you act as " + who(r), "as"));
    if (r.identity_error) li.append(el("span", " · its .guard.toml cannot be read", "warn"));
    li.title = r.path + (r.identity_error ? "\n" + r.identity_error : "");
    li.dataset.key = r.key;
    if (state.room === r.key) li.classList.add("selected");
    li.addEventListener("click", () => { state.room = state.room === r.key ? "" : r.key; $("f-room").value = state.room; renderRooms(); renderLocks(); });
    ul.append(li);
    const o = el("option", r.label); o.value = r.key; sel.append(o);
    const c = el("option", r.label); c.value = r.key; c.title = r.path; cr.append(c);
  }
  sel.value = state.room || keep;
  if (keepClaim && roomOf(keepClaim)) cr.value = keepClaim;
  renderWho();
}

// --- Locks.

const kindWords = { exclusive: "exclusive", team: "team", user: "a person's (user)", condition: "until a condition", until: "until a time", legacy: "legacy" };

function ownerCell(l) {
  // One child, so the narrow layout's label column holds the label alone.
  const td = el("td", null, "owner");
  const v = el("span");
  v.append(el("span", l.owner || "(unknown)"));
  if (l.mine) v.append(el("span", "you", "you"));
  td.append(v);
  return td;
}

// actionButtons: Extend and Release on the person's own locks; on anyone else's only
// the distinct, explained Force release.
function actionButtons(l) {
  const out = [];
  if (l.mine) {
    const x = el("button", "Extend", "extend");
    x.title = "renew it now: its time starts again (guard renew)";
    x.addEventListener("click", () => extend(l));
    const r = el("button", "Release", "release");
    r.title = "remove your lock (guard unlock)";
    r.addEventListener("click", () => release(l));
    out.push(x, r);
  } else {
    const f = el("button", "Force release…", "force");
    f.title = "remove " + (l.owner || "someone") + "'s lock without them (guard unlock --force)";
    f.addEventListener("click", () => forceRelease(l));
    out.push(f);
  }
  return out;
}

function labelled(td, label) { td.dataset.label = label; return td; }

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
  const many = state.rooms.length > 1;
  let shown = 0;
  for (const l of state.locks) {
    if (ks.value && l.kind !== ks.value) continue;
    if (owner && !(l.owner || "").toLowerCase().includes(owner)) continue;
    if (room && l.room !== room) continue;
    shown++;
    const tr = el("tr");
    tr.dataset.id = l.id;
    tr.dataset.path = l.path;
    if (l.mine) tr.classList.add("mine");
    const p = el("td", null, "path");
    const pv = el("span");
    const r = roomOf(l.room);
    if (many && r) pv.append(el("span", r.label + " › ", "room-label"));
    const a = el("a", lockPath(l), "lock-link");
    a.href = "#";
    a.title = "show its detail and history";
    a.addEventListener("click", (ev) => { ev.preventDefault(); showDetail(l.id); });
    pv.append(a);
    p.append(pv);
    const purpose = el("td", l.release_condition || l.purpose || "", "purpose");
    const since = el("td", null, "since"); since.append(when(l.created));
    const end = el("td", null, "until"); end.append(until(l));
    const act = el("td", null, "actions"); act.append(...actionButtons(l));
    tr.append(labelled(p, "Lock"), labelled(el("td", kindWords[l.kind] || l.kind, "kind-" + l.kind), "Kind"), labelled(ownerCell(l), "Held by"),
      labelled(el("td", l.host), "Host"), labelled(purpose, "Purpose"), labelled(since, "Since"), labelled(end, "Until"), act);
    if (!purpose.textContent) purpose.classList.add("empty");
    tb.append(tr);
  }
  $("no-locks").hidden = shown > 0;
  const active = state.locks.length;
  $("counts").textContent = active + " active lock" + (active === 1 ? "" : "s") + " in " + state.rooms.length + " room" + (state.rooms.length === 1 ? "" : "s");
  tick();
}

// changed reports whether what the page shows under key differs from last time, the
// server's "remaining" text aside (tick keeps the times current): an unchanged list is
// not drawn again, so a click that lands while the page refreshes is not lost.
const shown = {};
function changed(key, v) {
  const s = JSON.stringify(v, (k, x) => (k === "remaining" ? undefined : x));
  if (shown[key] === s) return false;
  shown[key] = s;
  return true;
}

async function refresh() {
  try {
    const [locks, rooms] = await Promise.all([api("GET", "/api/locks?status=active"), api("GET", "/api/rooms")]);
    state.locks = locks; state.rooms = rooms;
    const roomsChanged = changed("rooms", rooms);
    const locksChanged = changed("locks", locks);
    if (roomsChanged) renderRooms();
    if (roomsChanged || locksChanged) renderLocks();
    if (state.detail && !$("detail-section").hidden) showDetail(state.detail, true);
  } catch (e) { say("Could not load the locks: " + e.message, true); }
}

let refreshTimer = null;
function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, 100);
}

// --- Events, as sentences.

const eventWords = { acquired: "claimed", renewed: "extended", released: "released", expired: "expired", taken_over: "taken over",
  pruned: "pruned", waiting: "waiting", refused: "refused", bypassed: "bypassed", pushed: "pushed" };

function eventItem(ev) {
  const li = el("li");
  li.append(when(ev.time), el("span", eventWords[ev.event] || ev.event, "ev ev-" + ev.event));
  const what = ev.path ? rel(ev.path) : ev.resource;
  if (what) li.append(el("span", what, "ev-path"));
  const by = [];
  if (ev.owner) by.push(ev.owner);
  if (ev.actor) by.push("by " + ev.actor);
  if (ev.detail) by.push(ev.detail);
  if (by.length) li.append(el("span", by.join(" · "), "ev-by"));
  return li;
}

async function loadTimeline() {
  try {
    const evs = await api("GET", "/api/history?limit=50");
    $("timeline").replaceChildren(...evs.map(eventItem));
  } catch (e) { say("Could not load the history: " + e.message, true); }
}

// --- A lock's detail, in plain labels.

async function showDetail(id, quiet) {
  try {
    const l = await api("GET", "/api/locks/" + encodeURIComponent(id));
    if (quiet && !changed("detail", l)) return;
    changed("detail", l);
    state.detail = id;
    const r = roomOf(l.room);
    const rows = [
      ["Lock file", lockPath(l)],
      ["Room", r ? r.label : ""],
      ["Kind", kindWords[l.kind] || l.kind],
      ["Covers", !l.scope || l.scope === "project" ? "the whole folder" : "scope " + l.scope],
      ["Held by", (l.owner || "(unknown)") + (l.mine ? " (you)" : "")],
      ["Host", l.host],
      ["Since", when(l.created)],
      ["Until", until(l)],
      ["Mode", l.mode === "soft" ? "soft (warns, does not refuse)" : l.mode === "hard" ? "hard (refuses)" : l.mode],
      ["Purpose", l.purpose],
      ["Release condition", l.release_condition],
      ["Claim number (fence)", l.fence],
      ["Covers operations", (l.operations || []).join(", ")],
      ["Resource", l.resource],
      ["Held in", l.held_in],
      ["Could not be read", l.read_error],
    ];
    const dl = $("detail");
    dl.replaceChildren();
    for (const [label, v] of rows) {
      if (v === null || v === undefined || v === "") continue;
      const dd = el("dd");
      if (v instanceof Node) dd.append(v); else dd.textContent = String(v);
      if (label === "Room" && r) dd.title = r.path;
      dl.append(el("dt", label), dd);
    }
    $("detail-title").textContent = "Lock " + lockPath(l);
    $("detail-actions").replaceChildren(...actionButtons(l));
    $("detail-events").replaceChildren(...(l.events || []).map(eventItem));
    const sec = $("detail-section");
    const wasHidden = sec.hidden;
    sec.hidden = false;
    if (wasHidden && !quiet) sec.scrollIntoView({ block: "nearest" });
  } catch (e) {
    if (quiet) { $("detail-section").hidden = true; state.detail = null; } else say(e.message, true);
  }
}

// --- Asking first: an in-page dialog that says what will happen.

function ask(title, paragraphs, okLabel, danger) {
  return new Promise((resolve) => {
    const d = $("confirm");
    $("confirm-title").textContent = title;
    $("confirm-body").replaceChildren(...paragraphs.map((p) => el("p", p)));
    const ok = $("confirm-ok");
    ok.textContent = okLabel;
    ok.className = danger ? "danger" : "";
    const done = (v) => { ok.onclick = null; $("confirm-cancel").onclick = null; d.onclose = null; if (d.open) d.close(); resolve(v); };
    ok.onclick = () => done(true);
    $("confirm-cancel").onclick = () => done(false);
    d.onclose = () => done(false);
    d.showModal();
  });
}

async function extend(l) {
  try {
    const res = await api("POST", "/api/locks/" + encodeURIComponent(l.id) + "/renew", {});
    say("Extended " + lockPath(l) + (res.expires_at ? ": now until " + clock(new Date(res.expires_at)) + " (" + fromNow(res.expires_at) + ")" : ""));
  } catch (e) { say("Could not extend " + lockPath(l) + ": " + e.message, true); }
  refresh();
}

async function release(l) {
  const ok = await ask("Release your lock on " + lockPath(l) + "?",
    ["The lock file is removed. The folder is then free: anyone, agents included, may claim it or change it."], "Release", false);
  if (!ok) return;
  try {
    await api("DELETE", "/api/locks/" + encodeURIComponent(l.id));
    say("Released " + lockPath(l));
  } catch (e) { say("Could not release " + lockPath(l) + ": " + e.message + " (it is left as it was)", true); }
  refresh();
}

// forceRelease removes someone else's lock, after saying what that does to them.
async function forceRelease(l) {
  const holder = (l.owner || "someone unknown") + (l.host ? " on " + l.host : "");
  const paras = [];
  if (l.kind === "user") {
    paras.push("This is a person's lock (a user lock): " + holder + " set it to keep agents and everyone else out of " + lockPath(l) + ". Only a person may remove it; here you act as one, as guard unlock --force at a terminal does.");
  } else {
    paras.push("This lock is " + holder + "'s, not yours" + (l.purpose ? " (for: " + l.purpose + ")" : "") + ".");
  }
  paras.push("Forcing it removes the lock file now, without asking " + (l.owner || "them") + " and without telling them. The folder is then free: anyone, agents included, may claim it or change it while they may still be working there.");
  paras.push("If they hold it with guard run, their command is stopped when it notices the lock is gone (exit 5); a later guard renew or unlock of theirs finds no lock. The release is recorded in the history as done from this page.");
  const ok = await ask("Force release " + holder + "'s lock on " + lockPath(l) + "?", paras, "Force release " + (l.owner || "their") + "'s lock", true);
  if (!ok) return;
  try {
    await api("DELETE", "/api/locks/" + encodeURIComponent(l.id) + "?force=true");
    say("Force released " + holder + "'s lock on " + lockPath(l));
  } catch (e) { say("Could not force release " + lockPath(l) + ": " + e.message, true); }
  refresh();
}

async function claim(ev) {
  ev.preventDefault();
  const kind = $("c-kind").value;
  const r = roomOf($("c-room").value);
  const given = $("c-dir").value.trim();
  let dir = given;
  // A folder within the room; an absolute one is taken as it is.
  if (r && !/^([\\/]|[A-Za-z]:[\\/])/.test(given)) {
    const sep = r.path.includes("\\") && !r.path.includes("/") ? "\\" : "/";
    dir = given && given !== "." ? r.path.replace(/[\\/]+$/, "") + sep + given.replace(/^[\\/]+/, "") : r.path;
  }
  const body = { dir, scope: $("c-scope").value.trim(), expires: $("c-expires").value.trim(),
    purpose: $("c-purpose").value.trim(), release_condition: $("c-cond").value.trim(), user: kind === "user", condition: kind === "condition" };
  try {
    const res = await api("POST", "/api/locks", body);
    say((res.action || "claimed") + " " + rel(res.path));
  } catch (e) { say(e.message, true); }
  refresh();
}

// --- Previews of prune and lockdown, in plain words; "Do it" then acts.

function listOf(paths, why) {
  const ul = el("ul");
  for (const x of paths) {
    const li = el("li");
    li.append(el("span", place(x.root || x.path || x), "path"));
    if (x.reason || x.error || why) li.append(el("span", " — " + (x.reason || x.error || why)));
    ul.append(li);
  }
  return ul;
}

function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

// outcome words one action's answer: what it did (done) or would do, to which paths,
// and what it left alone; w holds its sentences.
function outcome(done, paths, left, w) {
  const out = [];
  if (!paths.length) out.push(el("p", done ? w.none : w.nothing));
  else {
    out.push(el("p", (done ? w.did : w.would) + plural(paths.length, w.one, w.many) + ":"));
    out.push(listOf(w.item ? paths.map(w.item) : paths));
    if (!done && w.then) out.push(el("p", w.then));
  }
  if (left && left.length) { out.push(el("p", w.left)); out.push(listOf(left)); }
  return { parts: out, act: !done && paths.length > 0, label: w.verb + " " + plural(paths.length, w.unit, w.unit + "s") };
}

// describe turns an action's JSON answer into sentences.
const describe = {
  prune: (r) => outcome(!r.dry_run, (r.dry_run ? r.would_remove : r.removed) || [], r.errors, {
    none: "Nothing was removed.", nothing: "Nothing to prune: no lock here has run out of time.",
    did: "Removed ", would: "Would remove ", one: "expired lock", many: "expired locks", left: "Could not remove:", verb: "Remove", unit: "lock" }),
  lockdown: (r) => outcome(r.committed, (r.committed ? r.locked : r.would_lock) || [], r.skipped, {
    none: "Nothing was locked.", nothing: "Nothing to lock: every room already has a lock at its top.",
    did: "Locked ", would: "Would put a hard lock (LOCK.txt, for 24 hours) at the top of ", one: "room", many: "rooms",
    item: (p) => ({ path: p, reason: "all of " + place(p.replace(/[\\/]LOCK\.txt$/, "")) }),
    then: "Until it is undone, guard refuses commits, claims and agents' changes there. Undo it here, with Undo the lockdown.",
    left: "Left alone:", verb: "Lock down", unit: "room" }),
  undo: (r) => outcome(r.committed, (r.committed ? r.unlocked : r.would_unlock) || [], r.kept, {
    none: "Nothing was unlocked.", nothing: "Nothing to undo: no lock of a lockdown is left.",
    did: "Removed ", would: "Would remove ", one: "lockdown lock", many: "lockdown locks",
    left: "Kept (not a lockdown's lock as it left it):", verb: "Remove", unit: "lock" }),
};

async function preview(title, path, dryBody, commitBody, kind) {
  try {
    const res = await api("POST", path, dryBody);
    const d = describe[kind](res);
    $("action-title").textContent = title;
    $("action-result").replaceChildren(...d.parts);
    state.pending = d.act ? { path, body: commitBody, kind } : null;
    $("action-commit").hidden = !d.act;
    $("action-commit").textContent = d.label;
    $("action-section").hidden = false;
    $("action-section").scrollIntoView({ block: "nearest" });
  } catch (e) { say(e.message, true); }
}

async function commit() {
  const p = state.pending;
  if (!p) return;
  state.pending = null;
  try {
    const res = await api("POST", p.path, p.body);
    const d = describe[p.kind](res);
    $("action-result").replaceChildren(el("p", "Done.", "done"), ...d.parts);
    $("action-commit").hidden = true;
  } catch (e) { say(e.message, true); }
  refresh();
}

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
    ol.prepend(eventItem(ev));
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
  $("detail-close").addEventListener("click", () => { $("detail-section").hidden = true; state.detail = null; });
  $("action-cancel").addEventListener("click", () => { $("action-section").hidden = true; state.pending = null; });
  $("action-commit").addEventListener("click", commit);
  $("scan").addEventListener("click", async () => { try { const r = await api("POST", "/api/scan", {}); say("Scanned: " + plural(r.locks_found, "lock file", "lock files") + (r.watcher ? " (new " + r.new + ", changed " + r.modified + ", expired " + r.expired + ", gone " + r.deleted + ")" : "")); } catch (e) { say(e.message, true); } refresh(); });
  $("prune-preview").addEventListener("click", () => preview("Prune expired locks", "/api/prune", { dry_run: true }, { dry_run: false }, "prune"));
  $("lockdown-preview").addEventListener("click", () => preview("Lock down every room", "/api/lockdown", { commit: false }, { commit: true }, "lockdown"));
  $("undo-preview").addEventListener("click", () => preview("Undo the lockdown", "/api/lockdown/undo", { commit: false }, { commit: true }, "undo"));
  setInterval(tick, 1000);
  signIn().then(async (ok) => {
    if (!ok) return;
    // The rooms first: the timeline shows its paths within them.
    await refresh();
    loadTimeline();
    connect();
  });
});
