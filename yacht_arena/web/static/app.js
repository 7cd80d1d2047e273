// Yacht tables: draws what the server says (docs/web.md). Names are only ever set as text, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
};
const label = (box) => t(box.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase()));   // a box as people read it
const store = {
  get(key, fallback) {
    try { const v = localStorage.getItem(key); return v === null ? fallback : JSON.parse(v); } catch (e) { return fallback; }
  },
  set(key, value) { try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ } },
};

async function getMenu() {
  if (!menu) menu = await (await fetch("/api/menu")).json();
  return menu;
}

function show(id) {
  for (const s of ["lobby", "sit", "table", "board", "watch", "daily"]) $(s).hidden = s !== id;
}

// ---- the lobby ------------------------------------------------------------------------------------
let menu = null;

async function lobby() {
  show("lobby");
  $("where").textContent = "";
  await getMenu();
  const rules = $("rules");
  rules.replaceChildren(...menu.rules.map((r) => { const o = el("option", null, r); o.value = r; return o; }));
  rules.value = menu.rules.includes("yacht") ? "yacht" : menu.rules[0];
  rules.onchange = () => { for (const select of $("seats").querySelectorAll("select")) { offerMyLevel(select); fitCpus(select, rules.value); } };
  $("seats").replaceChildren();
  addSeat("person", store.get("yacht.name", "") || t("Player 1"));
  addSeat("cpu");
  openTables();
  if (menu.tournaments.length) {
    $("watching").hidden = false;
    $("tournaments").replaceChildren(...menu.tournaments.map((name, i) => {
      const li = el("li"); const a = el("a", null, name); a.href = `/watch/${i}`; li.append(a); return li;
    }));
  }
}

async function openTables() {
  // public tables with a free seat: rules, who is there, and a link that asks for a name
  let doc;
  try { doc = await (await fetch("/api/open")).json(); } catch (e) { return; }
  $("open-tables").hidden = !doc.tables.length;
  $("open-list").replaceChildren(...doc.tables.map((o) => {
    const li = el("li");
    const who = o.seats.map((x) => (x.free ? t("free seat") : x.name)).join(", ");
    const a = el("a", "button", t("Join"));
    a.href = `/t/${o.id}?invite=${encodeURIComponent(o.invite)}`;
    a.setAttribute("aria-label", t("join the {rules} table: {who}", { rules: o.rules, who }));
    li.append(el("span", null, `${o.rules}: ${who} `), a);
    return li;
  }));
}

function addSeat(kind, name) {
  const seats = $("seats");
  if (seats.children.length >= menu.max_seats) return;
  const li = el("li", "seat");
  li.dataset.kind = kind;
  if (kind === "person") {
    const input = el("input");
    input.placeholder = t("name (empty: invite someone)");
    input.maxLength = 20;
    input.value = name || "";
    input.setAttribute("aria-label", t("person's name"));
    li.append(el("span", "kind", t("Person")), input);
  } else {
    const select = el("select");
    select.setAttribute("aria-label", t("CPU level"));
    for (const c of menu.cpus) { const o = el("option", null, t(c.label)); o.value = c.id; select.append(o); }
    const dial = el("option", null, t("Strength dial")); dial.value = "dial"; select.append(dial);
    select.value = menu.cpus.some((c) => c.id === "normal") ? "normal" : menu.cpus[0].id;
    offerMyLevel(select);
    fitCpus(select, $("rules").value);
    const range = el("input"); range.type = "range"; range.min = "0"; range.max = "1"; range.step = "0.05";
    range.value = "0.8"; range.hidden = true; range.setAttribute("aria-label", t("strength"));
    const shown = el("output", null, ""); shown.hidden = true;
    const sync = () => { range.hidden = shown.hidden = select.value !== "dial"; shown.textContent = range.value; };
    select.addEventListener("change", sync); range.addEventListener("input", sync);
    li.append(el("span", "kind", t("CPU")), select, range, shown);
  }
  const remove = el("button", "remove", "×");
  remove.type = "button";
  remove.setAttribute("aria-label", t("remove seat"));
  remove.addEventListener("click", () => { if (seats.children.length > 1) li.remove(); });
  li.append(remove);
  seats.append(li);
}

async function openTable(event, daily) {
  event.preventDefault();
  $("lobby-error").textContent = "";
  const seats = [...$("seats").children].map((li) => {
    if (li.dataset.kind === "person") return { kind: "person", name: li.querySelector("input").value.trim() };
    const v = li.querySelector("select").value;
    return { kind: "cpu", cpu: v === "dial" ? { dial: Number(li.querySelector("input").value) } : v === "mine" ? { dial: myLevel($("rules").value) } : v };
  });
  const first = seats.find((s) => s.kind === "person" && s.name);
  if (first) store.set("yacht.name", first.name);
  const body = {
    rules: $("rules").value, seats, pace: Number($("pace").value),
    set: $("knobs").value.split("\n").map((x) => x.trim()).filter(Boolean),
  };
  if (daily) {             // the day's deal: alone, under the preset's own rules
    body.seats = [{ kind: "person", name: first ? first.name : t("Player 1") }];
    body.set = [];
    body.daily = true;
  }
  if (!daily && $("teams").value) body.set.push(`teams=${$("teams").value}`);
  if (!daily && !$("extra-bonus").checked) body.set.push("extra_yacht_bonus=false");     // seed 000's switch
  else if (!daily && $("joker").value) body.set.push(`joker=${$("joker").value}`);
  if (!daily && $("rolls").value) body.set.push(`rolls_per_turn=${$("rolls").value}`);
  if (!daily && $("saved").value) body.set.push(`saved_rolls=${$("saved").value}`);
  if ($("public").checked) body.public = true;
  if ($("replace").value) body.replace_after = Number($("replace").value);
  const res = await fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const doc = await res.json();
  if (!res.ok) { $("lobby-error").textContent = fromServer(doc.error); return; }
  store.set(`yacht.seats.${doc.id}`, Object.values(doc.tokens));
  history.pushState(null, "", `/t/${doc.id}`);
  table(doc.id);
}

// ---- the table ------------------------------------------------------------------------------------
// `busy`: a move was sent and its answer has not come (Roll, Score and Undo wait for it, so a double click,
// a double tap or a held R key plays once); `settled`: when the last dice landed (Roll waits SETTLE ms, so a
// roll's result is always seen). Every move carries the state's `seq`: the server refuses a stale one.
let ws = null, state = null, tableId = null, held = new Set(), picked = null, retry = 0;
let busy = false, settled = 0, invited = null, fatal = false, reclaimed = new Set(), bestNote = null, lost = false;
let watchingLate = false;      // "Every seat was taken before you arrived" stays up instead of "You are watching"
const SETTLE = 400;

function tokens() { return store.get(`yacht.seats.${tableId}`, []); }

