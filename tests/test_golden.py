"""Golden records: every bundled ruleset plays, seed for seed, exactly as it did when they were made.

`tests/golden/<ruleset>.json` holds, for every bundled ruleset and overlay, a fixed set of games
(`plan()` below): the fewest, the most and one middle number of players, seeds 1 and 2 each; one
game with every option it can change at once set to a non-default value (and a game of its own for
any other non-default value: one that `start()` refuses is recorded as the refusal); and one game
with manual chance, with the fewest players.  Choices are made by `random.Random(seed)`, uniformly
among `legal_actions()` (at a simultaneous choice, each player of `state.waiting` in order, among
`legal_actions(p)`), and with manual chance uniformly among `chance_outcomes()`.  Per game, the file
records:

- the players, seed, options and chance mode; the full `history`; how many actions were applied
  (`steps`, at most `MAX_STEPS`) and whether the game ended;
- at every step (each `apply`), a short sha256 of who acts (`current`, `waiting`) and what they may
  do: the legal action texts and their `breaks`, or at a chance node each outcome's text, exact
  probability and `to`; and every `FULL_EVERY` steps that list in full, so that a failure reads;
- short sha256s of `json.dumps(view(p), sort_keys=True)` for the spectator and every seat at the
  start, the middle and the end; and of all views after every step, `FULL_EVERY` steps at a time;
- at the end, `scores()`, `winners()`, `ranking()`, `len(to_json())`, and short sha256s of
  `events_for(p)` and `history_for(p)` for the spectator and every seat.

Per-seat lists are in seat order: the spectator (`view(None)`) first, then players 0, 1, ...  A file
also records the ruleset's title, player counts and options, and the test checks that the plan is
still the recorded one.

The test plays the same games again and compares.  For each game that differs it says, in the order
they happened, the first decision, history entry and view that differ (the step is the number of
actions applied before it; history entries count from 0, chance included), then what differs at the
end; an exception raised by the engine is reported with its step.

Regenerate with

    FISHRULES_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden.py

but only when a change of behaviour is intended (a rule fixed, an action renamed, a view extended),
and after reading the diff of `tests/golden/` to check that it changes what was meant and nothing
else.  A rewrite of the engine meant to play the same games (a new compiler, a faster runtime) must
pass without regenerating.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest

import fishrules
from fishrules import CHANCE, SIMULTANEOUS

GOLDEN = Path(__file__).with_name("golden")
UPDATE = os.environ.get("FISHRULES_UPDATE_GOLDEN") == "1"
RULESETS = fishrules.bundled()

SEEDS = (1, 2)
OPTIONS_SEED = 4  # the games with non-default options
MANUAL_SEED = 1  # the game with manual chance
MAX_STEPS = 2000  # actions applied per game, chance included when manual; the longest here takes 370
FULL_EVERY = 50  # the full list of legal actions is kept at every step divisible by this
HASH_LEN = 8  # hex digits kept of each sha256: 32 bits, ample for telling a change
PER_LINE = 12  # decision hashes per line of a file


def digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:HASH_LEN]


# ---- what is played ----------------------------------------------------------------------------------


def describe(game: fishrules.Game) -> dict:
    """The ruleset's outline: a change there changes what the plan plays."""
    return {
        "title": game.title,
        "players": [game.min_players, game.max_players],
        "options": {name: {"kind": o.kind, "default": o.default, "low": o.low, "high": o.high,
                           "choices": list(o.choices)}
                    for name, o in sorted(game.options.items())},
    }


