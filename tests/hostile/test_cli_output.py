"""What the command line prints from data (issue 31, section 5): no control character of a rule
file, a log or a command line reaches the terminal, and no name floods it.

Every command that prints something from data — `check` (the title, a warning's or an error's
source line, the file's own name), `explain`, `simulate`, `compare`, `replay`, `replay -v`,
`play --resume`, `fmt` — is fed data holding every kind of character a terminal may take for a
command: C0 controls (escape sequences, carriage returns, backspaces), DEL, C1 controls (CSI
U+009B included), bidirectional overrides and isolates, zero-width and other format characters,
tags, line and paragraph separators.  None of them may appear in what it writes, on standard
output or on standard error, whether the command succeeds or refuses the data; a new line only
where the output is several lines by design.

The commands run in the hostile harness's worker (`scenarios.cli`: standard output and error
captured as text); one run as a process of its own checks the very bytes written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

import fishrules
from fishrules.terminal import printable, shown

from . import scenarios as sc
from .contract import SLOW, run

#: Every C0 control but the new line (NUL aside: no rule file may hold one), DEL, every C1 control.
CONTROLS = "".join(chr(c) for c in range(1, 32) if c != 10) + "\x7f" + "".join(chr(c) for c in range(0x80, 0xA0))
#: Escape sequences a terminal obeys: clear the screen, a colour, set the window's title, a link,
#: the same in C1 form.
SEQUENCES = "\x1b[2J\x1b[31m\x1b]0;pwned\x07\x1b]8;;http://example.invalid/\x1b\\here\x1b]8;;\x1b\\\x9b2J"
#: Format characters (soft hyphen, the Arabic letter mark, zero-width ones, bidirectional marks,
#: embeddings, overrides and isolates, the word joiner, a byte-order mark, tags), line and paragraph
#: separators.
FORMAT = ("\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2066\u2067"
          "\u2068\u2069\ufeff\ufff9\U000e0001\U000e0041\U000e007f\u2028\u2029")
EVIL = "<" + SEQUENCES + CONTROLS + FORMAT + ">"
#: What stands for a space between the words of an action in a log (a log's history is read as the
#: rules split words, and `replay -v` prints the entries as the log has them).
SPACES = ["\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\t", "\r"]


def unsafe(text: str) -> list[str]:
    """The characters of `text` a terminal may obey: every control but the new line, every format
    character, line and paragraph separators, lone surrogates."""
    return sorted({ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs")})


def assert_safe(value: dict) -> None:
    for stream in ("out", "err"):
        bad = unsafe(value[stream])
        assert not bad, f"{stream} holds {[hex(ord(c)) for c in bad]}:\n{value[stream][:3000]!r}"


def cli(args: list, cwd: Path, stdin: str = "") -> dict:
    out = run(sc.cli, [str(a) for a in args], str(cwd), stdin, timeout=SLOW)
    assert out.status == "ok", out  # not a timeout, a crash or a blow-up of the worker
    return out.value


RULES = f'''extends "fishfry"
game "Evil {EVIL}"
option o: yes or no = yes, "what o does {EVIL}"
define unused: 1  # {EVIL}
add rule "r{EVIL}" at the start of phase turn:
  if roll > 100:
    end turn
'''


def _history(moves: int) -> list[str]:
    """A game of the evil rules (Fishfry's, with a rule that never fires) after `moves` choices."""
    state = fishrules.load("fishfry").start(players=2, seed=3)
    for _ in range(moves):
        state.apply(state.legal_actions()[0])
    return list(state.history)


def _log(**fields) -> dict:
    base = {"format": "fishrules-log/2", "ruleset": "evil.fish", "variant": None, "players": 2, "options": {},
            "seed": 3, "seats": ["human", "random"], "over": False, "history": _history(2),
            "rules": {"name": "evil.fish", "text": RULES, "variant": None}}
    return {**base, **fields}


def _spaced(history: list[str]) -> list[str]:
    """The same history, each space between words written as another character that splits words."""
    return [text.replace(" ", SPACES[i % len(SPACES)]) for i, text in enumerate(history)]


#: Logs whose fields hold the characters: read back as they are, or refused saying what is wrong.
LOGS = {
    "carried rules": _log(),
    "entries spaced oddly": _log(history=_spaced(_history(2))),
    "a ruleset's name": _log(ruleset=EVIL, rules=None),
    "a variant": _log(variant=EVIL),
    "an option's name": _log(options={EVIL: True}),
    "an option's value": _log(options={"o": EVIL}),
    "a history entry": _log(history=[*_history(2), EVIL]),
    "an action's word": _log(history=[*_history(2), "reroll " + EVIL]),
    "a simultaneous seat": _log(history=[*_history(2), "p" + EVIL + ": stay"]),
    "a seat": _log(seats=["human", EVIL]),
    "the format": _log(format=EVIL),
    "the rules' name": _log(rules={"name": EVIL, "text": RULES, "variant": None}),
    "the rules' variant": _log(rules={"name": "evil.fish", "text": RULES, "variant": EVIL}),
}


@pytest.fixture(scope="module")
def place(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("evil")
    (d / "evil.fish").write_text(RULES, encoding="utf-8", newline="")
    (d / "broken.fish").write_text(RULES + f"define broken: nosuch  # {EVIL}\n", encoding="utf-8", newline="")
    (d / "nul.fish").write_bytes(b'game "X\x00\x1b[2J"\nplayers 2 to 2\n')
    (d / "named \x1b[2J\u202e\x9b.fish").write_text('game "X"\nplayers 2 to 2\nphase game:\n  nothing\n')
    (d / "laid out badly \x1b]0;x\x07.fish").write_text('game   "X"\nplayers 2 to 2\nphase game:\n  nothing\n')
    for k, (name, data) in enumerate(LOGS.items()):
        (d / f"log{k}.json").write_text(json.dumps(data), encoding="utf-8")
    return d


COMMANDS = {
    "check": ["check", "evil.fish"],
    "check an error": ["check", "broken.fish"],
    "check a NUL": ["check", "nul.fish"],
    "check a file's name": ["check", "named \x1b[2J\u202e\x9b.fish"],
    "explain": ["explain", "evil.fish"],
    "explain --python": ["explain", "evil.fish", "--python"],
    "simulate": ["simulate", "evil.fish", "--games", "3"],
    "simulate --json": ["simulate", "evil.fish", "--games", "3", "--json"],
    "simulate a wrong option": ["simulate", "evil.fish", "--games", "3", "--option", f"o={EVIL}"],
    "simulate an unknown option": ["simulate", "evil.fish", "--games", "3", "--option", f"{EVIL}=1"],
    "simulate an unknown ruleset": ["simulate", EVIL],
    "simulate a variant": ["simulate", "evil.fish", "--variant", EVIL],
    "compare": ["compare", "evil.fish", "fishfry", "--games", "3"],
    "compare an option as a ruleset": ["compare", "evil.fish", f"x{EVIL}=1".replace(" ", "")],
    "play a bot": ["play", "evil.fish", "--bot", EVIL],
    "fmt --check": ["fmt", "--check", "laid out badly \x1b]0;x\x07.fish"],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_prints_no_control_character_from_its_data(place, name):
    value = cli(COMMANDS[name], place)
    assert_safe(value)
    assert value["out"] + value["err"], "it printed nothing at all"
    assert "Traceback" not in value["out"] + value["err"] and "internal error" not in value["err"], value


@pytest.mark.parametrize("command", ["replay", "replay -v", "play --resume"])
@pytest.mark.parametrize("name", LOGS)
def test_a_log_prints_no_control_character(place, name, command):
    k = list(LOGS).index(name)
    args = {"replay": ["replay"], "replay -v": ["replay", "-v"], "play --resume": ["play", "--resume"]}[command]
    value = cli([*args, f"log{k}.json"], place, stdin="q\n")
    assert_safe(value)
    assert value["status"] in (0, 1), value
    if name in ("carried rules", "entries spaced oddly"):  # read back, and shown
        assert value["status"] == 0, value
        assert "Evil <" in value["out"], value
    elif value["status"] == 1:  # refused (a field the log does not use is not read: a variant beside carried rules)
        lines = [ln for ln in value["err"].splitlines() if ln.strip()]
        assert len(lines) <= 2, value  # one line (and a rule error's hint)


def test_the_bytes_written_to_a_terminal_hold_no_control_character(place):
    """`replay -v` as a process of its own: the very bytes it writes."""
    src = str(Path(fishrules.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=src, COLUMNS="120", TERM="xterm-256color", PYTHONIOENCODING="utf-8")
    env.pop("NO_COLOR", None)
    k = list(LOGS).index("entries spaced oddly")
    p = subprocess.run([sys.executable, "-m", "fishrules", "replay", "-v", f"log{k}.json"], cwd=place, env=env,
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    for stream in (p.stdout, p.stderr):
        assert not [b for b in stream if b < 0x20 and b != 0x0A or b == 0x7F], stream
        assert not unsafe(stream.decode("utf-8")), stream


# ---- the one function ----------------------------------------------------------------------------------


def test_printable_escapes_every_character_a_terminal_obeys_and_nothing_else():
    kept, escaped = [], []
    for code in range(0x110000):
        ch = chr(code)
        (kept if ch.isprintable() or unicodedata.category(ch) in ("Zs", "Co") else escaped).append(ch)
    kept_text, escaped_text = "".join(kept), "".join(escaped)
    # letters, marks, symbols, spaces, private use: as they are
    assert printable(kept_text) == kept_text
    # the rest as Python writes them in a string (`\x1b`, `\u202e`, `\U000e0001`): ASCII, printable
    assert printable(escaped_text) == escaped_text.encode("unicode_escape").decode("ascii")
    assert printable("café 漢字 🎲 a\u00a0b") == "café 漢字 🎲 a\u00a0b"
    assert printable("one\ntwo\x1b", lines=True) == "one\ntwo\\x1b"
    assert printable("one\ntwo") == "one\\ntwo"
    assert printable(printable(EVIL)) == printable(EVIL)


@pytest.mark.parametrize("text", ["x" * 100_000, EVIL * 1000, "\x1b" * 100, "é" * 61, "a\u2028" * 40])
def test_a_name_is_shown_cut_and_escaped(text):
    got = shown(text)
    assert len(got) <= 60 and not unsafe(got) and got.endswith("…")
    assert text.startswith(got[:10].replace("\\x1b", "\x1b").replace("\\u2028", "\u2028")[:1])


# ---- no name floods a message ---------------------------------------------------------------------------

#: A name 100,000 characters long (a letter name: it passes for an option's or a variant's name).
LONG = "n" * 100_000

#: Command lines and logs that name something LONG: each is refused (or printed) in well under 1 KB.
LONG_COMMANDS = {
    "an option's name": ["simulate", "fishfry-keeper", "--games", "1", "--option", f"{LONG}=1"],
    "an option's value": ["simulate", "fishfry-keeper", "--games", "1", "--option", f"rounds={LONG}"],
    "an option without a value": ["simulate", "fishfry-keeper", "--games", "1", "--option", LONG],
    "a variant": ["simulate", "fishfry", "--variant", LONG],
    "a ruleset": ["simulate", LONG],
    "an option as a ruleset": ["compare", "fishfry", f"{LONG}=1"],
    "an option of a ruleset": ["compare", "fishfry", f"fishfry,{LONG}=1"],
    "a value of a ruleset's option": ["compare", "fishfry", f"fishfry-keeper,rounds={LONG}"],
    "a bot": ["play", "fishfry", "--bot", LONG],
    "a bot's seat": ["play", "fishfry", "--bot", "9" * 100_000 + "=random"],
    "a seed": ["play", "fishfry", "--seed", "9" * 5000],
    "the number of workers": ["simulate", "fishfry", "--workers", "9" * 100_000],
    "a title": ["check", "long.fish"],
    "a title in a refusal": ["simulate", "long.fish", "--players", "99"],
    "a title in a game": ["play", "long.fish", "--seed", "1"],
}
LONG_LOGS = {
    "an option's name": _log(options={LONG: 1}),
    "an option's value": _log(options={"o": LONG}),
    "a variant": _log(rules=None, ruleset="fishfry", variant=LONG),
    "a ruleset": _log(rules=None, ruleset=LONG),
    "a ruleset beside the log": _log(rules=None, ruleset=LONG + ".fish"),
    "a history entry": _log(history=[*_history(2), LONG]),
    "an action's word": _log(history=[*_history(2), "reroll " + LONG]),
    "a simultaneous seat": _log(history=[*_history(2), "p" + "1" * 100_000 + ": stay"]),
    "a seat": _log(seats=["human", LONG]),
    "the format": _log(format=LONG),
    "the rules' name": _log(rules={"name": LONG, "text": RULES, "variant": None}),
    "the rules' variant": _log(rules={"name": "evil.fish", "text": RULES, "variant": LONG}),
    "a title": _log(rules={"name": "long.fish", "text": RULES.replace("game \"Evil ", f"game \"{LONG}"),
                           "variant": None}, players=9),
}


@pytest.fixture(scope="module")
def longs(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("long")
    (d / "long.fish").write_text(RULES.replace('game "Evil ', f'game "{LONG}'), encoding="utf-8", newline="")
    for k, data in enumerate(LONG_LOGS.values()):
        (d / f"log{k}.json").write_text(json.dumps(data), encoding="utf-8")
    return d


@pytest.mark.parametrize("name", LONG_COMMANDS)
def test_a_long_name_on_the_command_line_is_cut_in_every_message(longs, name):
    value = cli(LONG_COMMANDS[name], longs, stdin="q\n")
    assert "Traceback" not in value["err"] and "internal error" not in value["err"], value["err"][:3000]
    if name in ("a title", "a title in a game"):  # printed as a result: its lines are cut
        assert value["status"] == 0, value["err"][:3000]
        assert max(len(line) for line in (value["out"] + value["err"]).splitlines()) < 1024, value["out"][:3000]
    else:
        assert value["status"] in (1, 2), value["err"][:3000]
        err = value["err"]
        if err.startswith("usage:"):  # argparse's refusal: the usage, then one line
            err = err[err.index("\nfishrules "):]
        assert len(err) < 1024, value["err"][:3000]
        assert len([ln for ln in err.splitlines() if ln.strip()]) <= 2, value["err"][:3000]


@pytest.mark.parametrize("command", ["replay", "play --resume"])
@pytest.mark.parametrize("name", LONG_LOGS)
def test_a_long_name_in_a_log_is_cut_in_every_message(longs, name, command):
    k = list(LONG_LOGS).index(name)
    args = ["replay"] if command == "replay" else ["play", "--resume"]
    value = cli([*args, f"log{k}.json"], longs, stdin="q\n")
    assert value["status"] == 1, value["err"][:3000]
    assert len(value["err"]) < 1024 and len(value["out"]) < 1024, (value["out"] + value["err"])[:3000]
    assert len([ln for ln in value["err"].splitlines() if ln.strip()]) <= 2, value["err"][:3000]


#: Calls of the library that name something LONG.
LONG_CALLS = {
    "an option's name": lambda g: g.start(options={LONG: 1}),
    "an option's value": lambda g: g.start(options={"rounds": LONG}),
    "a number of a thousand digits": lambda g: g.start(options={"rounds": 10**1000}),
    "a number too long to write": lambda g: g.start(options={"rounds": 10**5000}),
    "a list of them": lambda g: g.start(options={"rounds": [LONG] * 1000}),
    "a name that is no text": lambda g: g.start(options={(LONG,): 1}),
    "players": lambda g: g.start(players=LONG),
    "many players": lambda g: g.start(players=10**5000),
    "a seed": lambda g: g.start(seed=LONG),
    "chance": lambda g: g.start(chance=LONG),
    "playouts": lambda g: g.simulate(3, players=LONG),
    "games": lambda g: g.simulate(LONG),
    "a replay's options": lambda g: g.replay([], options={LONG: 1}),
    "a replayed entry": lambda g: g.replay([LONG]),
    "a variant": lambda g: fishrules.load("fishfry-keeper", variant=LONG),
    "a ruleset": lambda g: fishrules.load(LONG),
}


@pytest.mark.parametrize("name", LONG_CALLS)
def test_a_long_name_is_cut_in_the_library_s_messages(name):
    game = fishrules.load("fishfry-keeper")
    with pytest.raises(fishrules.FishrulesError) as caught:
        LONG_CALLS[name](game)
    assert len(str(caught.value)) < 1024, str(caught.value)[:3000]