function table(id, invite) {
  tableId = id;
  watchingLate = false;
  invited = invite || null;
  fatal = false;
  const frag = new URLSearchParams(location.hash.slice(1));
  if (frag.get("seat")) {
    const have = tokens(); if (!have.includes(frag.get("seat"))) store.set(`yacht.seats.${id}`, [...have, frag.get("seat")]);
    history.replaceState(null, "", location.pathname + location.search);
  }
  show("table");
  $("gone").hidden = true;
  getMenu().then(() => { if (state) draw(); }).catch(() => {});
  connect();
}

function connect() {
  if (ws && ws.readyState <= WebSocket.OPEN && !ws.fatal) return;     // connecting or open already
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const sock = ws = new WebSocket(`${proto}://${location.host}/ws/${tableId}`);
  sock.onopen = () => { retry = 0; reclaimed = new Set(); sock.send(JSON.stringify({ type: "hello", tokens: tokens() })); };
  sock.onmessage = (e) => receive(JSON.parse(e.data));
  sock.onclose = () => {
    if (sock !== ws || sock.fatal) return;
    busy = false;
    lost = true;
    say(t("Connection lost: reconnecting…"));
    if (state) draw();
    setTimeout(connect, Math.min(5000, 300 * 2 ** retry++));
  };
}

function online() { return ws && ws.readyState === WebSocket.OPEN; }

function send(msg) {
  if (online()) { ws.send(JSON.stringify(msg)); return true; }
  say(t("Not connected, so that did not reach the table: reconnecting…"));
  lost = true;
  retry = 0;
  connect();
  return false;
}

function move(msg) {
  // a move: one at a time, stamped with the state it was made on
  if (busy || !state) return;
  if (send({ ...msg, seq: state.seq })) { busy = true; draw(); }
}

function say(text) { $("message").textContent = text; }

function announce(text) {
  // the live region: other players' moves, rolls and results for screen readers
  if (text) $("announce").textContent = text;
}

function receive(msg) {
  if (msg.type === "error") {
    busy = false;
    const text = fromServer(msg.message);
    if (!$("sit").hidden && !msg.fatal) { $("sit-error").textContent = text; return; }
    say(text);
    if (msg.fatal) gone(text);
    else if (state) draw();
    return;
  }
  if (msg.type === "seated") {
    store.set(`yacht.seats.${tableId}`, [...tokens(), msg.token]);
    history.replaceState(null, "", `/t/${tableId}`);
    invited = null;
    show("table");
    send({ type: "hello", tokens: tokens() });
    return;
  }
  if (msg.type !== "state") return;
  const before = state;
  if (before && (msg.game !== before.game || msg.moves !== before.moves || msg.turn !== before.turn)) {
    // after a re-roll the dice are sorted again: the dice kept stay Held, wherever they now sit
    const kept = msg.game === before.game && msg.turn === before.turn && msg.dice.length && before.dice.length
      ? before.dice.filter((_, i) => held.has(i)) : [];
    held = new Set();
    msg.dice.forEach((f, i) => { const k = kept.indexOf(f); if (k >= 0) { kept.splice(k, 1); held.add(i); } });
    if (!msg.rolls_left) held = new Set();               // no roll left: nothing to hold for
    picked = null;
  }
  if (!before || msg.seq !== before.seq) busy = false;
  if (before && msg.game === before.game && msg.moves > before.moves && msg.log.length && "dice" in msg.log[msg.log.length - 1]) {
    settled = performance.now() + SETTLE;
    setTimeout(() => { if (state) draw(); }, SETTLE + 20);
    rolled();
  }
  state = msg;
  if (lost && msg.seats.some((s) => s.you)) { lost = false; say(t("Connected again: play on.")); }
  else if (before && msg.seq !== before.seq) say("");
  if (before && (msg.moves !== before.moves || msg.game !== before.game)) {
    const others = msg.log.length && !msg.seats[msg.log[msg.log.length - 1].seat].you;
    if (msg.result && !before.result) announce(resultTitle(msg));
    else if (others || msg.game !== before.game) announce(lastMove(msg));
  }
  if (before && msg.result && msg.game === before.game && (msg.rematch || []).length > (before.rematch || []).length) {
    announce(t("{name} asks for a rematch", { name: names(msg)[msg.rematch[msg.rematch.length - 1]] }));
  }
  msg.seats.forEach((x, i) => {       // back from away (a phone that slept): take the seat back from the CPU
    if (x.you && x.taken && !reclaimed.has(i)) { reclaimed.add(i); send({ type: "reclaim", seat: i }); }
  });
  const mine = msg.seats.some((s) => s.you);
  if (invited && !mine && msg.free) { sitForm(); return; }
  if (invited && !mine && !msg.free) {
    invited = null;
    history.replaceState(null, "", `/t/${tableId}`);
    $("role").textContent = t("Every seat was taken before you arrived: you are watching this table.");
    watchingLate = true;
  }
  show("table");
  draw();
}

function sitForm() {
  show("sit");
  if (!$("sit-name").value) $("sit-name").value = store.get("yacht.name", "");
  $("sit-form").onsubmit = (e) => {
    e.preventDefault();
    store.set("yacht.name", $("sit-name").value.trim());
    $("sit-error").textContent = "";
    send({ type: "sit", invite: invited, name: $("sit-name").value });
  };
  $("just-watch").onclick = (e) => { e.preventDefault(); invited = null; history.replaceState(null, "", `/t/${tableId}`); show("table"); draw(); };
}

function gone(text) {
  // an unknown or expired table: nothing to play, a way back
  fatal = true;
  if (ws) ws.fatal = true;
  if (!$("sit").hidden) { $("sit-error").textContent = text; }
  show("table");
  $("turn").textContent = t("This table is not here");
  say(t("{why}: the link may be old, or the table was closed.", { why: text }));
  for (const id of ["roll", "confirm", "undo", "done", "invite", "view-link"]) $(id).disabled = true;
  $("dice").replaceChildren();
  $("sheet").replaceChildren();
  $("gone").hidden = false;
  $("role").textContent = "";
}

function myTurn() {
  return !!state && !fatal && state.turn !== null && state.seats[state.turn].you && !state.free;
}

function names(s) {
  return s.seats.map((x) => x.name || t("(free seat)"));
}

function turnText(s) {
  const n = names(s);
  if (s.result) return t("Game over");
  if (s.free) return t("Waiting for someone to take the free seat");
  if (!s.seats[s.turn].you) return t("{name}'s turn", { name: n[s.turn] });
  return s.seats.filter((x) => x.you).length > 1 ? t("{name}'s turn (pass the device)", { name: n[s.turn] }) : t("Your turn");
}

