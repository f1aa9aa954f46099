// fishrules serve: a table in the browser.
//
// The server sends frames: the table drawn as HTML (built and escaped on the server, from what this
// seat may see) and, when it is this seat's turn, its legal actions with their structured
// arguments.  This script only turns those actions into controls: choose an action, click the
// cards, dice, circles or players it takes (or the buttons of its values), and send it.  It keeps
// the connection alive: a dropped WebSocket is opened again, and an action sent but not answered is
// sent again (the server applies it once).
(function () {
  "use strict";

  var main = document.querySelector("main.tablepage");
  if (!main) return;
  var token = location.pathname.split("/")[2];
  var tableEl = document.getElementById("table");
  var picker = document.getElementById("picker");
  var message = document.getElementById("message");
  var connEl = document.getElementById("conn");
  var download = document.getElementById("download");
  var typed = document.getElementById("typed");
  var typedText = document.getElementById("typed-text");

  var frame = null;
  var ws = null;
  var retry = 0;
  var pending = null; // the last action sent and not yet answered
  var chosen = null; // the action name being put together
  var picks = {}; // parameter name -> value (or a list, for `some`)
  var note = null; // {at, text, kind}: a message for the position it was given at
  var live = false; // the WebSocket is open: controls work only then

  var KIND = { card: "card", die: "die", number: "num", player: "player" };
  var offered = null; // {p, value, label}: something clicked on the table that the rules do not offer now
  var lastLook = null; // what each piece of the table read when this page was last looked at

  // ---- drawing a new frame: only what changed is replaced ------------------------------------

  // The children of `old` become those of `neu`, keeping every node that stays the same (the
  // focus, a scrolled list, an opened "details" stay as they were).  A child is matched by what
  // it is (its tag and what it stands for: a zone, a value, a seat...), so that a piece coming or
  // going (the "just now" box, the score sheet) does not make everything after it new.
  function keyOf(n) {
    if (n.nodeType !== 1) return "#" + n.nodeType;
    return n.nodeName + "|" + (n.getAttribute("data-pick") || n.getAttribute("data-zone") || n.getAttribute("data-name") ||
      n.getAttribute("id") || (n.getAttribute("class") || "").split(" ")[0]);
  }

  function sync(old, neu) {
    var news = Array.prototype.slice.call(neu.childNodes);
    var cur = old.firstChild;
    for (var i = 0; i < news.length; i++) {
      var n = news[i], k = keyOf(n), m = null, probe = cur;
      for (var look = 0; probe && look < 8 && !m; look++, probe = probe.nextSibling) if (keyOf(probe) === k) m = probe;
      if (!m) { old.insertBefore(n, cur); continue; }
      while (cur !== m) { var gone = cur; cur = cur.nextSibling; old.removeChild(gone); }
      cur = m.nextSibling;
      if (m.nodeType !== 1) { if (m.nodeValue !== n.nodeValue) m.nodeValue = n.nodeValue; continue; }
      if (m.isEqualNode(n)) continue;
      syncAttrs(m, n);
      sync(m, n);
    }
    while (cur) { var rest = cur; cur = cur.nextSibling; old.removeChild(rest); }
  }

  function syncAttrs(o, n) {
    var keep = o.nodeName === "DETAILS" ? "open" : null; // opened by the reader: stays open
    for (var i = o.attributes.length - 1; i >= 0; i--) {
      var a = o.attributes[i].name;
      if (a !== keep && !n.hasAttribute(a)) o.removeAttribute(a);
    }
    for (var j = 0; j < n.attributes.length; j++) {
      var b = n.attributes[j];
      if (o.getAttribute(b.name) !== b.value) o.setAttribute(b.name, b.value);
    }
  }

  function morph(into, html) {
    var fresh = document.createElement("div");
    fresh.innerHTML = html;
    sync(into, fresh);
  }

  // Each piece of the table that can change (a zone, a value, a die, a circle, a score), by where
  // it is, and what it reads.
  function pieces() {
    var out = {};
    var all = tableEl.querySelectorAll(".zone, .kv, .die, g.circle, .seat .score");
    for (var i = 0; i < all.length; i++) {
      var e = all[i];
      var seatEl = e.closest(".seat");
      // (the first class only: a marked piece's class list has "changed" too, and its key must not change)
      var key = (seatEl ? seatEl.getAttribute("data-pick") : "") + "|" + (e.getAttribute("data-zone") ||
        e.getAttribute("data-name") || e.getAttribute("data-pick") || e.classList[0]);
      out[key] = { el: e, text: e.textContent };
    }
    return out;
  }

  // What changed since this page was last looked at is marked (while the page is hidden, the
  // marks gather until it is seen again).  Where the seat last looked is kept in this browser, by
  // the link's token: only a position (how long the history was), nothing the table showed.  A
  // page opened again (a reload, coming back later) marks what changed since then, from when
  // the frame says each piece last changed (`changed_at`).
  var SEEN = "fishrules.seen." + token;
  // Scores and public defines change with no event to say when: what they read is kept beside the
  // position (they are public: every seat and spectator sees them), and compared on the next visit.
  var PUBLIC = SEEN + ".public";
  var PUBLIC_PIECES = ".seat .score, .kv[data-public]";

  function publicSeen() {
    var v = null;
    try { v = JSON.parse(localStorage.getItem(PUBLIC) || "null"); } catch (e) { /* refused, or not ours */ }
    return v && typeof v === "object" && !Array.isArray(v) ? v : null;
  }

  function seenAt() {
    var v = null;
    try { v = localStorage.getItem(SEEN); } catch (e) { /* storage refused */ }
    var n = v === null ? NaN : Number(v);
    return isFinite(n) && n >= 0 ? n : null;
  }

  // The tables this browser keeps marks for, the latest looked at first ("fishrules.seen"): at
  // most SEEN_TABLES, so the marks of tables long over do not fill the browser's storage (and a
  // full storage drops the oldest rather than every new mark).
  var SEEN_LIST = "fishrules.seen", SEEN_TABLES = 50;

  function keepSeen(most) {
    var list;
    try { list = JSON.parse(localStorage.getItem(SEEN_LIST) || "[]"); } catch (e) { list = []; }
    if (!Array.isArray(list)) list = [];
    list = [token].concat(list.filter(function (t) { return typeof t === "string" && t !== token; }));
    list.slice(most).forEach(function (t) {
      localStorage.removeItem("fishrules.seen." + t);
      localStorage.removeItem("fishrules.seen." + t + ".public");
    });
    localStorage.setItem(SEEN_LIST, JSON.stringify(list.slice(0, most)));
  }

  function lookedAt() {
    if (!frame || document.hidden) return;
    var now = pieces(), shown = {};
    Object.keys(now).forEach(function (k) { if (now[k].el.matches(PUBLIC_PIECES)) shown[k] = now[k].text; });
    for (var most = SEEN_TABLES; most >= 1; most = Math.floor(most / 2)) {
      try {
        keepSeen(most);
        localStorage.setItem(SEEN, String(frame.at));
        localStorage.setItem(PUBLIC, JSON.stringify(shown));
        return;
      } catch (e) { /* private mode, or full: keep fewer tables' marks */ }
    }
  }

  function markChanged(first) {
    var now = pieces();
    var was = lastLook;
    var since = first ? seenAt() : null;
    var when = (frame && frame.changed_at) || {};
    var kept = first && since !== null && since < frame.at ? publicSeen() : null;
    Object.keys(now).forEach(function (k) {
      var changed = first ? since !== null && since < frame.at && (typeof when[k] === "number" ? when[k] > since
        : !!kept && typeof kept[k] === "string" && kept[k] !== now[k].text)
        : was && (!(k in was) || was[k] !== now[k].text);
      now[k].el.classList.toggle("changed", !!changed);
    });
    if (first || !document.hidden || !lastLook) {
      lastLook = {};
      Object.keys(now).forEach(function (k) { lastLook[k] = now[k].text; });
    }
    lookedAt();
  }

  document.addEventListener("visibilitychange", lookedAt);

  function el(name, attrs, text) {
    var e = document.createElement(name);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function setConn(text, cls) {
    connEl.textContent = text;
    connEl.className = "conn " + (cls || "");
  }

  function connect() {
    var proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/ws/" + token);
    ws.onopen = function () {
      retry = 0;
      live = true;
      setConn("live", "live");
      if (pending) ws.send(JSON.stringify(pending));
      draw();
    };
    ws.onmessage = function (ev) {
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      handle(msg);
    };
    ws.onclose = function () {
      live = false;
      setConn("The connection to the server is lost: reconnecting… Nothing can be played until it is back.", "lost");
      draw();
      var wait = Math.min(4000, 250 * Math.pow(2, retry++));
      setTimeout(connect, wait);
    };
  }

  function handle(msg) {
    if (msg.type === "frame") {
      // What was picked stays while the same choices are offered (at a simultaneous choice the
      // position moves as the others choose): it goes when the choices change.
      var moved = !frame || frame.mine !== msg.mine || choices(frame) !== choices(msg);
      var first = !frame;
      frame = msg;
      morph(tableEl, msg.html);
      markChanged(first);
      main.classList.toggle("mine", !!msg.mine);
      if (moved) { chosen = null; picks = {}; offered = null; }
      // a message belongs to the position it was given at: the game moved on, it goes
      if (note && note.at === "next") note.at = msg.at; // said with the frame that follows it: kept for that one
      else if (note && note.at !== msg.at && note.kind !== "sending") note = null;
      if (download) download.hidden = !msg.over;
      draw();
    } else if (msg.type === "ok" && msg.back) {
      if (note && note.kind === "sending") { note = null; draw(); }
    } else if (msg.type === "ok") {
      pending = null;
      if (note && note.kind === "sending") {
        // taken: said once, unless the table has moved on already (the table says what was done)
        note = frame && frame.at !== note.at ? null :
          { at: note.at, text: note.text.replace(/^Sending: (.*)…$/, "Sent: $1"), kind: "sent" };
        draw();
      }
    } else if (msg.type === "refused") {
      pending = null;
      var text = msg.message;
      if (msg.rule) text += " — the rule: “" + msg.rule + "”" + (msg.line ? " (line " + msg.line + ")" : "");
      // "moved on" comes just before the frame of where the game is: it stays with that frame
      note = { at: msg.moved_on ? "next" : (frame ? frame.at : -1), text: text, kind: "refused" };
      draw();
    }
  }

  function choices(f) { return f.actions.map(function (a) { return a.text; }).join("\n"); }

  function send(text) {
    if (!frame) return;
    pending = { type: "act", at: frame.at, action: text };
    // "Sent" only once the server says it has it: until then, "Sending…"
    note = { at: frame.at, text: "Sending: " + sayAction(text) + "…", kind: "sending" };
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(pending));
    draw();
  }

  // ---- putting an action together -------------------------------------------------------------

  function params() { return chosen && frame.decl[chosen] ? frame.decl[chosen] : []; }

  function str(v) { return v === null || v === undefined ? "" : String(v); }

  function has(list, v) {
    for (var i = 0; i < list.length; i++) if (str(list[i]) === str(v)) return true;
    return false;
  }

  function within(small, big) { // every element of `small` in `big`, counting repeats
    var rest = big.map(str);
    for (var i = 0; i < small.length; i++) {
      var k = rest.indexOf(str(small[i]));
      if (k < 0) return false;
      rest.splice(k, 1);
    }
    return true;
  }

  function fits(a) {
    if (a.name !== chosen) return false;
    return params().every(function (p) {
      var got = picks[p.name];
      if (got === undefined) return true;
      if (p.kind === "some") return within(got, a.args[p.name] || []);
      return str(a.args[p.name]) === str(got);
    });
  }

  function whole(a) {
    return fits(a) && params().every(function (p) {
      var got = picks[p.name];
      if (got === undefined) return false;
      if (p.kind === "some") return got.length === (a.args[p.name] || []).length;
      return true;
    });
  }

  function current() { // the parameter a click chooses next
    var ps = params();
    for (var i = 0; i < ps.length; i++) if (ps[i].kind !== "some" && picks[ps[i].name] === undefined) return ps[i];
    for (var j = 0; j < ps.length; j++) if (ps[j].kind === "some") return ps[j];
    return null;
  }

  // The action with what is picked and the value not offered besides (the rules say why not).
  function tryText(o) {
    var saved = picks;
    picks = JSON.parse(JSON.stringify(picks));
    if (o.p.kind === "some") picks[o.p.name] = (picks[o.p.name] || []).concat([o.value]); else picks[o.p.name] = o.value;
    var text = compose();
    picks = saved;
    return text;
  }

  function compose() {
    var words = [chosen];
    params().forEach(function (p) {
      var v = picks[p.name];
      var vs = p.kind === "some" ? (v || []) : [v];
      vs.forEach(function (x) { words.push(p.of === "player" ? "p" + x : str(x)); });
    });
    return frame.prefix + words.join(" ");
  }

  // For `some`, a click adds the value (a card may be there twice: two clicks on two cards), or
  // takes it back when `again` (the element clicked was picked already, or its button is on).
  function pick(p, value, again) {
    offered = null;
    if (note && note.kind === "refused") note = null; // a new pick: the old refusal is stale
    if (p.kind === "some") {
      var got = (picks[p.name] || []).slice();
      var k = got.map(str).indexOf(str(value));
      if (again && k >= 0) got.splice(k, 1); else got.push(value);
      picks[p.name] = got;
    } else {
      picks[p.name] = value;
    }
    draw();
  }

  function typedValue(p, raw) {
    return (p.of === "die" || p.of === "number" || p.of === "player") ? Number(raw) : raw;
  }

  // A click on the table: a card, a die, a circle, a row or a player.
  tableEl.addEventListener("click", function (ev) {
    if (!frame || !frame.mine || !chosen) return;
    // The innermost thing clicked that may be chosen now (a card lying in a row when a row is to
    // be chosen: the row), else the innermost thing at all.
    var target = null;
    for (var node = ev.target.closest("[data-pick]"); node; node = node.parentElement.closest("[data-pick]")) {
      if (!target) target = node;
      if (node.classList.contains("can")) { target = node; break; }
      if (!node.parentElement) break;
    }
    if (!target) return;
    var parts = target.getAttribute("data-pick").split(/:(.*)/s);
    var ps = params();
    var p = current();
    if (!p || KIND[p.of] !== parts[0]) {
      p = null;
      for (var i = 0; i < ps.length; i++) {
        if (KIND[ps[i].of] === parts[0] && (ps[i].kind === "some" || picks[ps[i].name] === undefined)) { p = ps[i]; break; }
      }
      for (var k = ps.length - 1; !p && k >= 0; k--) { // chosen already: a change of mind
        if (KIND[ps[k].of] === parts[0]) p = ps[k];
      }
    }
    if (!p) return;
    ev.stopPropagation();
    var value = typedValue(p, parts[1]);
    if (!target.classList.contains("can") && !target.classList.contains("picked")) {
      // not offered now: what was picked stays; the rule that forbids it is a click away
      offered = { p: p, value: value };
      note = { at: frame.at, text: valueLabel(p, value) + " cannot be chosen for " + paramLabel(p) + " now.", kind: "refused" };
      draw();
      return;
    }
    pick(p, value, target.classList.contains("picked"));
  });

  function mark() { // what a click may choose now (each reachable by Tab, Enter or Space to choose it)
    var marked = tableEl.querySelectorAll(".can, .picked");
    for (var i = 0; i < marked.length; i++) {
      marked[i].classList.remove("can", "picked");
      marked[i].removeAttribute("tabindex");
      marked[i].removeAttribute("role");
    }
    if (!frame || !frame.mine || !chosen) return;
    var p = current();
    var cands = frame.actions.filter(fits);
    params().forEach(function (q) {
      var got = picks[q.name];
      if (got === undefined) return;
      (q.kind === "some" ? got : [got]).forEach(function (v) {
        var hit = tableEl.querySelector('[data-pick="' + KIND[q.of] + ":" + CSS.escape(str(v)) + '"]:not(.picked)');
        if (hit) hit.classList.add("picked");
      });
    });
    if (!p || !KIND[p.of]) return;
    var values = {};
    cands.forEach(function (a) {
      var v = a.args[p.name];
      (p.kind === "some" ? v : [v]).forEach(function (x) { values[str(x)] = true; });
    });
    var all = tableEl.querySelectorAll('[data-pick^="' + KIND[p.of] + ':"]');
    for (var j = 0; j < all.length; j++) {
      var v = all[j].getAttribute("data-pick").split(/:(.*)/s)[1];
      if (values[v]) {
        all[j].classList.add("can");
        all[j].setAttribute("tabindex", "0");
        all[j].setAttribute("role", "button");
      }
    }
  }

  tableEl.addEventListener("keydown", function (ev) {
    if ((ev.key === "Enter" || ev.key === " ") && ev.target.classList && ev.target.classList.contains("can")) {
      ev.preventDefault();
      var pickAt = ev.target.getAttribute("data-pick");
      ev.target.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      var again = tableEl.querySelector('[data-pick="' + CSS.escape(pickAt) + '"]');
      if (again) again.focus();
    }
  });

  // Words for people: an action's label, a parameter's, a value's (players by their names).
  function actionLabel(n) { return frame.words && frame.words[n] ? frame.words[n].label : n.replace(/_/g, " "); }
  function paramLabel(p) { return p.label || p.name.replace(/_/g, " "); }
  function valueLabel(p, v) {
    if (p.of === "player") return frame.names && frame.names[v] !== undefined ? frame.names[v] : "p" + v;
    if (p.of === "die") return "die " + v;
    return str(v).replace(/_/g, " ");
  }
  function sayAction(text) { // an action's text in words, for the buttons
    var body = text.slice(frame.prefix.length);
    var words = body.split(" ");
    var decl = frame.decl[words[0]];
    if (!decl) return text;
    var out = actionLabel(words[0]);
    var vals = words.slice(1);
    var shown = vals.map(function (v) {
      var p = decl.length === 1 ? decl[0] : null;
      if (!p) return v.replace(/_/g, " ");
      return valueLabel(p, p.of === "player" ? Number(v.slice(1)) : v);
    });
    return shown.length ? out + ": " + shown.join(", ") : out;
  }

  function button(text, cls, fn) {
    var b = el("button", { type: "button", "class": cls || "" }, text);
    b.addEventListener("click", fn);
    return b;
  }

  function draw() {
    // Rebuilding the controls keeps the focus where it was (the same button, by its words).
    var had = document.activeElement && picker.contains(document.activeElement) ? document.activeElement : null;
    var hadText = had ? had.textContent : null, hadClass = had ? had.className : null;
    drawControls();
    if (hadText !== null) {
      var bs = picker.querySelectorAll("button");
      var found = null;
      for (var i = 0; i < bs.length && !found; i++) if (bs[i].textContent === hadText) found = bs[i];
      for (var k = 0; k < bs.length && !found; k++) if (bs[k].className === hadClass) found = bs[k];
      (found || bs[0] || picker).focus();
    }
    var off = !live;
    main.classList.toggle("offline", off);
    var all = document.querySelectorAll("#controls button, #controls input");
    for (var j = 0; j < all.length; j++) all[j].disabled = off;
  }

  function drawControls() {
    message.textContent = note ? note.text : "";
    message.className = "message " + (note ? note.kind : "");
    picker.textContent = "";
    if (!frame) return;
    if (!frame.mine) {
      picker.appendChild(el("p", { "class": "idle" }, frame.over ? "The game is over." : "Not your turn: the table updates by itself."));
      mark();
      return;
    }
    var names = [];
    frame.actions.forEach(function (a) { if (names.indexOf(a.name) < 0) names.push(a.name); });
    if (names.length === 1 && !chosen) chosen = names[0];
    var row = el("div", { "class": "names" });
    row.appendChild(el("span", { "class": "label" }, "Your move:"));
    names.forEach(function (n) {
      var b = button(actionLabel(n), "name" + (n === chosen ? " on" : ""), function () { // (again: start again)
        chosen = n; picks = {}; offered = null;
        if (note && note.kind === "refused") note = null;
        draw();
      });
      if (frame.words && frame.words[n] && frame.words[n].description) b.title = frame.words[n].description;
      row.appendChild(b);
    });
    picker.appendChild(row);
    if (frame.back) {
      // the rules let this seat's last step be taken back: it made nothing hidden known
      picker.appendChild(el("div", { "class": "back" })).appendChild(button("Take back my last step", "takeback", function () {
        if (!ws || ws.readyState !== 1) return;
        note = { at: frame.at, text: "Taking it back…", kind: "sending" };
        ws.send(JSON.stringify({ type: "back", at: frame.at }));
        draw();
      }));
    }
    if (chosen) {
      var cands = frame.actions.filter(fits);
      params().forEach(function (p) {
        var line = el("div", { "class": "param", "data-param": p.name });
        var got = picks[p.name];
        var onTable = KIND[p.of] && tableEl.querySelector('[data-pick^="' + KIND[p.of] + ':"]');
        var shown = got === undefined ? (onTable ? "click it on the table, or choose:" : "choose:") :
          (p.kind === "some" ? (got.length ? got.map(function (x) { return valueLabel(p, x); }).join(", ") : "none yet")
            : valueLabel(p, got));
        line.appendChild(el("span", { "class": "label" }, paramLabel(p) + (p.kind === "some" ? " (one or more)" : "") + ": "));
        line.appendChild(el("b", null, shown));
        var seen = {};
        cands.forEach(function (a) {
          var v = a.args[p.name];
          (p.kind === "some" ? v : [v]).forEach(function (x) { seen[str(x)] = x; });
        });
        var keys = Object.keys(seen);
        if (keys.length <= 40) {
          keys.forEach(function (k) {
            var on = got !== undefined && (p.kind === "some" ? has(got, seen[k]) : str(got) === k);
            line.appendChild(button(valueLabel(p, seen[k]), "value" + (on ? " on" : ""), function () { pick(p, seen[k], on); }));
          });
        }
        picker.appendChild(line);
      });
      var done = cands.filter(whole);
      var go = el("div", { "class": "go" });
      if (done.length === 1) {
        var a = done[0];
        go.appendChild(button("Play: " + sayAction(a.text) + (a.breaks ? " (breaks “" + a.breaks + "”)" : ""), "play", function () { send(a.text); }));
      } else if (params().length && params().every(function (p) { return picks[p.name] !== undefined; }) && !cands.length) {
        var text = compose();
        go.appendChild(button("Try: " + text, "try", function () { send(text); }));
      }
      if (offered) {
        var tried = tryText(offered);
        go.appendChild(button("Try " + valueLabel(offered.p, offered.value) + " anyway (to see the rule)", "try", function () {
          offered = null; send(tried);
        }));
      }
      if (Object.keys(picks).length || offered || (note && note.kind === "refused")) {
        go.appendChild(button("Start again", "clear", function () {
          picks = {}; offered = null; if (note && note.kind !== "sending") note = null; draw();
        }));
      }
      picker.appendChild(go);
      if (cands.length <= 12) {
        var list = el("div", { "class": "cands" });
        cands.forEach(function (a) {
          // a whole move, chosen (Play sends it): nothing goes on one click
          list.appendChild(button(sayAction(a.text) + (a.breaks ? " (breaks “" + a.breaks + "”)" : ""), "cand", function () {
            picks = {};
            params().forEach(function (p) {
              var v = a.args[p.name];
              picks[p.name] = p.kind === "some" ? (v || []).slice() : v;
            });
            offered = null;
            draw();
          }));
        });
        picker.appendChild(list);
      } else {
        picker.appendChild(el("p", { "class": "hint" }, cands.length + " possible moves: choose " +
          params().map(paramLabel).join(", then ") + " above."));
      }
    }
    mark();
  }

  typed.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var text = typedText.value.trim();
    if (text) send(text);
  });

  // The way back to this table's links, for the browser that set the table up (the lobby's list of
  // its tables, kept in this browser only: the page itself never names the host's link).
  (function () {
    var mine;
    try { mine = JSON.parse(localStorage.getItem("fishrules.tables") || "[]"); } catch (e) { mine = []; }
    if (!Array.isArray(mine)) return;
    for (var i = 0; i < mine.length; i++) {
      var t = mine[i];
      if (t && Array.isArray(t.seats) && t.seats.indexOf(location.pathname) >= 0 &&
          typeof t.path === "string" && /^\/host\/[A-Za-z0-9_-]+$/.test(t.path)) {
        document.getElementById("back-host").setAttribute("href", t.path);
        document.getElementById("back").hidden = false;
        return;
      }
    }
  })();

  connect();
})();
