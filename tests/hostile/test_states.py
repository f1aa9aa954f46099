"""Saved states and replays (issue 11, section 4).

`Game.state_from_json(text)` and `Game.replay(history, players=, options=)` raise only `StateError`
(a `ValueError` and a `FishrulesError`) for anything wrong, with a message that says which field or
which history entry; a state that loads is exactly one the engine could have reached (the lead
re-derives it by replaying its history), so a tampered score, card, die, current player or player
count is refused, never accepted.  A state over MAX_STATE_BYTES of JSON is refused before parsing.

Every edit below changes the position; each must raise StateError.  (Random edits, some of which
change nothing, are in test_fuzz_states.py.)
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from . import scenarios as sc
from .contract import FAST, L, readable, run

# ---- positions ---------------------------------------------------------------------------------------


def _steps(ruleset: str, seed: int, where: str) -> int:
    out = run(sc.find_steps, ruleset, seed, where)
    assert out.status == "ok" and out.value is not None, out
    return out.value


@pytest.fixture(scope="module")
def fishfry_over():
    steps = _steps("fishfry", 0, "over")
    return ("fishfry", 0, steps)


POSITIONS = {
    "fishfry start": ("fishfry", 1, 0),
    "fishfry mid": ("fishfry", 1, 3),
    "fishfish mid": ("fishfish", 1, 6),
    "fisheatfish mid": ("fisheatfish", 3, 30),
    "fatfish mid": ("fatfish", 2, 12),
    "fisherman mid": ("fisherman", 2, 10),
}


def dump(data) -> str:
    return json.dumps(data, separators=(",", ":"))


def saved(pos: tuple, chance: str = "seeded") -> dict:
    out = run(sc.state_json, *pos, chance=chance)
    assert out.status == "ok", out
    return json.loads(out.value)


def try_load(pos: tuple, data, chance: str = "seeded"):
    text = data if isinstance(data, (str, bytes)) or data is None else dump(data)
    return run(sc.restore, *pos, text, chance=chance, timeout=FAST)


def _mentions(message: str, field: str) -> bool:
    return re.search(r"(?<![A-Za-z0-9_])" + re.escape(field) + r"(?![A-Za-z0-9_])", message) is not None


def refused(out, field: str | None = None) -> None:
    assert out.status == "raised" and out.is_a("StateError"), f"expected StateError, got {out}"
    assert "ValueError" in out.exc_mro and "FishrulesError" in out.exc_mro, out.exc_mro
    readable(out.message)
    if field is not None:
        assert _mentions(out.message, field), f"the message does not say which field ({field}): {out.message}"


# ---- the error class -----------------------------------------------------------------------------------


def _classes() -> dict:
    import fishrules

    names = ["FishrulesError", "RuleError", "IllegalAction", "StateError", "OptionError"]
    got = {n: getattr(fishrules, n, None) for n in names}
    base = got["FishrulesError"]
    return {n: (c is not None, c is not None and base is not None and issubclass(c, base),
                c is not None and issubclass(c, ValueError)) for n, c in got.items()}


def test_error_classes():
    out = run(_classes)
    assert out.status == "ok", out
    v = out.value
    for name in v:
        assert v[name][0], f"fishrules.{name} does not exist"
        assert v[name][1], f"fishrules.{name} is not a FishrulesError"
    assert v["StateError"][2] and v["OptionError"][2], "StateError and OptionError are ValueErrors"


# ---- targeted edits ------------------------------------------------------------------------------------


def test_tampered_score(fishfry_over):
    data = saved(fishfry_over)
    for row in data["p"]:
        row[0] = [x + 10 for x in row[0]] or [10]
    refused(try_load(fishfry_over, data), "p")


@pytest.mark.parametrize("where", ["fishfish mid", "fatfish mid", "fisherman mid"])
def test_card_moved_to_another_zone(where):
    pos = POSITIONS[where]
    data = saved(pos)
    zones = [(k, i, r) for k in ("g", "p") for i, r in enumerate(data[k] if k == "g" else [c for row in data["p"] for c in row])
             if isinstance(r, list) and r and all(isinstance(c, int) for c in r)]
    assert zones, "no zone with cards"
    flat_p = [c for row in data["p"] for c in row]
    # move the top card of the first non-empty zone into another zone
    src = next(z for z in (data["g"] + flat_p) if isinstance(z, list) and z and all(isinstance(c, int) for c in z))
    dst = next(z for z in (data["g"] + flat_p) if isinstance(z, list) and z is not src
               and all(isinstance(c, int) for c in z))
    dst.append(src.pop())
    refused(try_load(pos, data))


@pytest.mark.parametrize("where", ["fishfish mid", "fatfish mid", "fisherman mid", "fisheatfish mid"])
def test_card_duplicated(where):
    pos = POSITIONS[where]
    data = saved(pos)
    lists = [z for z in data["g"] + [c for row in data["p"] for c in row]
             if isinstance(z, list) and z and all(isinstance(c, int) for c in z)]
    lists[0].append(lists[0][-1])
    refused(try_load(pos, data))


def test_card_that_does_not_exist():
    pos = POSITIONS["fishfish mid"]
    for bad in (10**6, -1, -10**6):
        data = saved(pos)
        zone = next(z for z in data["g"] if isinstance(z, list) and z)
        zone.append(bad)
        refused(try_load(pos, data))


@pytest.mark.parametrize("face", [99, 6, -2, -1, 10**20, "HEAD", None, 1.0, True])
def test_impossible_die_face(face):
    pos = POSITIONS["fishfry mid"]
    data = saved(pos)
    data["dice"][0] = face
    refused(try_load(pos, data), "dice")


def test_die_that_disagrees_with_the_history():
    pos = POSITIONS["fishfry start"]
    data = saved(pos)
    data["dice"][0] = (data["dice"][0] + 1) % 6
    refused(try_load(pos, data), "dice")


@pytest.mark.parametrize("players", [0, 1, 3, 9, 64, 65, -1, 10**30, "2", 2.0, True, None, [2]])
def test_players(players):
    pos = POSITIONS["fishfry mid"]
    data = saved(pos)
    data["players"] = players
    refused(try_load(pos, data), "players")


@pytest.mark.parametrize("current", [7, -1, 1, 2, "chance", "simultaneous", None, "0", 0.0, True, [0]])
def test_current(current):
    pos = POSITIONS["fishfry mid"]
    data = saved(pos)
    assert isinstance(data["current"], int)
    if data["current"] == current and type(current) is int:
        current = 1 - current  # the other player
    data["current"] = current
    refused(try_load(pos, data), "current")


def test_current_on_a_finished_game(fishfry_over):
    data = saved(fishfry_over)
    data["current"] = 0
    refused(try_load(fishfry_over, data), "current")


KEYS = ["format", "game", "players", "g", "p", "dice", "stack", "history", "redact", "up", "mixed", "current", "seed",
        "draws", "manual"]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("value", [None, "x", 12345, [], {}, [[[]]], True, -1, 1.5])
def test_wrong_type(key, value):
    pos = POSITIONS["fishfish mid"]
    data = saved(pos)
    if data[key] == value and type(data[key]) is type(value):
        pytest.skip("not an edit")
    data[key] = value
    out = try_load(pos, data)
    generator = (key == "seed" and type(value) is int) or (key == "draws" and type(value) is int and value >= 0) \
        or (key == "manual" and type(value) is bool)
    if generator and out.status == "ok":
        return  # the same position, whose chance is drawn another way from now on (see README)
    refused(out, key)


@pytest.mark.parametrize("key", KEYS)
def test_missing_key(key):
    pos = POSITIONS["fishfish mid"]
    data = saved(pos)
    del data[key]
    refused(try_load(pos, data), key)


def test_extra_keys_change_nothing_or_are_refused():
    pos = POSITIONS["fishfish mid"]
    data = saved(pos)
    data["cheat"] = {"score": 1000}
    data["__proto__"] = None
    out = try_load(pos, data)
    if out.status != "ok":
        refused(out)


@pytest.mark.parametrize("field", ["g", "p", "history", "stack", "dice", "up", "redact", "mixed"])
def test_deeply_nested_lists(field):
    pos = POSITIONS["fishfish mid"]
    text = dump(saved(pos))
    deep = "[" * 100_000 + "]" * 100_000
    text = text.replace(f'"{field}":', f'"{field}":{deep},"_{field}":', 1)
    refused(try_load(pos, text))


@pytest.mark.parametrize("text", ["[" * 1_000_000, "[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000])
def test_deeply_nested_documents(text):
    refused(try_load(POSITIONS["fishfry start"], text))


@pytest.mark.parametrize("field,value", [("draws", "1" * 5000), ("seed", "9" * 4301), ("players", "2" + "0" * 5000),
                                         ("current", "1" * 5000), ("draws", "1e999"), ("draws", "-1"),
                                         ("players", "1e308")])
def test_huge_and_odd_numbers(field, value):
    pos = POSITIONS["fishfry mid"]
    text = dump(saved(pos))
    text = re.sub(rf'"{field}":[^,}}]*', f'"{field}":{value}', text, count=1)
    # a number too long to read may be reported as JSON that cannot be read, without the field
    refused(try_load(pos, text), None if len(value) > 100 else field)


@pytest.mark.parametrize("field", ["seed", "draws", "players", "current"])
@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity(field, value):
    pos = POSITIONS["fishfry mid"]
    text = re.sub(rf'"{field}":[^,}}]*', f'"{field}":{value}', dump(saved(pos)), count=1)
    refused(try_load(pos, text), field)


def test_nan_inside_values():
    pos = POSITIONS["fishfry mid"]
    text = dump(saved(pos)).replace('"dice":[', '"dice":[NaN,', 1)
    refused(try_load(pos, text), "dice")


@pytest.mark.parametrize("edit", ["up -1", "up big", "redact -1", "redact big", "stack pc -1", "stack block -1",
                                  "stack block big", "mixed -1", "up dup"])
def test_negative_and_out_of_range_indices(edit):
    pos = POSITIONS["fishfish mid"]
    data = saved(pos)
    what, how = edit.split(" ", 1)
    val = {"-1": -1, "big": 10**9, "dup": None}[how.split(" ")[-1]]
    if what == "up":
        data["up"] = data["up"] + [data["up"][0] if how == "dup" else val]
    elif what == "redact":
        data["redact"][0][0] = val
    elif what == "mixed":
        data["mixed"] = [val]
    elif edit == "stack pc -1":
        data["stack"][-1][1] = -1
    else:
        data["stack"][-1][0] = val
    refused(try_load(pos, data))


def test_hidden_card_turned_face_up():
    pos = POSITIONS["fishfish mid"]
    data = saved(pos)
    hidden = [c for c in range(40) if c not in data["up"]]
    data["up"] = sorted(data["up"] + hidden[:1])
    refused(try_load(pos, data), "up")


def test_redaction_removed():
    # without its redaction a secret choice would show in everybody's history
    pos = POSITIONS["fishfish mid"]
    data = saved(pos)
    assert data["redact"]
    data["redact"] = []
    refused(try_load(pos, data), "redact")


@pytest.mark.parametrize("cut", [0, 1, 10, 100, -1, -2, -10])
def test_truncated_text(cut):
    pos = POSITIONS["fisheatfish mid"]
    text = dump(saved(pos))
    refused(try_load(pos, text[:cut]))


@pytest.mark.parametrize("text", ["", " ", "null", "[]", "{}", "1", '"state"', "\x00", "true", "[1, 2]",
                                  '{"format": "fishrules-state/1"}', b"{}", b"\xff\xfe", None, 42, ["x"]])
def test_not_a_state(text):
    refused(try_load(POSITIONS["fishfry start"], text))


def test_state_of_another_ruleset():
    keeper = dump(saved(("fishfry-keeper", 1, 3)))
    refused(try_load(POSITIONS["fishfry mid"], keeper), "game")


def test_state_json_size_limit():
    pos = POSITIONS["fishfry mid"]
    text = dump(saved(pos))
    M = L["MAX_STATE_BYTES"]
    at = text[:-1] + " " * (M - len(text)) + "}"
    assert len(at.encode()) == M
    out = try_load(pos, at)
    assert out.status == "ok", f"a state of exactly MAX_STATE_BYTES was refused: {out}"
    refused(try_load(pos, text[:-1] + " " * (M - len(text) + 1) + "}"))
    refused(try_load(pos, text[:-1] + " " * (100 << 20) + "}"))


def test_history_that_disagrees_with_the_position():
    pos = POSITIONS["fishfry mid"]
    data = saved(pos)
    shorter = copy.deepcopy(data)
    shorter["history"] = shorter["history"][:-1]
    refused(try_load(pos, shorter), "history")
    other = copy.deepcopy(data)
    other["history"][-1] = other["history"][-1].replace("rolls HEAD", "rolls TAIL").replace("rolls BODY", "rolls HEAD")
    if other["history"] != data["history"]:
        refused(try_load(pos, other), "history")


@pytest.mark.parametrize("entry", ["reroll 9", "p²", "poke p²", "", "\x00", "stay " * 1000, 5, None, ["stay"],
                                   {"a": 1}, 1.5, True])
def test_history_entry_the_rules_do_not_allow(entry):
    pos = POSITIONS["fishfry mid"]
    data = saved(pos)
    data["history"][2] = entry
    out = try_load(pos, data)
    refused(out, "history")
    assert re.search(r"(?<![0-9])(2|3)(?![0-9])", out.message) or (isinstance(entry, str) and entry and entry[:20] in out.message), \
        f"the message does not say which history entry: {out.message}"


# ---- Game.replay ---------------------------------------------------------------------------------------------


def replay_refused(history, players=2, options=None, ruleset="fishfry", **kw):
    out = run(sc.replay, ruleset, history, players, options, timeout=FAST, **kw)
    refused(out)
    return out


@pytest.mark.parametrize("history", [["p²"], ["die 1 rolls HEAD", "p²"], ["reroll ²"], [None], [5], [["stay"]],
                                     [{"a": 1}], "stay", None, 5, [b"die 1 rolls HEAD"],
                                     ["die 1 rolls HEAD"] * 100_000, ["\x00"], ["x" * 10_000_000]])
def test_replay_of_a_bad_history(history):
    replay_refused(history)


def test_replay_names_the_entry():
    out = replay_refused(["die 1 rolls HEAD", "die 2 rolls HEAD", "die 3 rolls HEAD", "reroll 9"])
    assert re.search(r"(?<![0-9])(3|4)(?![0-9])", out.message) or "reroll 9" in out.message, out.message


def _replay_nested(depth: int) -> dict:
    nested: list = []
    for _ in range(depth):
        nested = [nested]
    return sc.replay("fishfry", [nested], 2, None)


def test_replay_of_a_deeply_nested_history():
    refused(run(_replay_nested, 100_000, timeout=FAST))


@pytest.mark.parametrize("players", ["3", 0, 1, 9, 99, 2.0, None, True, -1, 10**30])
def test_replay_with_bad_players(players):
    replay_refused([], players=players)


@pytest.mark.parametrize("options", [{"rounds": "x"}, {"rounds": 10**30}, {"nope": 1}, [1], "rounds=3", {1: 2}])
def test_replay_with_bad_options(options):
    replay_refused([], options=options, ruleset="fishfry-keeper")


@pytest.mark.parametrize("seed", ["x", 1.5, [1]])
def test_replay_with_a_bad_seed(seed):
    replay_refused([], seed=seed)


def test_a_good_replay_still_works(fishfry_over):
    info = run(sc.position_info, *fishfry_over).value
    out = run(sc.replay, "fishfry", info["history"], 2, None)
    assert out.status == "ok" and out.value["over"], out