function draw() {
  const s = state;
  if (!performance.getEntriesByName("table-drawn").length) performance.mark("table-drawn");   // bench.py web
  const focus = focused();
  const n = names(s);
  $("where").textContent = `${s.rules.name} · ${s.daily ? t("the deal of {day}", { day: s.daily }) : t("game {n}", { n: s.game })}`;
  $("table-title").textContent = t("Yacht table: {rules}, game {n}", { rules: s.rules.name, n: s.game });
  $("turn").textContent = turnText(s);
  const mine = s.seats.some((x) => x.you);
  if (!mine && !watchingLate) $("role").textContent = t("You are watching this table.");
  else if (mine) { $("role").textContent = ""; watchingLate = false; }
  $("invite").hidden = !(s.invite && s.free);
  $("view-link").disabled = false;
  const up = online();
  drawDice($("dice"), s.dice, held, countingFor(picked), up && myTurn() && s.phase === "decide" && s.rolls_left > 0, s.dice_count);
  const canRoll = up && !busy && myTurn() && (s.phase === "roll" || (s.phase === "decide" && s.rolls_left > 0));
  $("roll").disabled = !canRoll || performance.now() < settled;
  $("roll").textContent = s.phase === "decide" ? t("Roll ({n} left)", { n: s.rolls_left }) : t("Roll");
  const mover = s.turn !== null && s.turn !== undefined ? s.sheets[s.seats[s.turn].sheet] : null;
  $("rolls-left").hidden = !(s.rules.saved_rolls && mover);       // rules with saved rolls: say how many are left
  if (s.rules.saved_rolls && mover) {
    $("rolls-left").textContent = mover.saved ? t("Rolls left {n} ({saved} saved)", { n: s.rolls_left, saved: mover.saved })
      : t("Rolls left {n}", { n: s.rolls_left });
  }
  $("confirm").disabled = !(up && !busy && myTurn() && picked);
  $("confirm").textContent = picked ? t("Score {box} ({points})", { box: label(picked.split("@")[0]), points: s.preview[picked] }) : t("Score");
  const myUndo = s.undo !== null && s.seats[s.undo].you;
  $("undo").disabled = !(up && !busy && myUndo);
  $("done").hidden = !(myUndo && s.turn !== null && s.seats[s.turn].cpu);
  $("done").disabled = !up;
  $("last").textContent = s.preparing !== null && s.preparing !== undefined
    ? t("{name} is getting ready (the first game under these rules can take a while)", { name: n[s.preparing] }) : lastMove(s);
  drawExtras(s, n, mine);
  $("commitment").textContent = s.result && s.result.seed !== undefined
    ? t("The dice came from seed {seed}; its hash {hash} was shown before the first roll. The analysis board checks every roll against it.", { seed: s.result.seed, hash: s.commitment })
    : t("The dice of this game are fixed before the first roll: hash {hash} (the seed is shown at the end).", { hash: s.commitment });
  drawSheet($("sheet"), s, n, true);
  document.documentElement.style.setProperty("--bar", `${document.querySelector("#table .bar").offsetHeight}px`);
  const wrap = $("sheet").parentElement;
  $("sheet-hint").hidden = wrap.scrollWidth <= wrap.clientWidth + 1;     // columns cut off: say so
  drawResult(s, n);
  restore(focus);
}

let lastFocus = null;     // the control last focused on the table, for when a redraw or a disabling drops the focus

function selectorOf(a) {
  if (!a || a === document.body) return null;
  if (a.id) return `#${a.id}`;
  if (a.dataset && a.dataset.index !== undefined && a.closest("#dice")) return `#dice [data-index="${a.dataset.index}"]`;
  if (a.dataset && a.dataset.box) return `#sheet [data-box="${a.dataset.box}"]`;
  return null;
}

let reactionSeen = -1, wasMyTurn = false;

function drawExtras(s, n, mine) {
  // start now with CPUs, reactions, the turn alert (the title, and a sound when switched on)
  $("start-now").hidden = !(s.free && mine && menu);
  if (menu && !$("fill-cpu").options.length) {
    for (const c of menu.cpus) { const o = el("option", null, t(c.label)); o.value = c.id; $("fill-cpu").append(o); }
    $("fill-cpu").value = menu.cpus.some((c) => c.id === "normal") ? "normal" : menu.cpus[0].id;
    fitCpus($("fill-cpu"), s.rules.name);
  }
  const buttons = $("react-buttons");
  buttons.hidden = !mine || !menu;
  if (menu && menu.reactions && !buttons.children.length) {
    menu.reactions.forEach((p, i) => {
      const b = el("button", "react", t(p));
      b.type = "button";
      b.addEventListener("click", () => {
        // the seat to react from: the one to move when it is ours (pass and play), else our first
        const seat = state.turn !== null && state.seats[state.turn].you ? state.turn : state.seats.findIndex((x) => x.you);
        if (seat >= 0) send({ type: "react", seat, phrase: i });
      });
      buttons.append(b);
    });
  }
  const fresh = (s.reactions || []).filter((r) => r.n > reactionSeen);
  if (fresh.length) {
    reactionSeen = fresh[fresh.length - 1].n;
    $("reaction-log").replaceChildren(...s.reactions.slice(-3).map((r) => el("li", null, `${n[r.seat]}: ${t(r.phrase)}`)));
  }
  const mineNow = myTurn();
  document.title = mineNow ? t("Your turn · Yacht") : s.result ? t("Game over · Yacht") : t("Yacht tables");
  if (mineNow && !wasMyTurn && $("sound").checked) beep();
  wasMyTurn = mineNow;
}

let audio = null;

function beep() {
  // a short generated tone: no sound file to load
  try {
    audio = audio || new AudioContext();
    const o = audio.createOscillator(), g = audio.createGain();
    o.frequency.value = 660;
    g.gain.value = 0.08;
    o.connect(g).connect(audio.destination);
    o.start();
    o.stop(audio.currentTime + 0.15);
  } catch (e) { /* no audio here */ }
}

function focused() {
  // what has the keyboard focus, to give it back after a redraw replaced the element
  const a = document.activeElement;
  return a && a !== document.body ? selectorOf(a) : lastFocus;
}

function restore(sel) {
  if (!sel || (document.activeElement && document.activeElement !== document.body)) return;
  const e = document.querySelector(sel);
  if (e && !e.hidden && !e.disabled) e.focus({ preventScroll: true });
}

function countingFor(key) {
  return key && state.counting[key] ? state.counting[key] : null;
}

const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

// `count`: how many dice the rules roll (blank dice stand for them before the first roll)
function drawDice(box, dice, heldSet, counting, active, count) {
  const faces = dice.length ? dice : Array(count).fill(0);
  box.classList.toggle("many", faces.length > 5);      // six dice: the held ring goes inside, clear of its neighbours
  box.replaceChildren(...faces.map((f, i) => {
    const b = el("button", "die");
    b.type = "button";
    b.dataset.index = String(i);
    if (!f) { b.classList.add("blank"); b.disabled = true; b.setAttribute("aria-label", t("die {n}: not rolled yet", { n: i + 1 })); return b; }
    const grid = el("span", "pips");
    grid.setAttribute("aria-hidden", "true");
    for (let k = 0; k < 9; k++) grid.append(el("span", PIPS[f].includes(k) ? "pip on" : "pip"));
    b.append(grid);
    const isHeld = heldSet.has(i);
    if (isHeld) b.classList.add("held");
    if (counting && !counting[i]) b.classList.add("faded");
    b.append(el("span", "tag", isHeld ? t("Held") : ""));
    b.setAttribute("aria-pressed", String(isHeld));
    const name = counting && !counting[i] ? t("die {n}: {face}, does not count", { n: i + 1, face: f }) : t("die {n}: {face}", { n: i + 1, face: f });
    b.setAttribute("aria-label", isHeld ? `${name}, ${t("Held")}` : name);     // the name holds the visible tag
    b.disabled = !active;
    b.addEventListener("click", () => toggle(i));
    return b;
  }));
}

