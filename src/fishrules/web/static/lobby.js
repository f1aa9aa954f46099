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
