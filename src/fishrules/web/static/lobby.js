// fishrules serve: the lobby.  A house rule is checked as it is typed (the server answers with its
// diagnostics, drawn at their lines and escaped on the server); a variant list sends its form when
// changed; the set-up shows only the seats of the players chosen.
(function () {
  "use strict";

  var rules = document.getElementById("rules");
  var diags = document.getElementById("diags");
  var timer = null;
  var asked = 0;

  function check() {
    var mine = ++asked;
    var body = new URLSearchParams();
    body.set("rules", rules.value);
    fetch("/check", { method: "POST", body: body, credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (data) { if (mine === asked) diags.innerHTML = data.html; })
      .catch(function () { /* the form still checks when sent */ });
  }

  if (rules && diags) {
    rules.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(check, 350);
    });
  }

  var selects = document.querySelectorAll("select.autosubmit");
  for (var i = 0; i < selects.length; i++) {
    selects[i].addEventListener("change", function (ev) { ev.target.form.submit(); });
  }

  // The host pages this browser opened, kept in this browser only: the lobby lists them.
  var KEY = "fishrules.tables";
  function mine() {
    try { return JSON.parse(localStorage.getItem(KEY) || "[]"); } catch (e) { return []; }
  }
  var links = document.querySelector("ul.links");
  if (links && /^\/host\//.test(location.pathname)) {
    var kept = mine().filter(function (t) { return t.path !== location.pathname; });
    // the table's own pages too: from a seat's page this browser finds its way back here
    var seatPaths = Array.prototype.map.call(links.querySelectorAll("a.seatlink"), function (a) { return a.getAttribute("href"); });
    kept.unshift({ path: location.pathname, title: links.getAttribute("data-title") || "a table", at: Date.now(), seats: seatPaths });
    try { localStorage.setItem(KEY, JSON.stringify(kept.slice(0, 20))); } catch (e) { /* private mode */ }
  }
  var list = document.getElementById("my-tables");
  if (list) {
    var tables = mine();
    var ul = list.querySelector("ul");
    tables.forEach(function (t) {
      if (typeof t.path !== "string" || !/^\/host\/[A-Za-z0-9_-]+$/.test(t.path)) return;
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = t.path;
      a.textContent = String(t.title || "a table");
      li.appendChild(a);
      li.appendChild(document.createTextNode(" — set up " + new Date(Number(t.at) || 0).toLocaleString()));
      ul.appendChild(li);
    });
    list.hidden = !ul.children.length;
  }
  var copies = document.querySelectorAll("button.copy");
  for (var c = 0; c < copies.length; c++) {
    copies[c].addEventListener("click", function (ev) {
      var b = ev.target;
      var done = function () { b.textContent = "Copied"; setTimeout(function () { b.textContent = "Copy"; }, 1500); };
      if (navigator.clipboard) navigator.clipboard.writeText(b.getAttribute("data-copy")).then(done, function () {
        b.textContent = "Select the link to copy it";
      });
    });
  }

  var players = document.getElementById("players");
  function seats() {
    var n = Number(players.value);
    var rows = document.querySelectorAll("tr.seatrow");
    for (var j = 0; j < rows.length; j++) rows[j].hidden = Number(rows[j].getAttribute("data-seat")) >= n;
  }
  if (players) {
    players.addEventListener("change", seats);
    seats();
  }
})();