function rolled() {
  // the dice tumble a moment (none under prefers-reduced-motion: the stylesheet turns it off)
  const d = $("dice");
  d.classList.remove("rolling");
  void d.offsetWidth;
  d.classList.add("rolling");
}

function toggle(i) {
  if (!(myTurn() && state.phase === "decide" && state.rolls_left > 0)) return;
  if (held.has(i)) held.delete(i); else held.add(i);
  draw();
}

function roll() {
  if (!state || fatal) return;
  if (!online()) { send({ type: "roll" }); draw(); return; }
  const s = state;
  if (!myTurn() && s.undo !== null && s.seats[s.undo].you && s.turn !== null && s.seats[s.turn].cpu) { playOn(); return; }
  if ($("roll").disabled) return;
  if (s.phase === "decide" && held.size === s.dice_count) {     // seed 000: holding every die means ready to score
    say(t("You are holding every die: you are ready to score. Pick a box."));
    return;
  }
  move({ type: "roll", seat: s.turn, hold: s.phase === "decide" ? [...held].sort() : [] });
}

function playOn() {
  // the person who just scored lets the CPU go on at once (else it waits the table's undo time)
  if (state && state.undo !== null) send({ type: "done", seat: state.undo });
}

function undo() {
  if (!state || state.undo === null || $("undo").disabled) return;
  move({ type: "undo", seat: state.undo });
}

function pick(key) {
  if (!myTurn() || !(key in state.preview)) return;
  if (picked === key) { confirm(); return; }   // a second tap on the same box scores it (seed 000)
  picked = key;
  draw();
}

function confirm() {
  if (!picked || !myTurn() || busy) return;
  const [box, col] = picked.split("@");
  move({ type: "score", seat: state.turn, box, column: Number(col) });
}

function lastMove(s) {
  const e = s.log[s.log.length - 1];
  if (s.roll_off.length && s.moves <= 2) {            // the roll-off for the first turn, while it is news
    const first = s.roll_off[0].map((f, i) => `${s.seats[i].name} ${f}`).join(", ");
    const more = s.roll_off.slice(1).map((r) => r.join(", ")).join(`; ${t("then")} `);
    return t("Roll-off: {rolls}; {name} starts", { rolls: first + (more ? `; ${t("then")} ${more}` : ""), name: s.seats[s.first_seat].name });
  }
  if (!e) return "";
  const who = s.seats[e.seat].name;
  if ("dice" in e) return t("{name} rolled {dice}", { name: who, dice: e.dice.join(" ") });
  return e.bonus ? t("{name} scored {points} in {box} (+{bonus} bonus)", { name: who, points: e.points, box: label(e.box), bonus: e.bonus })
    : t("{name} scored {points} in {box}", { name: who, points: e.points, box: label(e.box) });
}

function sheetHeads(s, n) {
  // one column per sheet: the names of the seats writing on it, with their presence
  return s.sheets.map((_, k) => s.seats.map((x, i) => [x, i]).filter(([x]) => x.sheet === k).map(([x, i]) => {
    let h = n[i];
    if (x.taken) h += ` ${t("(CPU playing)")}`;
    else if (x.online === false && !x.cpu && x.name && !x.you) h += ` ${t("(away)")}`;
    if (x.you && !x.taken && s.seats.filter((y) => y.you).length === 1) h += ` ${t("(you)")}`;
    return h;
  }).join(" + "));
}

function drawSheet(grid, s, n, live) {
  const heads = sheetHeads(s, n);
  const turnSheet = s.turn !== null && s.turn !== undefined ? s.seats[s.turn].sheet : -1;
  const thead = el("thead"), hr = el("tr");
  const corner = el("th", null, t("Box"));
  corner.scope = "col";
  hr.append(corner);
  heads.forEach((h, k) => {
    const th = el("th", k === turnSheet ? "now" : null, h);
    th.scope = "col";
    const saved = s.rules.saved_rolls && s.sheets[k].saved !== undefined ? s.sheets[k].saved : null;
    if (saved !== null) th.append(" ", el("span", "saved", t("{n} saved", { n: saved })));
    if (k === turnSheet) th.setAttribute("aria-current", "true");
    hr.append(th);
  });
  thead.append(hr);
  const body = el("tbody");
  const cols = s.rules.columns;
  for (let c = 0; c < cols; c++) {
    s.rules.boxes.forEach((b, bi) => {
      const tr = el("tr", bi === s.rules.upper.lastIndexOf(true) ? "split" : null);
      const th = el("th", null, label(b) + (cols > 1 ? ` (${c + 1})` : ""));
      th.scope = "row";
      tr.append(th);
      s.sheets.forEach((sh, k) => {
        const v = sh.scores[c][bi];
        const key = `${b}@${c}`;
        const td = el("td");
        if (v >= 0) td.textContent = String(v);
        else if (live && k === turnSheet && key in s.preview) {
          const btn = el("button", "preview" + (picked === key ? " picked" : ""), String(s.preview[key]));
          btn.type = "button";
          btn.dataset.box = key;
          btn.disabled = !myTurn();
          btn.setAttribute("aria-label", picked === key ? t("{box}: score {points}, picked", { box: label(b), points: s.preview[key] }) : t("{box}: score {points}", { box: label(b), points: s.preview[key] }));
          btn.addEventListener("click", () => pick(key));
          btn.addEventListener("mouseenter", () => { if (myTurn()) drawDice($("dice"), s.dice, held, countingFor(key), true, s.dice_count); });
          btn.addEventListener("mouseleave", () => { if (myTurn()) drawDice($("dice"), s.dice, held, countingFor(picked), true, s.dice_count); });
          td.append(btn);
        } else td.textContent = "";
        tr.append(td);
      });
      body.append(tr);
    });
  }
  const foot = [["Upper", (sh) => sh.upper.reduce((a, b) => a + b, 0) + ` / ${s.rules.upper_threshold * cols}`],
    ["Upper bonus", (sh) => sh.upper_bonus.reduce((a, b) => a + b, 0)],
    ["Extra Yachts", (sh) => sh.extra_bonus.reduce((a, b) => a + b, 0)], ["Total", (sh) => sh.total]];
  for (const [name, f] of foot) {
    if (name === "Upper bonus" && !s.rules.upper_bonus) continue;
    const tr = el("tr", name === "Total" ? "total" : "sum");
    const th = el("th", null, t(name));
    th.scope = "row";
    tr.append(th);
    s.sheets.forEach((sh) => tr.append(el("td", null, f(sh))));
    body.append(tr);
  }
  grid.replaceChildren(thead, body);
}