def other_values(option) -> list:
    """The non-default values of an option that the plan plays: every other choice, the other
    yes-or-no, a number between the lowest and the default (shorter games)."""
    if option.kind == "choice":
        return [c for c in option.choices if c != option.default]
    if option.kind == "yes or no":
        return [not option.default]
    if option.kind == "number":
        low = option.default if option.low is None else option.low
        if option.default > low:
            return [(low + option.default) // 2]
        return [option.default + 1]
    raise AssertionError(f"an option of a kind the golden plan does not know: {option!r}")


def accepted(game: fishrules.Game, players: int, options: dict) -> bool:
    """Whether `start()` accepts these options."""
    try:
        game.start(players=players, seed=OPTIONS_SEED, options=options)
    except fishrules.OptionError:
        return False
    return True


def plan(game: fishrules.Game) -> list[dict]:
    """The games recorded for a ruleset."""
    lo, hi = game.min_players, game.max_players
    counts = sorted({lo, (lo + hi) // 2, hi})
    middle = counts[len(counts) // 2]
    games = [{"players": n, "seed": seed, "options": {}, "chance": "seeded"} for n in counts for seed in SEEDS]
    # One game changes every option it can at once; a value that cannot join it (refused by
    # start(), or a second non-default choice) gets a game of its own.
    changed, alone = {}, []
    for name, option in sorted(game.options.items()):
        for value in other_values(option):
            if name not in changed and accepted(game, middle, {**changed, name: value}):
                changed[name] = value
            else:
                alone.append({name: value})
    for options in ([changed] if changed else []) + alone:
        games.append({"players": middle, "seed": OPTIONS_SEED, "options": options, "chance": "seeded"})
    games.append({"players": lo, "seed": MANUAL_SEED, "options": {}, "chance": "manual"})
    return games


def label(name: str, spec: dict) -> str:
    text = f"{name} {spec['players']} players seed {spec['seed']}"
    for key, value in spec["options"].items():
        text += f" {key}={json.dumps(value) if isinstance(value, bool) else value}"
    if spec["chance"] == "manual":
        text += " manual chance"
    return text


# ---- playing and recording -------------------------------------------------------------------------


def play(game: fishrules.Game, spec: dict) -> dict:
    """Play one game of the plan; everything observed, in full (`compact` makes the file record)."""
    try:
        state = game.start(players=spec["players"], seed=spec["seed"], options=spec["options"], chance=spec["chance"])
    except fishrules.OptionError as e:  # an option value the ruleset refuses: the refusal is recorded
        return {**spec, "refused": str(e)}
    rng = random.Random(spec["seed"])
    seats = [None, *range(spec["players"])]
    steps = []  # at every decision: history length before it, who acts, what they may do
    views = []  # at every state (before each step, and at the end): a hash of each seat's view
    try:
        while True:
            views.append([digest(state.view(p)) for p in seats])
            if state.is_over or len(steps) >= MAX_STEPS:
                break
            current = state.current
            waiting = state.waiting
            if current == CHANCE:
                outcomes = state.chance_outcomes()
                choices = [a for a, _ in outcomes]
                listed = [[str(a), str(p), a.to] for a, p in outcomes]
            else:
                choices = state.legal_actions(waiting[0]) if current == SIMULTANEOUS else state.legal_actions()
                listed = [[str(a), a.breaks] for a in choices]
            steps.append({"at": len(state.history), "current": current, "waiting": waiting, "actions": listed})
            state.apply(rng.choice(choices))
        return {
            **spec,
            "over": state.is_over,
            "steps": len(steps),
            "scores": state.scores(),
            "winners": state.winners(),
            "ranking": state.ranking(),
            "to_json_length": len(state.to_json()),
            "events_for": [digest(state.events_for(p)) for p in seats],
            "history_for": [digest(state.history_for(p)) for p in seats],
            "history": list(state.history),
            "_steps": steps,
            "_views": views,
        }
    except Exception as e:
        raise Raised(f"at step {len(steps)} (history entry {len(state.history)}) the engine raised "
                     f"{type(e).__name__}: {e}; the history before it: {state.history[-6:]!r}") from e


class Raised(Exception):
    """A game of the plan raised: where, and what."""


def decision(step: dict) -> list:
    return [step["current"], step["waiting"], step["actions"]]


def view_chunks(views: list) -> list[list[str]]:
    """Every view, FULL_EVERY steps at a time: per group of steps, a hash per seat."""
    return [[digest([seen[seat] for seen in views[i:i + FULL_EVERY]]) for seat in range(len(views[0]))]
            for i in range(0, len(views), FULL_EVERY)]


def shown(action: list) -> str:
    """An action as the file and the messages show it: its text, then what else is recorded."""
    if len(action) == 3:  # a chance outcome: text, probability, where a drawn card goes
        text, probability, to = action
        return f"{text} [{probability}{', to ' + to if to else ''}]"
    text, breaks = action
    return text if breaks is None else f"{text} [breaks {breaks}]"


def compact(record: dict) -> dict:
    """What the file keeps of a game: hashes, except the history and every FULL_EVERY-th list."""
    if "refused" in record:
        return dict(record)
    views, steps = record["_views"], record["_steps"]
    middle = len(steps) // 2
    hashes = [digest(decision(s)) for s in steps]
    out = {k: v for k, v in record.items() if not k.startswith("_") and k != "history"}
    out["views_at"] = {"start": [0, views[0]], "middle": [middle, views[middle]], "end": [len(steps), views[-1]]}
    out["view_chunks"] = view_chunks(views)
    out["decisions"] = [" ".join(hashes[i:i + PER_LINE]) for i in range(0, len(hashes), PER_LINE)]
    out["full"] = {str(k): {"at": steps[k]["at"], "current": steps[k]["current"], "waiting": steps[k]["waiting"],
                            "actions": [shown(a) for a in steps[k]["actions"]]}
                   for k in range(0, len(steps), FULL_EVERY)}
    out["history"] = record["history"]
    return out


def record_ruleset(name: str) -> dict:
    game = fishrules.load(name)
    return {"ruleset": name, **describe(game), "games": [compact(play(game, spec)) for spec in plan(game)]}


# ---- the file format: JSON, compact but with short lines, so that a diff can be read ---------------

WIDTH = 100  # characters per line, not counting the indentation


def dumps(value, indent: int = 0) -> str:
    """JSON with one item per line, except that a short list or object is kept on one line and a
    list of strings or numbers fills its lines."""
    flat = json.dumps(value)
    if not isinstance(value, (dict, list)) or len(flat) <= WIDTH:
        return flat
    pad, end = " " * (indent + 1), "\n" + " " * indent
    if isinstance(value, dict):
        items = [f"{json.dumps(k)}: {dumps(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(pad + item for item in items) + end + "}"
    if any(isinstance(v, (dict, list)) for v in value):
        return "[\n" + ",\n".join(pad + dumps(v, indent + 1) for v in value) + end + "]"
    lines, line = [], ""
    for v in value:
        piece = json.dumps(v)
        if line and len(line) + len(piece) + 2 > WIDTH:
            lines.append(line)
            line = ""
        line = f"{line}, {piece}" if line else piece
    lines.append(line)
    return "[\n" + ",\n".join(pad + line for line in lines) + end + "]"


def golden_path(name: str) -> Path:
    return GOLDEN / f"{name}.json"


def write(name: str) -> None:
    GOLDEN.mkdir(exist_ok=True)
    golden_path(name).write_text(dumps(record_ruleset(name)) + "\n")


# ---- comparing --------------------------------------------------------------------------------------

SHOWN = 30  # actions shown in a message, at most


def show_actions(actions: list) -> str:
    """A list of actions (as `shown` writes them) for a message."""
    more = f", ... ({len(actions) - SHOWN} more)" if len(actions) > SHOWN else ""
    return "[" + ", ".join(actions[:SHOWN]) + more + "]"


def who(step: dict) -> str:
    current = step["current"]
    if current == CHANCE:
        return "the chance outcomes"
    if current == SIMULTANEOUS:
        return f"the legal actions (simultaneous, waiting for {step['waiting']})"
    return f"the legal actions of player {current}"


def seat_name(i: int) -> str:
    return "the spectator" if i == 0 else f"player {i - 1}"


def history_context(expected: list, got: list, at: int) -> str:
    lo = max(0, at - 3)
    return (f"\n    history around it, expected {expected[lo:at + 3]!r}"
            f"\n                       got {got[lo:at + 3]!r} (from entry {lo})")


def differences(exp: dict, got: dict) -> list[tuple[tuple, str]]:
    """Every way one recorded game differs from the same game played now: (when, message) pairs,
    `when` ordering them as they happened."""
    if "refused" in exp or "refused" in got:
        if exp.get("refused") != got.get("refused"):
            return [((-1, 0), f"start() refused with {exp.get('refused')!r}, now {got.get('refused')!r}")]
        return []
    found = []
    steps, views = got["_steps"], got["_views"]
    ats = [s["at"] for s in steps]

    def step_of_entry(h: int) -> int:
        # the step whose action wrote history entry h (-1: written by start())
        k = -1
        for i, at in enumerate(ats):
            if at <= h:
                k = i
        return k

    # The decisions: who acts and what they may do.
    hashes = [digest(decision(s)) for s in steps]
    for k, (e, g) in enumerate(zip(" ".join(exp["decisions"]).split(), hashes)):
        if e != g:
            step = steps[k]
            now = [shown(a) for a in step["actions"]]
            full = exp["full"].get(str(k))
            if full is not None:
                if who(full) == who(step):
                    text = f"expected {show_actions(full['actions'])},\n    got {show_actions(now)}"
                else:
                    text = (f"expected {who(full)}: {show_actions(full['actions'])},\n"
                            f"    got {who(step)}: {show_actions(now)}")
                gone = [a for a in full["actions"] if a not in now]
                new = [a for a in now if a not in full["actions"]]
                if full["actions"] != now:
                    if gone or new:
                        text += f"\n    missing {show_actions(gone)}, new {show_actions(new)}"
                    else:
                        text += "\n    the same actions, in another order"
            else:
                text = (f"got {show_actions(now)} (the expected list is kept "
                        f"only every {FULL_EVERY} steps){history_context(exp['history'], got['history'], step['at'])}")
            found.append(((k, 1), f"at step {k} (history entry {step['at']}) {who(step)} differ; {text}"))
            break

    # The history: dice, deals and choices.
    eh, gh = exp["history"], got["history"]
    first = next((i for i, (e, g) in enumerate(zip(eh, gh)) if e != g), None)
    if first is not None:
        k = step_of_entry(first)
        where = "by start()" if k < 0 else f"by step {k}"
        found.append(((k, 2), f"history entry {first} (written {where}) differs: expected {eh[first]!r}, "
                              f"got {gh[first]!r}{history_context(eh, gh, first)}"))
    elif len(eh) != len(gh):
        n = min(len(eh), len(gh))
        found.append(((step_of_entry(n), 2), f"the history has {len(gh)} entries, expected {len(eh)}; from entry {n}, "
                                             f"expected {eh[n:n + 5]!r}, got {gh[n:n + 5]!r}"))

    # The views: at every step, grouped; in full at the start, the middle and the end.
    for c, (e, g) in enumerate(zip(exp["view_chunks"], view_chunks(views))):
        seen = [seat_name(i) for i, (a, b) in enumerate(zip(e, g)) if a != b]
        if seen:
            lo, hi = c * FULL_EVERY, min((c + 1) * FULL_EVERY, len(views)) - 1
            found.append(((hi, 0), f"the view of {', '.join(seen)} differs after at least one of steps {lo} to {hi} "
                                   f"(every view is recorded, hashed {FULL_EVERY} steps at a time)"))
            break
    for point, (k, hashes_then) in exp["views_at"].items():
        if k < len(views):
            seen = [seat_name(i) for i, (e, g) in enumerate(zip(hashes_then, views[k])) if e != g]
            if seen:
                found.append(((k, 0), f"at step {k} ({point}) the view of {', '.join(seen)} differs"))

    # The end.
    end = (float("inf"), 3)
    if exp["over"] != got["over"]:
        found.append((end, f"the game {'ended' if got['over'] else 'did not end'} within {MAX_STEPS} steps, "
                           f"expected the opposite"))
    if exp["steps"] != got["steps"]:
        found.append((end, f"the game took {got['steps']} steps, expected {exp['steps']}"))
    for key in ("scores", "winners", "ranking"):
        if exp[key] != got[key]:
            found.append((end, f"at the end, {key}() is {got[key]!r}, expected {exp[key]!r}"))
    if exp["to_json_length"] != got["to_json_length"]:
        found.append((end, f"at the end, len(to_json()) is {got['to_json_length']}, expected {exp['to_json_length']}"))
    for key in ("events_for", "history_for"):
        seen = [seat_name(i) for i, (e, g) in enumerate(zip(exp[key], got[key])) if e != g]
        if seen or len(exp[key]) != len(got[key]):
            found.append((end, f"at the end, {key}() of {', '.join(seen) or 'some seat'} differs"))
    return sorted(found, key=lambda f: f[0])


def check(name: str) -> None:
    path = golden_path(name)
    if not path.exists():
        pytest.fail(f"{name}: no golden record {path}; make it with FISHRULES_UPDATE_GOLDEN=1 "
                    "(see this module's docstring)")
    expected = json.loads(path.read_text())
    game = fishrules.load(name)
    outline = describe(game)
    for key, value in outline.items():
        assert expected[key] == value, f"{name}: the ruleset's {key} changed: recorded {expected[key]!r}, now {value!r}"
    games = plan(game)
    recorded = [{k: g[k] for k in ("players", "seed", "options", "chance")} for g in expected["games"]]
    assert recorded == games, f"{name}: the recorded games are not the plan's: recorded {recorded}, planned {games}"
    failures = []
    for spec, exp in zip(games, expected["games"]):
        try:
            found = differences(exp, play(game, spec))
        except Raised as e:
            found = [((0, 0), str(e))]
        if found:
            lines = "\n  ".join(message for _, message in found)
            failures.append(f"{label(name, spec)}: {lines}")
    if failures:
        pytest.fail("golden records differ (regenerate only for an intended change; see this module's docstring)\n"
                    + "\n".join(failures), pytrace=False)


@pytest.mark.parametrize("name", RULESETS)
def test_golden(name):
    if UPDATE:
        write(name)
    check(name)


def test_every_bundled_ruleset_has_a_record():
    recorded = {p.stem for p in GOLDEN.glob("*.json")}
    assert not set(RULESETS) - recorded, f"no golden record for {sorted(set(RULESETS) - recorded)}"
    stale = sorted(recorded - set(RULESETS))
    assert not stale, f"golden records of rulesets no longer bundled: {stale}"