function resultTitle(s) {
  const r = s.result, n = names(s);
  const winners = r.winners.map((i) => n[i]);
  return s.solo ? t("You scored {total}", { total: r.totals[0] })
    : winners.length === s.seats.length ? t("A shared win for everyone") : winners.length > 1 ? t("Shared win: {names}", { names: winners.join(t(" and ")) })
      : t("{name} wins", { name: winners[0] });
}

function drawResult(s, n) {
  const box = $("result");
  box.hidden = !s.result;
  if (!s.result) return;
  const r = s.result;
  $("result-title").textContent = resultTitle(s);
  const order = s.seats.map((_, i) => i).sort((a, b) => r.places[a] - r.places[b]);
  $("standings").replaceChildren(...order.map((i) => {
    const tb = r.tiebreak[String(s.seats[i].sheet)];
    return el("li", null, `${r.places[i]}. ${n[i]}: ${r.totals[i]}${tb ? ` ${t("(roll-off {rolls})", { rolls: tb.join(", ") })}` : ""}`);
  }));
  const mine = s.seats.some((x) => x.you);
  $("rematch").hidden = !mine;
  $("rematch").disabled = !online();
  // a rematch asks the other people at the table; it starts when everyone here has asked
  const asked = s.rematch || [];
  const people = s.seats.map((x, i) => i).filter((i) => !s.seats[i].cpu || s.seats[i].taken);
  const mineAsked = s.seats.every((x, i) => !x.you || asked.includes(i));
  const waiting = people.filter((i) => !asked.includes(i) && !s.seats[i].you).map((i) => n[i]);
  $("rematch").textContent = !asked.length ? t("Rematch")
    : mineAsked ? t("Rematch: waiting for {names}", { names: waiting.join(", ") || t("the others") })
      : t("Accept {names}'s rematch", { names: asked.map((i) => n[i]).join(t(" and ")) });
  $("analysis-link").hidden = !r.stored;
  $("daily-rank").hidden = !s.daily;
  if (s.daily) $("daily-rank").href = `/daily?rules=${encodeURIComponent(s.rules.name)}&day=${s.daily}`;
  if (r.stored) $("analysis-link").href = `/game/${r.stored}`;
  yourLevel(s, r.stored);
  if (!s.solo || !mine) { $("best").textContent = ""; return; }
  if (s.seats[0].helped) { $("best").textContent = t("A CPU played part of this game for you, so it does not count as a best score."); return; }
  const key = `yacht.best.${s.rules.hash}`, game = `${s.table}/${s.game}`;
  if (!bestNote || bestNote.game !== game) {
    // worked out once per game, so "New best!" stays up however often the table is drawn again
    const before = store.get(key, null);
    const total = r.totals[0];
    const fresh = before === null || (before.table === s.table && before.game === s.game);
    if (fresh || total > before.score) store.set(key, { score: Math.max(total, before && !fresh ? before.score : 0), table: s.table, game: s.game });
    const now = store.get(key, null).score;
    bestNote = { game, server: null, text: !fresh && total > before.score
      ? t("New best on this device under {rules}! (was {was})", { rules: s.rules.name, was: before.score })
      : t("Best on this device under {rules}: {best}", { rules: s.rules.name, best: now }) };
  }
  let text = bestNote.text;
  if (bestNote.server !== null) text += ` · ${t("{name}'s best on this server: {best}", { name: s.seats[0].name, best: bestNote.server })}`;
  else if (r.stored && !bestNote.asked) {
    bestNote.asked = true;
    const note = bestNote;
    fetch(`/api/best?rules=${encodeURIComponent(s.rules.hash)}&name=${encodeURIComponent(s.seats[0].name)}`)
      .then((res) => res.json()).then((doc) => { if (doc.best) { note.server = doc.best.score; if (state) draw(); } })
      .catch(() => {});
  }
  $("best").textContent = text;
}

function copy(text, what) {
  const done = () => { $("copied").textContent = t("{what} copied: {text}", { what, text }); };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, done);
  else done();
}

function keys(e) {
  if ($("table").hidden || e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA" || e.target.tagName === "SELECT") {
    if (!$("board").hidden) boardKeys(e);
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key >= "1" && e.key <= String(state ? state.dice_count : 0)) { if (!e.repeat) toggle(Number(e.key) - 1); }
  else if (e.key === "r" || e.key === "R") { if (!e.repeat) roll(); }     // a held key rolls once
  else if (e.key === "u" || e.key === "U") { if (!e.repeat) undo(); }
  else if (e.key === "Enter" && picked && e.target.tagName !== "BUTTON") { if (!e.repeat) confirm(); }
  else return;
  e.preventDefault();
}

// ---- the analysis board ----------------------------------------------------------------------------
// `at` counts the log entries played on the board; a decision is shown as the position it was made in
// (the dice and the sheets just before it), with the move played, the best move and what each was worth.
let board = null, at = 0, decisionAt = new Map();

const MARK_WORDS = { inaccuracy: "an inaccuracy", mistake: "a mistake", blunder: "a blunder" };   // catalogue entries

function said(move) {
  // "hold 5 5" / "score twos" as a player reads it
  if (move.startsWith("hold")) { const kept = move.slice(5).trim(); return kept ? t("keep {dice} and roll again", { dice: kept }) : t("roll all the dice again"); }
  if (move.startsWith("score ")) return t("score {box}", { box: label(move.slice(6).split("@")[0]) });
  return move;
}

async function analysisBoard(api, folder) {
  show("board");
  $("board-dice-check").hidden = !folder;
  $("dice-verdict").textContent = "";
  $("check-dice").onclick = () => checkDice(folder);
  $("board-title").textContent = t("Analysing…");
  let res;
  try { res = await fetch(api); board = await res.json(); } catch (e) { board = { error: t("The analysis could not be loaded.") }; res = { ok: false }; }
  if (!res.ok) { $("board-title").textContent = fromServer(board.error); return; }
  const rec = board.record;
  $("where").textContent = `${board.rules.name} · ${t("analysis")}`;
  $("board-title").textContent = t("Analysis board: {names}", { names: rec.agents.join(", ") });
  $("board-help").textContent = t("Every decision is checked against the exact solver. Accuracy is the share of the best expected score a player kept; points lost add up what each decision cost on average. ?! marks an inaccuracy (0.5 to 2 expected points lost), ? a mistake (2 to 5), ?? a blunder (5 or more). Pick a move to see the position it was made in.");
  const head = el("tr");
  for (const h of ["Player", "Total", "Accuracy", "Points lost", "Inaccuracies ?!", "Mistakes ?", "Blunders ??"]) {
    const th = el("th", null, t(h)); th.scope = "col"; head.append(th);
  }
  const rows = board.seats.map((x) => {
    const tr = el("tr");
    for (const v of [x.agent, rec.totals[x.seat], x.accuracy === null ? "–" : `${x.accuracy.toFixed(1)}%`, x.loss.toFixed(2), x.inaccuracies, x.mistakes, x.blunders]) tr.append(el("td", null, v));
    return tr;
  });
  $("board-seats").replaceChildren(el("thead"), el("tbody"));
  $("board-seats").tHead.append(head);
  $("board-seats").tBodies[0].append(...rows);
  drawLevels(board);
  decisionAt = new Map(board.decisions.map((d) => [d.move, d]));
  $("board-moves").replaceChildren(...rec.log.map((e, i) => {
    const li = el("li", "move");
    const who = rec.agents[e.seat];
    const dec = decisionAt.get(i);          // the decision this entry plays (a hold and re-roll, or a box)
    const roll = "dice" in e ? e.dice.join(" ") : "";
    const b = el("button", "step");
    b.type = "button";
    b.append(el("span", null, !roll ? `${who}: ${label(e.box)} ${e.points}${e.bonus ? ` +${e.bonus}` : ""}`
      : dec ? `${who}: ${said(dec.played)} → ${roll}` : t("{name} rolls {dice}", { name: who, dice: roll })));
    if (dec) {
      const mark = el("span", `mark ${dec.class}`, dec.mark || "");
      if (dec.mark) mark.title = t(MARK_WORDS[dec.class]);
      b.append(mark, el("span", "verdict", dec.loss > 0 ? t("best: {move} (−{loss})", { move: said(dec.best), loss: dec.loss.toFixed(2) }) : "✓"));
    }
    b.addEventListener("click", () => { at = dec ? i : i + 1; replay(); });   // a decision: the position before it
    li.append(b);
    return li;
  }));
  at = rec.log.length;
  replay();
}

// ---- your level: a person's game placed on the strength dial (the server's `level` per person seat) ----
// kept per rule set: {game, rules (the preset's name), strength}, the last LEVELS_KEPT games of each rule set
const LEVELS_KEY = "yacht.levels", LEVELS_KEPT = 5, LEVELS_RULES = 20;
const LEVEL_NAMES = { easy: "Easy", normal: "Normal", strong: "Strong" };
const levelName = (k) => t(LEVEL_NAMES[k] || k);

function levelWords(x) {
  // "strength 0.72 (likely 0.57 to 0.76), between Normal and Strong"
  const lv = Object.entries(x.levels).sort((a, b) => a[1] - b[1]);
  const below = lv.filter(([, v]) => v <= x.strength + 1e-9), above = lv.filter(([, v]) => v > x.strength + 1e-9);
  const where = !below.length ? t("below {level}", { level: levelName(above[0][0]) })
    : !above.length ? t("as {level} plays", { level: levelName(below[below.length - 1][0]) })
      : t("between {low} and {high}", { low: levelName(below[below.length - 1][0]), high: levelName(above[0][0]) });
  return t("strength {s} (likely {low} to {high}), {where}", { s: x.strength.toFixed(2), low: x.low.toFixed(2), high: x.high.toFixed(2), where });
}

function drawLevels(doc) {
  const placed = doc.seats.filter((x) => x.level);
  $("board-levels").hidden = !placed.length;
  if (!placed.length) return;
  $("board-level-list").replaceChildren(...placed.map((x) => el("li", null, t("{name} played like {level}.", { name: x.agent, level: levelWords(x.level) }))));
  const lv = placed[0].level.levels;
  const scale = Object.entries(lv).map(([k, v]) => `${levelName(k)} ${v.toFixed(2)}`).join(", ");
  $("board-level-help").textContent = t("The strength dial runs from 0 (random-like) to 1 (the best play); the CPU levels sit at {scale}. The strength is the dial setting that loses as many expected points per decision as this game did ({loss} over {n} decisions); the range is where 95% of games of that length would place it, so one game is a rough guide and several narrow it.", { scale, loss: placed[0].level.loss_per_decision.toFixed(2), n: placed[0].level.decisions });
}

function keptLevels() {
  const kept = store.get(LEVELS_KEY, []);
  return Array.isArray(kept) ? kept.filter((k) => k && typeof k.rules === "string" && typeof k.strength === "number" && k.strength >= 0 && k.strength <= 1) : [];
}

function myLevel(rules) {
  // the mean strength of the last games played on this device under `rules` (a preset's name), or null
  const xs = keptLevels().filter((k) => k.rules === rules).map((k) => k.strength);
  return xs.length ? Math.round(100 * xs.reduce((a, b) => a + b, 0) / xs.length) / 100 : null;
}

function fitCpus(select, rules) {
  // the CPUs that cannot play `rules` (a preset's name) stay listed, greyed out and saying so; a seat set to
  // one of them moves to the first that can
  const unable = (menu.unable && menu.unable[rules]) || {};
  for (const o of select.options) {
    if (!o.dataset.label) o.dataset.label = o.textContent;
    const off = (o.value === "mine" ? "dial" : o.value) in unable;
    o.disabled = off;
    o.textContent = off ? t("{cpu} (cannot play {rules})", { cpu: o.dataset.label, rules }) : o.dataset.label;
  }
  if (select.selectedOptions[0] && select.selectedOptions[0].disabled) {
    const first = [...select.options].find((o) => !o.disabled);
    if (first) select.value = first.value;
  }
  select.dispatchEvent(new Event("change"));
}

function offerMyLevel(select) {
  // a lobby CPU menu offers "A CPU at your level" only when this device has a level under the rules picked
  const yours = myLevel($("rules").value);
  let o = select.querySelector('option[value="mine"]');
  if (yours === null) {
    if (o) { if (select.value === "mine") select.value = menu.cpus.some((c) => c.id === "normal") ? "normal" : menu.cpus[0].id; o.remove(); }
    return;
  }
  if (!o) { o = el("option"); o.value = "mine"; select.append(o); }
  o.textContent = o.dataset.label = t("A CPU at your level ({s})", { s: yours.toFixed(2) });
}

function keepLevels(folder, rules, strengths) {
  // the game's placements kept under its rules: the last LEVELS_KEPT of each rule set, LEVELS_RULES rule sets
  const kept = keptLevels().filter((k) => k.game !== folder);
  for (const strength of strengths) kept.push({ game: folder, rules, strength });
  const sets = [...new Set(kept.map((k) => k.rules).reverse())].slice(0, LEVELS_RULES);
  const keep = new Set(sets.flatMap((r) => kept.filter((k) => k.rules === r).slice(-LEVELS_KEPT)));
  store.set(LEVELS_KEY, kept.filter((k) => keep.has(k)));
}

let levelAsked = null;
function yourLevel(s, folder) {
  // once per stored game of this device's people: the analysis's placement, kept for the lobby's "CPU at your level"
  if (!folder || !s.seats.some((x) => x.you && !x.cpu) || levelAsked === folder) { if (!folder) $("your-level").textContent = ""; return; }
  levelAsked = folder;
  $("your-level").textContent = "";
  fetch(`/api/games/${encodeURIComponent(folder)}`).then((res) => (res.ok ? res.json() : null)).then((doc) => {
    if (!doc || levelAsked !== folder) return;
    const mine = doc.seats.filter((x) => x.level && s.seats[x.seat] && s.seats[x.seat].you);
    if (!mine.length) return;
    keepLevels(folder, s.rules.name, mine.map((x) => x.level.strength));
    $("your-level").textContent = mine.map((x) => t("{name} played like {level}.", { name: x.agent, level: levelWords(x.level) })).join(" ");
  }).catch(() => {});
}

async function checkDice(folder) {
  // the server replays every roll of the stored game from its revealed seed (`yacht verify` does the same)
  $("dice-verdict").textContent = t("Checking…");
  try {
    const doc = await (await fetch(`/api/games/${encodeURIComponent(folder)}/dice`)).json();
    $("dice-verdict").textContent = doc.error ? fromServer(doc.error) : doc.problem
      ? t("The dice do not match: {problem}.", { problem: doc.problem })
      : t("Every roll matches seed {seed}, whose hash {hash}… was shown before the first roll.", { seed: doc.seed, hash: doc.commitment.slice(0, 16) });
  } catch (e) { $("dice-verdict").textContent = t("The check could not be loaded."); }
}

function replay() {
  const rec = board.record;
  at = Math.max(0, Math.min(rec.log.length, at));
  const n = rec.agents.length, sheetOf = rec.sheet_of, boxes = board.layout.boxes, cols = board.layout.columns;
  const sheets = [...new Set(sheetOf)].map(() => ({ scores: Array.from({ length: cols }, () => boxes.map(() => -1)), upper: [0], upper_bonus: [0], extra_bonus: [0], total: 0 }));
  let dice = [], who = null;
  rec.log.slice(0, at).forEach((e) => {
    who = e.seat;
    if ("dice" in e) { dice = e.dice; return; }
    const sh = sheets[sheetOf[e.seat]];
    sh.scores[e.column][boxes.indexOf(e.box)] = e.points;
    sh.total += e.points + e.bonus;             // the dice stay: the ones the box was scored with
  });
  const next = rec.log[at], dec = decisionAt.get(at);
  const fake = { turn: dec ? dec.seat : null, seats: rec.agents.map((a, i) => ({ name: a, sheet: sheetOf[i] })), sheets, preview: {},
    rules: { boxes, columns: cols, upper: boxes.map(() => false), upper_threshold: 0, upper_bonus: 0 } };
  drawSheet($("board-sheet"), fake, rec.agents.slice(0, n), false);
  $("board-sheet").querySelectorAll("tr.sum").forEach((r) => r.remove());
  const kept = new Set();
  if (dec && next && "dice" in next) for (let k = 0; k < board.layout.dice; k++) if (next.hold & (1 << k)) kept.add(k);
  drawDice($("board-dice"), dec ? dec.dice : dice, kept, null, false, board.layout.dice);
  $("board-pos").textContent = ` ${at} / ${rec.log.length} `;
  const e = rec.log[at - 1];
  if (dec) {
    const worth = (v) => v.toFixed(1);
    const verdict = dec.loss > 0
      ? `${dec.mark ? `${dec.mark} ${t(MARK_WORDS[dec.class])}: ` : ""}${t("best was to {best}, expected final score {value} against {played} ({loss} points lost).", { best: said(dec.best), value: worth(dec.best_value), played: worth(dec.played_value), loss: dec.loss.toFixed(2) })}`
      : t("the best move (expected final score {value}).", { value: worth(dec.best_value) });
    $("board-move").textContent = (dec.rolls_left === 1 ? t("{name} to play, {n} roll left: chose to {move}; {verdict}", { name: rec.agents[dec.seat], n: 1, move: said(dec.played), verdict })
      : t("{name} to play, {n} rolls left: chose to {move}; {verdict}", { name: rec.agents[dec.seat], n: dec.rolls_left, move: said(dec.played), verdict }));
  } else {
    $("board-move").textContent = !e ? t("Start of the game") : "dice" in e ? t("{name} rolled {dice}", { name: rec.agents[who], dice: e.dice.join(" ") })
      : t("{name} scored {points} in {box}", { name: rec.agents[who], points: e.points, box: label(e.box) });
  }
  [...$("board-moves").children].forEach((li, i) => li.classList.toggle("at", dec ? i === at : i === at - 1));
}

function boardKeys(e) {
  if (e.key === "ArrowLeft") at--; else if (e.key === "ArrowRight") at++;
  else if (e.key === "Home") at = 0; else if (e.key === "End") at = 1e9; else return;
  e.preventDefault();
  replay();
}

// ---- watching a tournament --------------------------------------------------------------------------
function gameName(key) {
  // "t0-d3-r1" -> "Deal 4, seating 2" (and the table when there are several)
  const m = /^t(\d+)-d(\d+)-r(\d+)$/.exec(key);
  if (!m) return key;
  const [table, deal, seating] = [Number(m[1]) + 1, Number(m[2]) + 1, Number(m[3]) + 1];
  return table > 1 ? t("Table {table}, deal {deal}, seating {seating}", { table, deal, seating }) : t("Deal {deal}, seating {seating}", { deal, seating });
}

let watchPage = 0;
let watchPlaces = 0;     // the page of the standings (50 entrants a page)
let watchFocus = null;   // the pager button just pressed: it (or, at the last page, its twin) keeps the focus
const PAGER_TWIN = { "places-prev": "places-next", "places-next": "places-prev", "watch-prev": "watch-next", "watch-next": "watch-prev" };

function turnPage(id, go) {
  watchFocus = id;
  go();
}

async function watch(index, page, places) {
  show("watch");
  if (page !== undefined) watchPage = page;
  if (places !== undefined) watchPlaces = places;
  let res, doc;
  try { res = await fetch(`/api/watch/${encodeURIComponent(index)}?page=${watchPage}&standings=${watchPlaces}`); doc = await res.json(); } catch (e) { res = { ok: false }; doc = { error: t("The tournament could not be loaded.") }; }
  if (!res.ok) { $("watch-title").textContent = fromServer(doc.error); return; }
  $("watch-title").textContent = doc.name;
  $("where").textContent = `${doc.rules.name} · ${t("tournament")}`;
  $("watch-progress").textContent = t("{played} of {planned} games played", { played: doc.games_played, planned: doc.games_planned });
  const head = el("tr");
  for (const h of ["#", "Player", "Wins", "Draws", "Losses", "Score rate", "Mean"]) { const th = el("th", null, t(h)); th.scope = "col"; head.append(th); }
  const figures = $("watch-standings");
  figures.replaceChildren(el("thead"), el("tbody"));
  figures.tHead.append(head);
  figures.tBodies[0].append(...doc.standings.map((x) => {
    const tr = el("tr");
    for (const v of [x.rank, x.agent, x.wins, x.draws, x.losses, x.score_rate === null ? "–" : x.score_rate.toFixed(3), x.mean === null ? "–" : x.mean.toFixed(1)]) tr.append(el("td", null, v));
    return tr;
  }));
  watchPlaces = doc.standings_page;
  const placePages = Math.max(1, Math.ceil(doc.standings_listed / doc.standings_per_page));
  const first = doc.standings_page * doc.standings_per_page;
  $("watch-places").hidden = placePages <= 1;
  $("places-page").textContent = t("Places {first} to {last} of {count}", { first: first + 1, last: first + doc.standings.length, count: doc.standings_listed });
  $("places-prev").disabled = doc.standings_page <= 0;
  $("places-next").disabled = doc.standings_page >= placePages - 1;
  $("places-prev").onclick = () => turnPage("places-prev", () => watch(index, undefined, doc.standings_page - 1));
  $("places-next").onclick = () => turnPage("places-next", () => watch(index, undefined, doc.standings_page + 1));
  watchPage = doc.page;
  $("watch-games").replaceChildren(...doc.games.map((g) => {
    const li = el("li", "move");
    const a = el("a", null, `${gameName(g.key)}: ${g.agents.map((x, i) => `${x} ${g.totals[i]}`).join(" · ")}`);
    a.href = `/watch/${encodeURIComponent(index)}/${encodeURIComponent(g.key)}`;   // its analysis board
    li.append(a);
    return li;
  }));
  $("watch-games").start = doc.page * doc.per_page + 1;
  const pages = Math.max(1, Math.ceil(doc.games_listed / doc.per_page));
  $("watch-pager").hidden = pages <= 1;
  $("watch-page").textContent = t("Page {page} of {pages}", { page: doc.page + 1, pages });
  $("watch-prev").disabled = doc.page <= 0;
  $("watch-next").disabled = doc.page >= pages - 1;
  $("watch-prev").onclick = () => turnPage("watch-prev", () => watch(index, doc.page - 1));
  $("watch-next").onclick = () => turnPage("watch-next", () => watch(index, doc.page + 1));
  if (watchFocus) { const b = $(watchFocus); (b.disabled ? $(PAGER_TWIN[watchFocus]) : b).focus(); watchFocus = null; }
  if (doc.games_played < doc.games_planned && !$("watch").hidden) setTimeout(() => { if (!$("watch").hidden) watch(index); }, 3000);
}

// ---- the daily deal ---------------------------------------------------------------------------------
async function dailyPage(params) {
  show("daily");
  const rules = params.get("rules") || "yacht";
  const q = new URLSearchParams({ rules });
  if (params.get("day")) q.set("day", params.get("day"));
  let res, doc;
  try { res = await fetch(`/api/daily?${q}`); doc = await res.json(); } catch (e) { res = { ok: false }; doc = { error: t("The ranking could not be loaded.") }; }
  if (!res.ok) { $("daily-title").textContent = fromServer(doc.error); return; }
  $("where").textContent = `${doc.rules} · ${t("the deal of {day}", { day: doc.day })}`;
  $("daily-title").textContent = t("The deal of {day} ({rules})", { day: doc.day, rules: doc.rules });
  const head = el("tr");
  for (const h of ["#", "Player", "Points lost", "Accuracy", "Total"]) { const th = el("th", null, t(h)); th.scope = "col"; head.append(th); }
  const figures = $("daily-table");
  figures.replaceChildren(el("thead"), el("tbody"));
  figures.tHead.append(head);
  figures.tBodies[0].append(...doc.entries.map((x, i) => {
    const tr = el("tr");
    for (const v of [i + 1, x.cpu ? `${t(x.name)} (${t("CPU")})` : x.name, x.loss.toFixed(2), x.accuracy === null ? "–" : `${x.accuracy.toFixed(1)}%`, x.total]) tr.append(el("td", null, v));
    return tr;
  }));
}

// ---- routing ----------------------------------------------------------------------------------------
function route() {
  const parts = location.pathname.split("/").filter(Boolean);
  if (parts[0] === "t" && parts[1]) table(parts[1], new URLSearchParams(location.search).get("invite"));
  else if (parts[0] === "game" && parts[1]) analysisBoard(`/api/games/${encodeURIComponent(parts[1])}`, parts[1]);
  else if (parts[0] === "watch" && parts[2]) analysisBoard(`/api/watch/${encodeURIComponent(parts[1])}/${encodeURIComponent(parts[2])}`);
  else if (parts[0] === "watch" && parts[1]) watch(parts[1]);
  else if (parts[0] === "daily") dailyPage(new URLSearchParams(location.search));
  else lobby();
}

document.addEventListener("DOMContentLoaded", () => {
  translatePage();
  $("lang").value = LANG;
  $("lang").addEventListener("change", () => { store.set("yacht.lang", $("lang").value); location.reload(); });
  $("open").addEventListener("submit", openTable);
  $("play-daily").addEventListener("click", (e) => openTable(e, true));
  $("rules").addEventListener("change", () => { $("daily-link").href = `/daily?rules=${encodeURIComponent($("rules").value)}`; });
  $("add-person").addEventListener("click", () => addSeat("person", ""));
  $("add-cpu").addEventListener("click", () => addSeat("cpu"));
  $("roll").addEventListener("click", roll);
  $("confirm").addEventListener("click", confirm);
  $("undo").addEventListener("click", undo);
  $("done").addEventListener("click", playOn);
  $("fill").addEventListener("click", () => send({ type: "fill", cpu: $("fill-cpu").value }));
  $("sound").checked = store.get("yacht.sound", false);
  $("sound").addEventListener("change", () => store.set("yacht.sound", $("sound").checked));
  $("rematch").addEventListener("click", () => { if (state) send({ type: "rematch", seq: state.seq }); });
  $("invite").addEventListener("click", () => copy(`${location.origin}/t/${tableId}?invite=${state.invite}`, t("Invite link")));
  $("view-link").addEventListener("click", () => copy(`${location.origin}/t/${tableId}`, t("View link")));
  $("board-first").addEventListener("click", () => { at = 0; replay(); });
  $("board-prev").addEventListener("click", () => { at--; replay(); });
  $("board-next").addEventListener("click", () => { at++; replay(); });
  $("board-last").addEventListener("click", () => { at = 1e9; replay(); });
  document.addEventListener("keydown", keys);
  document.addEventListener("focusin", (e) => { if ($("table").contains(e.target)) lastFocus = selectorOf(e.target); });
  document.addEventListener("pointerdown", (e) => { if (!e.target.closest("button, a, input, select, textarea")) lastFocus = null; });
  // leaving the page closes its connection (a page kept in the back-forward cache would hold the seat);
  // coming back to it opens a fresh one
  window.addEventListener("pagehide", () => { if (ws) { ws.fatal = true; ws.close(); } });
  // a phone waking from sleep: its connection may have died unnoticed; open a fresh one at once
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && !$("table").hidden && !fatal && !online()) { retry = 0; connect(); }
  });
  window.addEventListener("pageshow", (e) => { if (e.persisted && !$("table").hidden && !fatal) { ws = null; connect(); } });
  window.addEventListener("popstate", () => { if (ws) { ws.fatal = true; ws.close(); ws = null; } state = null; route(); });
  route();
});
