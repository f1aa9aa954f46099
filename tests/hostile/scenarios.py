"""What the hostile-input tests run inside the harness worker (see harness.py).

Each function takes plain data (texts, names, numbers), drives the public API of fishrules the way an
embedding server would, and returns plain data saying what happened.  Exceptions the contract allows
are caught and described (`describe`); any other exception escapes, and the harness reports it.  A
contract breach that is not an exception (a state changed by a refused call, an empty list of legal
actions for a player who must act, a JSON round trip that loses something) raises `Violation`.

The contract (issue 11): a bad rule file raises `RuleError`; a run-time fault of a checked ruleset
raises `RuleError` from the call and leaves the state exactly as it was; a bad action raises
`IllegalAction` and changes nothing; a bad saved state or history raises `StateError`; bad
players/options raise `OptionError`.  Nothing else escapes.
"""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from typing import Any, Optional

import fishrules

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
RULESETS = ROOT / "rulesets"


class Violation(AssertionError):
    """The engine broke the contract without raising (found inside the worker)."""


# ---- describing what happened --------------------------------------------------------------------


def describe(exc: BaseException) -> dict:
    """An exception as plain data: its type, base classes, message, and diagnostics."""
    from .harness import _diags, _safe_str

    t = type(exc)
    return {
        "type": t.__name__,
        "module": t.__module__,
        "mro": [c.__name__ for c in t.__mro__],
        "message": _safe_str(exc),
        "diagnostics": _diags(exc),
        "rule": getattr(exc, "rule", None),
        "span_line": getattr(getattr(exc, "span", None), "line", None),
    }


def is_ours(exc: BaseException, name: str) -> bool:
    return type(exc).__module__.startswith("fishrules") and name in [c.__name__ for c in type(exc).__mro__]


# ---- loading ---------------------------------------------------------------------------------------


def summary(game) -> dict:
    return {
        "title": game.title,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "options": sorted(game.options),
        "warnings": [d.render() for d in game.warnings],
        "files": list(game.files),
    }


def load_text(text: str, name: str = "x.fish", base_dir: Optional[str] = None, variant: Optional[str] = None) -> dict:
    kw = {} if base_dir is None else {"base_dir": base_dir}
    return summary(fishrules.loads(text, name=name, variant=variant, **kw))


def load_path(path: str, variant: Optional[str] = None) -> dict:
    return summary(fishrules.load(path, variant=variant))


def load_text_with_rulesets(text: str, name: str = "x.fish") -> dict:
    """A mutated bundled ruleset: its `extends` finds the other bundled files."""
    return load_text(text, name=name, base_dir=str(RULESETS))


# ---- playing ---------------------------------------------------------------------------------------


def chooser(state) -> Optional[int]:
    w = state.waiting
    return w[0] if w else None


def legal_now(state) -> list:
    if state.current == fishrules.SIMULTANEOUS:
        return state.legal_actions(chooser(state))
    return state.legal_actions()


def must_act(state) -> Optional[int]:
    """The player who must act now, or None (chance, or over)."""
    cur = state.current
    if cur is None or cur == fishrules.CHANCE:
        return None
    if cur == fishrules.SIMULTANEOUS:
        return chooser(state)
    return cur


def _check_rollback(state, before_json: str, clone, what: str) -> None:
    after = state.to_json()
    if after != before_json or not (state == clone):
        raise Violation(f"{what} raised a RuleError but changed the state")


def play(game, players: Optional[int] = None, seed: int = 0, actions: int = 10, roundtrip: bool = True,
         views: bool = True) -> dict:
    """Start a game and play random legal actions, checking the contract at every step: views,
    scores and JSON of every position; a RuleError from any call leaves the state as it was; a
    player who must act has something to do."""
    report: dict[str, Any] = {"started": False, "actions": 0, "runtime_error": None, "option_error": None}
    n = game.min_players if players is None else players
    try:
        state = game.start(players=n, seed=seed)
    except fishrules.RuleError as e:
        report["runtime_error"] = describe(e) | {"during": "start"}
        return report
    except fishrules.OptionError as e:  # `unavailable` rules stop with an OptionError
        report["option_error"] = describe(e)
        return report
    report["started"] = True
    rng = random.Random(seed)
    for step in range(actions + 1):
        before = state.to_json()
        clone = state.clone()
        during = "view"
        try:
            if views:
                for p in [None, *range(state.n)]:
                    state.view(p)
            during = "scores"
            state.scores()
            if state.is_over:
                during = "winners"
                state.winners()
                break
            if step == actions:
                break
            during = "legal_actions"
            acts = legal_now(state)
            if not acts:
                raise Violation(f"softlock: {state.current!r} must act in phase {state.phase} but has no legal action")
            action = rng.choice(acts)
            during = f"apply({action})"
            state.apply(action)
        except fishrules.RuleError as e:
            _check_rollback(state, before, clone, during)
            state.clone()
            report["runtime_error"] = describe(e) | {"during": during}
            return report
        except fishrules.OptionError as e:
            report["option_error"] = describe(e) | {"during": during}
            return report
        report["actions"] = step + 1 if during.startswith("apply") else step
        if roundtrip:
            text = state.to_json()
            again = game.state_from_json(text)
            if again != state or again.to_json() != text:
                raise Violation(f"to_json/state_from_json changed the state after {state.history[-3:]}")
    report["over"] = state.is_over
    return report


def exercise_text(text: str, name: str = "x.fish", base_dir: Optional[str] = None, seed: int = 0, actions: int = 8,
                  players: Optional[int] = None) -> dict:
    """Load rules from a text (a RuleError escapes), then `play` them."""
    kw = {} if base_dir is None else {"base_dir": base_dir}
    game = fishrules.loads(text, name=name, **kw)
    report = play(game, players=players, seed=seed, actions=actions)
    report["game"] = summary(game)
    return report


def exercise_mutant(text: str, name: str, seed: int = 0, actions: int = 6) -> dict:
    return exercise_text(text, name=name, base_dir=str(RULESETS), seed=seed, actions=actions)


# ---- one API call, and what it left behind -----------------------------------------------------------


def call_and_rollback(text: str, call: tuple, *, players: int = 2, seed: int = 0, chance: str = "seeded",
                      script: tuple = (), then: tuple = (), name: str = "x.fish") -> dict:
    """Load `text`, start, apply the action texts of `script`, then make one API call (`call`:
    ("apply", TEXT) / ("legal_actions",) / ("legal_actions", P) / ("scores",) / ("view", P) /
    ("winners",)).  Reports what the call returned or raised, whether the state is exactly as it
    was (when it raised), and whether the calls of `then` work afterwards."""
    game = fishrules.loads(text, name=name)
    state = game.start(players=players, seed=seed, chance=chance)
    for a in script:
        state.apply(a)
    before = state.to_json()
    clone = state.clone()
    out: dict[str, Any] = {"raised": None, "value": None}
    try:
        value = getattr(state, call[0])(*call[1:])
        out["value"] = _plain(value)
    except Exception as e:  # noqa: BLE001 - reported, the test decides
        out["raised"] = describe(e)
    out["unchanged"] = state.to_json() == before and state == clone
    out["history"] = list(state.history)
    follow = []
    for c in then:
        try:
            follow.append(("ok", _plain(getattr(state, c[0])(*c[1:]))))
        except Exception as e:  # noqa: BLE001
            follow.append(("raised", describe(e)))
    out["then"] = follow
    return out


def _plain(value):
    if isinstance(value, fishrules.State):
        return {"current": value.current, "history": list(value.history), "over": value.is_over}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, fishrules.Action):
        return str(value)
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


def start_only(text: str, players: Optional[int] = None, seed: int = 0, options: Optional[dict] = None,
               chance: str = "seeded", name: str = "x.fish") -> dict:
    """Load and start; report the first position (a RuleError from either escapes)."""
    game = fishrules.loads(text, name=name)
    state = game.start(players=game.min_players if players is None else players, seed=seed, options=options,
                       chance=chance)
    return {"current": state.current, "phase": state.phase, "over": state.is_over,
            "legal": [str(a) for a in legal_now(state)] if not state.is_over else [],
            "history": list(state.history)}


# ---- bundled positions, for actions and saved states ---------------------------------------------------

_positions: dict = {}
_games: dict = {}


def _game(ruleset: str):
    """A bundled ruleset by name, or rules given as text (anything with a newline)."""
    if ruleset not in _games:
        if "\n" in ruleset:
            _games[ruleset] = fishrules.loads(ruleset, name="x.fish", base_dir=str(RULESETS))
        else:
            _games[ruleset] = fishrules.load(ruleset)
    return _games[ruleset]


def find_steps(ruleset: str, seed: int, where: str, players: Optional[int] = None, limit: int = 400) -> Optional[int]:
    """The fewest random steps (as `position` plays them) after which `where` holds: "simultaneous",
    "chance", "p0", "p1", or "over"."""
    for steps in range(limit):
        s = position(ruleset, seed, steps, players)
        cur = s.current
        if (where == "simultaneous" and cur == fishrules.SIMULTANEOUS) or (where == "chance" and cur == fishrules.CHANCE) \
                or (where == "over" and s.is_over) or (where[:1] == "p" and cur == int(where[1:])):
            return steps
        if s.is_over:
            return None
    return None


def position(ruleset: str, seed: int, steps: int, players: Optional[int] = None, chance: str = "seeded"):
    """A state of a bundled ruleset after `steps` random legal actions (or fewer, if the game ends),
    cached; callers get a clone."""
    key = (ruleset, seed, steps, players, chance)
    if key not in _positions:
        game = _game(ruleset)
        state = game.start(players=players or game.min_players, seed=seed, chance=chance)
        rng = random.Random(seed * 7919 + steps)
        for _ in range(steps):
            if state.is_over:
                break
            state.apply(rng.choice(legal_now(state)))
        _positions[key] = state
    return _positions[key].clone()


def state_json(ruleset: str, seed: int, steps: int, players: Optional[int] = None, chance: str = "seeded") -> str:
    return position(ruleset, seed, steps, players, chance).to_json()


def position_info(ruleset: str, seed: int, steps: int, players: Optional[int] = None, chance: str = "seeded") -> dict:
    s = position(ruleset, seed, steps, players, chance)
    return {"current": s.current, "waiting": s.waiting, "over": s.is_over, "history": list(s.history),
            "legal": [str(a) for a in legal_now(s)] if not s.is_over else [], "json": s.to_json(), "n": s.n}


def apply_text(ruleset: str, seed: int, steps: int, text, players: Optional[int] = None,
               chance: str = "seeded") -> dict:
    """Apply a (hostile) action text at a bundled position.  IllegalAction must change nothing; an
    accepted text must have done what one of the legal actions does."""
    state = position(ruleset, seed, steps, players, chance)
    before = state.to_json()
    clone = state.clone()
    legal = {}
    if not state.is_over:
        if state.current == fishrules.SIMULTANEOUS:
            for p in state.waiting:
                legal.update({str(a): a for a in state.legal_actions(p)})
        else:
            legal = {str(a): a for a in state.legal_actions()}
    try:
        state.apply(text)
    except fishrules.IllegalAction as e:
        if state.to_json() != before or not (state == clone):
            raise Violation("an IllegalAction changed the state") from None
        return {"result": "illegal", "error": describe(e)}
    except fishrules.RuleError as e:  # the rules went wrong at run time: allowed, if nothing changed
        if state.to_json() != before or not (state == clone):
            raise Violation("a RuleError from apply() changed the state") from None
        return {"result": "rule error", "error": describe(e)}
    # accepted: it must be one of the legal actions (written another way), or a broken rule the
    # rules accept (`when … is broken`), which the history records
    recorded = state.history[len(clone.history)]
    if recorded not in legal:
        if recorded.split(" ")[0] not in {a.split(" ")[0] for a in legal} and \
                not any(r.split(": ", 1)[-1] == recorded.split(": ", 1)[-1] for r in legal):
            raise Violation(f"{text!r} was accepted as {recorded!r}, which is not a legal action here")
    return {"result": "applied", "recorded": recorded}


def apply_object(ruleset: str, seed: int, steps: int, source: dict, players: Optional[int] = None) -> dict:
    """Apply an Action object taken from another position (`source`: ruleset/seed/steps/player, or
    a rules text) to a bundled position; report whether it was refused and whether the state
    changed."""
    state = position(ruleset, seed, steps, players)
    if "text" in source:
        other_game = fishrules.loads(source["text"], name="other.fish", base_dir=str(RULESETS))
        other = other_game.start(players=source.get("players", 2), seed=source.get("seed", 0))
        rng = random.Random(0)
        for _ in range(source.get("steps", 0)):
            other.apply(rng.choice(legal_now(other)))
    else:
        other = position(source["ruleset"], source["seed"], source["steps"], source.get("players"),
                         source.get("chance", "seeded"))
    if "player" in source:
        acts = other.legal_actions(source["player"])
    else:
        acts = legal_now(other)
    pick = source.get("pick")
    if pick is not None:
        action = next(a for a in acts if str(a) == pick)
    else:
        action = acts[source.get("index", 0)]
    before = state.to_json()
    clone = state.clone()
    out = {"action": str(action), "action_player": action.player, "current": state.current,
           "waiting": state.waiting, "raised": None}
    try:
        state.apply(action)
    except Exception as e:  # noqa: BLE001
        out["raised"] = describe(e)
    out["unchanged"] = state.to_json() == before and state == clone
    out["history_tail"] = state.history[len(clone.history):]
    return out


# ---- saved states --------------------------------------------------------------------------------------


def restore(ruleset: str, seed: int, steps: int, text, players: Optional[int] = None,
            chance: str = "seeded") -> dict:
    """`state_from_json` of an edited saved state of a bundled position.  If it loads, it must be
    exactly the saved position: equal, the same JSON (seed, draws and manual aside, which only say
    how future chance is drawn), and usable."""
    original = position(ruleset, seed, steps, players, chance)
    game = original.game
    restored = game.state_from_json(text)
    if not isinstance(restored, fishrules.State):
        raise Violation(f"state_from_json returned {type(restored).__name__}")
    mine = json.loads(original.to_json())
    theirs = json.loads(restored.to_json())
    for k in ("seed", "draws", "manual"):
        mine.pop(k, None)
        v = theirs.pop(k, None)
        if k == "manual" and not isinstance(v, bool):
            raise Violation(f"a loaded state has manual={v!r}")
        if k in ("seed", "draws") and (type(v) is not int or (k == "draws" and v < 0)):
            raise Violation(f"a loaded state has {k}={v!r}")
    if not (restored == original):
        raise Violation("state_from_json accepted an edited state that is not the saved position")
    if json.dumps(mine, sort_keys=True) != json.dumps(theirs, sort_keys=True):
        raise Violation("state_from_json accepted an edited state whose JSON differs from the saved one: "
                        + ", ".join(k for k in mine if mine.get(k) != theirs.get(k)))
    # usable, and the same as the original
    if not restored.is_over:
        if [str(a) for a in legal_now(restored)] != [str(a) for a in legal_now(original)]:
            raise Violation("a restored state offers other legal actions than the saved one")
    for p in [None, *range(restored.n)]:
        if restored.view(p) != original.view(p):
            raise Violation(f"a restored state shows player {p} another view")
    return {"loaded": True}


def restore_raw(ruleset: str, text) -> dict:
    """`state_from_json` of anything at all, for a bundled ruleset."""
    game = fishrules.load(ruleset)
    s = game.state_from_json(text)
    return {"loaded": True, "json": s.to_json()}


def replay(ruleset: str, history, players=2, options=None, **kw) -> dict:
    game = fishrules.load(ruleset)
    s = game.replay(history, players=players, options=options, **kw)
    return {"history": list(s.history), "over": s.is_over}


# ---- rules at the limits, compiled and played (test_generated_code.py) ------------------------------


def _nesting_refused(exc: fishrules.RuleError) -> bool:
    return any("nested more than" in d.message for d in exc.diagnostics)


def deepest(texts: list, name: str = "x.fish") -> int:
    """The last of `texts` (each nested deeper than the one before) that the parser takes, by
    bisection (-1: none).  A syntax error that is not about nesting escapes: the texts are wrong."""
    from fishrules.syntax import parse

    def taken(i: int) -> bool:
        try:
            parse(texts[i], name)
        except fishrules.RuleError as exc:
            if _nesting_refused(exc):
                return False
            raise
        return True

    lo, hi = -1, len(texts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if taken(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _agree(a: list, b: list) -> bool:
    """Two playthroughs of the same rules, compiled two ways, agree: step by step, up to the first
    error of either (cut into pieces, an expression may do more work, and so run out of its work
    budget sooner: a value the plain code keeps for a whole loop is worked out again inside a piece)."""
    for x, y in zip(a, b):
        if isinstance(x, tuple) or isinstance(y, tuple):
            return True
        if x != y:
            return False
    return len(a) == len(b)


def bracket_depth(source: str) -> int:
    """How deep brackets nest in Python source (CPython reads 200 at most)."""
    import io
    import tokenize

    depth = most = 0
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.OP and tok.string in ("(", "[", "{"):
            depth += 1
            most = max(most, depth)
        elif tok.type == tokenize.OP and tok.string in (")", "]", "}"):
            depth -= 1
    return most


@contextlib.contextmanager
def work_budget(steps: int):
    """The work budget of a call set to `steps` for a while: rules nested deep often do
    exponential work, and reach a budget of a million steps only after seconds."""
    from fishrules.compiler import program
    from fishrules.runtime import machine, zones

    readers = (program, machine, zones)  # the modules that read the budget (the runtime's loop and its moves)
    saved = [m.WORK_BUDGET for m in readers]
    for m in readers:
        m.WORK_BUDGET = steps
    try:
        yield
    finally:
        for m, v in zip(readers, saved):
            m.WORK_BUDGET = v


def at_the_limit(texts: list, knobs: list, players: Optional[int] = None, actions: int = 8,
                 name: str = "x.fish", budget: int = 5_000) -> dict:
    """Of `texts`, nested deeper and deeper, the deepest the parser takes must load (a RuleError
    escapes), and play: a seeded game of random moves (with a work budget of `budget` steps a
    call), which compiled with each of `knobs` (see tests/_compiling.py) goes the same.  The next
    text, if any, must be refused."""
    with work_budget(budget):
        return _at_the_limit(texts, knobs, players, actions, name)


def _at_the_limit(texts: list, knobs: list, players: Optional[int], actions: int, name: str) -> dict:
    from tests._compiling import compiled_with, playthrough

    k = deepest(texts, name)
    out: dict[str, Any] = {"deepest": k, "of": len(texts)}
    if k < 0:
        return out
    game = fishrules.loads(texts[k], name=name)
    out["brackets"] = bracket_depth(game._program.source)
    played = playthrough(game, players, seed=0, actions=actions)
    out["steps"] = len(played)
    out["errors"] = [x[1] for x in played if isinstance(x, tuple)]
    out["agree"] = []
    for kn in knobs:
        other = playthrough(compiled_with(game, kn), players, seed=0, actions=actions)
        out["errors"] += [x[1] for x in other if isinstance(x, tuple)]
        out["agree"].append(_agree(played, other))
    out["next"] = None
    if k + 1 < len(texts):
        try:
            fishrules.loads(texts[k + 1], name=name)
            out["next"] = "loaded"
        except fishrules.RuleError as exc:
            out["next"] = describe(exc)
    return out


def load_and_play(text: str, players: Optional[int] = None, actions: int = 8, knobs: tuple = (),
                  name: str = "x.fish", budget: int = 5_000) -> dict:
    """Load (a RuleError escapes) and play a seeded game (with a work budget of `budget` steps a
    call); with `knobs`, whether the game compiled each of those ways goes the same."""
    from tests._compiling import compiled_with, playthrough

    with work_budget(budget):
        game = fishrules.loads(text, name=name)
        played = playthrough(game, players, seed=0, actions=actions)
        out: dict[str, Any] = {"errors": [x[1] for x in played if isinstance(x, tuple)], "steps": len(played)}
        out["agree"] = [_agree(played, playthrough(compiled_with(game, kn), players, seed=0, actions=actions))
                        for kn in knobs]
    return out


def start_and_score(text: str, players: int = 2, name: str = "x.fish") -> list:
    """Load (a RuleError escapes), start and return the scores."""
    return fishrules.loads(text, name=name).start(players=players, seed=0).scores()


def pick_and_read(text: str, picks: list, var: str, name: str = "x.fish") -> list:
    """Apply each action text of `picks` in turn (answering any other decision with its first
    legal action), and read the game's value `var` after each."""
    state = fishrules.loads(text, name=name).start(players=2, seed=0)
    out = []
    for text_ in picks:
        state.apply(text_)
        out.append(state.view(None)["values"][var])
        while not state.is_over and not any(str(a).startswith(text_.split()[0]) for a in legal_now(state)):
            state.apply(legal_now(state)[0])
    return out


def choose_first_legal(text: str, name: str = "x.fish") -> tuple:
    """The legal actions of the first decision, and the scores once each decision has been
    answered with its first legal action."""
    state = fishrules.loads(text, name=name).start(players=2, seed=0)
    first = [str(a) for a in legal_now(state)]
    while not state.is_over:
        state.apply(legal_now(state)[0])
    return first, state.scores()


def play_to_the_end(text: str, name: str = "x.fish") -> tuple:
    """Answer every decision with its first legal action; the history and the scores."""
    state = fishrules.loads(text, name=name).start(players=2, seed=0)
    while not state.is_over:
        state.apply(legal_now(state)[0])
    return list(state.history), state.scores()


# ---- OpenSpiel's serialized states (test_openspiel.py) -----------------------------------------------

_os_games: dict = {}


def _os_game(ruleset: str, players: int, via: str = "make_game"):
    """The OpenSpiel game of a bundled ruleset (or rules as text): made by `make_game`, or (via
    "registered") by `pyspiel.load_game` of its registered name."""
    import pyspiel

    from fishrules.adapters import openspiel

    key = (ruleset, players, via)
    if key not in _os_games:
        if via == "registered":
            openspiel.register([ruleset])
            _os_games[key] = pyspiel.load_game(openspiel.PREFIX + ruleset.replace("-", "_"), {"players": players})
        else:
            _os_games[key] = openspiel.make_game(_game(ruleset), players=players)
    return _os_games[key]


def os_position(ruleset: str, players: int, seed: int, steps: int) -> dict:
    """A state of the OpenSpiel game after `steps` random moves (chance and simultaneous moves
    included): its `serialize()`, OpenSpiel's `serialize_game_and_state`, and what moves now."""
    import pyspiel

    game = _os_game(ruleset, players)
    state = game.new_initial_state()
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) if state.legal_actions(p) else 0
                                 for p in range(players)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    fs = state.fishrules_state
    return {"text": state.serialize(), "both": pyspiel.serialize_game_and_state(game, state),
            "player": state.current_player(), "simultaneous": state.is_simultaneous_node(),
            "waiting": list(fs.waiting) if state.is_simultaneous_node() else [],
            "legal": state.legal_actions() if not state.is_simultaneous_node() and not state.is_terminal() else [],
            "over": state.is_terminal(), "moves": state.move_number(), "json": fs.to_json()}


def os_read(ruleset: str, players: int, text, via: str = "make_game") -> dict:
    """Read a serialized state: by `game.deserialize_state` of the game made `via` ("make_game" or
    "registered"), or ("both") by `pyspiel.deserialize_game_and_state` of a whole text.  A
    StateError escapes.  What was read: OpenSpiel's history and move number, the fishrules state,
    and the state written again; they must agree (the fishrules state is the one these moves lead
    to, and its own history, replayed through fishrules, gives the same)."""
    if via == "both":
        import pyspiel

        _os_game(ruleset, players)  # registers it
        _, state = pyspiel.deserialize_game_and_state(text)
    else:
        state = _os_game(ruleset, players, via).deserialize_state(text)
    fs = state.fishrules_state
    again = fs.game.replay(list(fs.history), players=fs.n, options=fs._options())
    if again != fs:
        raise Violation("the fishrules state read is not the one its own history leads to")
    return {"moves": [(h.player, h.action) for h in state.full_history()], "move_number": state.move_number(),
            "json": fs.to_json(), "written": state.serialize(), "history": list(fs.history)}


def call_os_legal(ruleset: str, players: int, text: str, player: int) -> list:
    """The legal action ids of `player` in the state `text` serializes."""
    return _os_game(ruleset, players).deserialize_state(text).legal_actions(player)


def os_heavy_history(rules: str, moves: int) -> dict:
    """`deserialize_state` of a history of `moves` moves of the rules' first action, each player
    in turn (a StateError escapes)."""
    from fishrules.adapters import openspiel

    game = openspiel.make_game(fishrules.loads(rules, name="heavy.fish"), players=2)
    action = game.new_initial_state().legal_actions()[0]
    text = "history=" + ",".join(f"{i % 2}:{action}" for i in range(moves)) + f"\nmove_number={moves}"
    state = game.deserialize_state(text)
    return {"moves": state.move_number()}


# ---- the parser's table cache (test_parser_cache.py) ------------------------------------------------------


def parse_with_cache_in(folder: str) -> dict:
    """Build the parser afresh with `folder` as its only cache folder, and parse a small file with
    it; which cache file it chose (None: none).  The parser is put back as it was afterwards."""
    from importlib import resources

    from fishrules.syntax import lark_parser, parse

    grammar = resources.files("fishrules.syntax").joinpath("grammar.lark").read_text(encoding="utf-8")
    saved = lark_parser._cache_folders
    lark_parser._cache_folders = lambda: (Path(folder),)
    lark_parser.lalr_parser.cache_clear()
    try:
        chosen = lark_parser._cache_file(grammar)
        lark_parser.lalr_parser()
        module = parse('game "Cached"\nplayers 2 to 2\n', "cached.fish")
        return {"chosen": chosen, "name": lark_parser._cache_name(grammar), "parsed": len(module.items)}
    finally:
        lark_parser._cache_folders = saved
        lark_parser.lalr_parser.cache_clear()


# ---- sizes the rules declare (test_sizes.py) -----------------------------------------------------------


def simulate_text(text: str, games: int = 2, players: Optional[int] = None, backend: str = "auto",
                  name: str = "x.fish") -> dict:
    """Load (a RuleError escapes) and play `games` random games on the game kernel
    (`Game.simulate`): what played them and why, and the outcome or the error."""
    import warnings

    game = fishrules.loads(text, name=name, backend=backend)
    n = game.min_players if players is None else players
    out: dict[str, Any] = {"error": None, "games": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out["games"] = len(game.simulate(games, n, seed=1))
        except fishrules.RuleError as exc:
            out["error"] = describe(exc)
        out["backend"] = game.backend
        out["why"] = game.kernel.why_not_native
    return out


def start_where(text: str, backend: str = "auto", built: bool = False, moves: int = 6, name: str = "x.fish") -> dict:
    """`Game.start` of these rules: whether the state decides on the kernel (`KState`) or is the
    engine's own `State`, and whether it plays as the engine's state of the same seed does (the same
    legal actions, history and scores after `moves` random moves).  `built`: `game.simulate` first,
    so the kernel is built (or found too large) before the start.  Then `Game.simulate` again: what
    played it, or the error (TooLargeForKernel with backend "native")."""
    import warnings

    from fishrules.kernel.apistate import KState
    from fishrules.runtime import State

    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game = fishrules.loads(text, name=name, backend=backend)
        if built:
            try:
                game.simulate(1, 2, seed=1)
            except Exception as exc:  # noqa: BLE001 - said to the test
                out["built_error"] = _plain_error(exc)
        ours, ref = game.start(2, seed=5), State._new(game, 2, game._options(None), 5, False)
        out["state"] = "KState" if isinstance(ours, KState) else type(ours).__name__
        rng, same = random.Random(5), True
        for _ in range(moves):
            if ours.is_over:
                break
            a, b = [x.text for x in ours.legal_actions()], [x.text for x in ref.legal_actions()]
            same = same and a == b
            if not a or a != b:
                break
            pick = rng.randrange(len(a))
            ours.apply(a[pick])
            ref.apply(b[pick])
        out["same"] = same and ours.history == ref.history and ours.scores() == ref.scores()
        out["moves"] = len(ours.history)
        try:
            out["games"] = len(game.simulate(2, 2, seed=1))
            out["backend"] = game.kernel.name
        except Exception as exc:  # noqa: BLE001 - said to the test
            out["error"] = _plain_error(exc)
    return out


def spaces_of(text: str, players: int = 2, name: str = "x.fish") -> dict:
    """The sizes of the action space and the observation of these rules, or the error of each (an
    OptionError is the documented refusal)."""
    game = fishrules.loads(text, name=name)
    out: dict[str, Any] = {}
    for kind, make in (("actions", game.action_space), ("observation", game.observation_spec)):
        try:
            out[kind] = make(players).size
        except fishrules.FishrulesError as exc:
            out[kind] = describe(exc)
    return out


def first_playouts(ruleset: str, games: int, k: int, players: int = 2) -> list:
    """The first `k` games of `Game.playouts(games)`, as plain data."""
    import itertools

    game = fishrules.load(ruleset)
    return [[p.scores, p.winners, p.decisions] for p in itertools.islice(game.playouts(games, players, seed=3), k)]


def observation_size(text: str, players: int, name: str = "x.fish") -> int:
    """The size of `Game.observation_spec` (an OptionError escapes)."""
    return fishrules.loads(text, name=name).observation_spec(players).size


def shared_tuples(text: str, name: str = "x.fish") -> dict:
    """How many distinct tuple objects the defines' constants of these rules hold, by length."""
    from fishrules import model as m

    game = fishrules.loads(text, name=name)
    seen: dict[int, set] = {}
    for d in game.model.defines.values():
        stack = [d.expr]
        while stack:
            x = stack.pop()
            if isinstance(x, m.Const) and isinstance(x.value, tuple):
                seen.setdefault(len(x.value), set()).add(id(x.value))
            stack.extend(x.iter_child_nodes())
    return {k: len(v) for k, v in seen.items()}


def cli(argv: list, cwd: Optional[str] = None, stdin: str = "") -> dict:
    """`fishrules ARGV…` in the worker, as a person runs it: its exit status, and what it printed
    on standard output and standard error (at most 20,000 characters of each)."""
    import io
    import os
    import sys

    from fishrules import cli as fcli

    old = os.getcwd(), sys.stdout, sys.stderr, sys.stdin
    out, err = io.StringIO(), io.StringIO()
    try:
        if cwd is not None:
            os.chdir(cwd)
        sys.stdout, sys.stderr, sys.stdin = out, err, io.StringIO(stdin)
        try:
            status = fcli.main(list(argv))
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.chdir(old[0])
        sys.stdout, sys.stderr, sys.stdin = old[1:]
    return {"status": status, "out": out.getvalue()[:20_000], "err": err.getvalue()[:20_000]}


def cli_connecting(argv: list, seconds: float, cwd: Optional[str] = None) -> dict:
    """`cli(argv)` with `fishrules.simulation.CONNECT_TIMEOUT` set to `seconds` (how long a Dask
    scheduler has to answer), and how long the command took."""
    import time

    from fishrules import simulation

    old = simulation.CONNECT_TIMEOUT
    simulation.CONNECT_TIMEOUT = seconds
    started = time.monotonic()
    try:
        out = cli(argv, cwd)
    finally:
        simulation.CONNECT_TIMEOUT = old
    return {**out, "seconds": time.monotonic() - started}


# ---- the adapters (test_adapters.py) ----------------------------------------------------------------------


def _plain_error(exc: BaseException) -> dict:
    """Any exception as plain data (the adapters' frameworks raise their own)."""
    return {"type": type(exc).__name__, "module": type(exc).__module__,
            "mro": [c.__name__ for c in type(exc).__mro__], "message": str(exc)[:2000]}


def _pz_env(ruleset: str, players: int, kind: str, seed: int, steps: int):
    """A PettingZoo environment (`raw`, `wrapped` or `parallel`) after `steps` random legal steps."""
    import numpy as np

    from fishrules.adapters import pettingzoo

    rng = random.Random(seed)
    if kind == "parallel":
        env: Any = pettingzoo.parallel_env(ruleset, players=players)
        obs, _ = env.reset(seed=seed)
        for _ in range(steps):
            if not env.agents:
                break
            acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items() if o["action_mask"].any()}
            obs, *_ = env.step(acts)
        return env
    env = pettingzoo.raw_env(ruleset, players=players) if kind == "raw" else pettingzoo.env(ruleset, players=players)
    env.reset(seed=seed)
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    return env


def _pz_snapshot(env, kind: str) -> str:
    raw = env.unwrapped if kind != "parallel" else env
    parts = {"state": raw._core.state.to_json(), "agents": list(env.agents)}
    if kind != "parallel":
        parts |= {"selection": env.agent_selection, "rewards": dict(env.rewards),
                  "cumulative": dict(env._cumulative_rewards), "terminations": dict(env.terminations)}
    return json.dumps(parts, sort_keys=True)


def pz_step(ruleset: str, players: int, kind: str, action: Any, seed: int = 1, steps: int = 3,
            simultaneous: bool = False) -> dict:
    """`step(action)` of a PettingZoo environment in play (for `parallel`: `action` is the whole
    argument, or, given as a dict, overrides a legal joint action; `simultaneous`: first play on
    until the game waits for several agents at once); what it raised and whether anything changed."""
    import numpy as np

    env = _pz_env(ruleset, players, kind, seed, steps)
    if simultaneous:
        rng = random.Random(seed)
        for _ in range(2000):
            if len(env._core.state.waiting) > 1:
                break
            obs = {a: env._core.observe(env._core.seat[a]) for a in env.agents}
            env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items() if o["action_mask"].any()})
        else:
            raise Violation("the game never waited for several agents at once")
    before = _pz_snapshot(env, kind)
    if kind == "parallel" and isinstance(action, dict) and action.pop("__legal__", False):
        legal = {}
        for a in env.agents:
            mask = env._core.observe(env._core.seat[a])["action_mask"]
            if mask.any():
                legal[a] = int(np.flatnonzero(mask)[0])
        legal.pop(action.pop("__drop__", None), None)
        action = {**legal, **action}
    out: dict[str, Any] = {"raised": None}
    try:
        env.step(action)
    except Exception as exc:  # noqa: BLE001 - what it is, is the point
        out["raised"] = _plain_error(exc)
    out["unchanged"] = _pz_snapshot(env, kind) == before
    return out


def pz_ask(ruleset: str, players: int, kind: str, method: str, agent: Any) -> dict:
    """`observe(agent)`, `action_space(agent)` or `observation_space(agent)` of an environment in play."""
    env = _pz_env(ruleset, players, kind, 1, 2)
    try:
        value = getattr(env, method)(agent)
        return {"raised": None, "value": type(value).__name__}
    except Exception as exc:  # noqa: BLE001
        return {"raised": _plain_error(exc)}


def _os_in_play(ruleset: str, players: int, seed: int, simultaneous: bool):
    import pyspiel

    from fishrules.adapters import openspiel

    game = openspiel.make_game(ruleset, players=players)
    state = game.new_initial_state()
    rng = random.Random(seed)
    for _ in range(3000):
        cp = state.current_player()
        if state.is_terminal():
            raise Violation("the game ended before the position asked for")
        if cp == pyspiel.PlayerId.SIMULTANEOUS:
            if simultaneous:
                return game, state
            state.apply_actions([rng.choice(state.legal_actions(p) or [0]) for p in range(players)])
            continue
        if cp >= 0 and not simultaneous:
            return game, state
        state.apply_action(rng.choice(state.legal_actions()))
    raise Violation("no such position")


def os_apply(ruleset: str, players: int, how: str, action: Any, seed: int = 1) -> dict:
    """`apply_action(action)` at a player's turn (`how="one"`), or `apply_actions(action)` at a
    simultaneous move (`how="joint"`; an entry "legal" is the player's first legal action);
    what it raised, and whether OpenSpiel's history and the fishrules state stayed as they were."""
    game, state = _os_in_play(ruleset, players, seed, simultaneous=how == "joint")
    if how == "joint":
        action = [state.legal_actions(p)[0] if a == "legal" else a for p, a in enumerate(action)]
    before = (list(state.history()), state.move_number(), state.fishrules_state.to_json(), state.serialize())
    out: dict[str, Any] = {"raised": None}
    try:
        if how == "joint":
            state.apply_actions(action)
        else:
            state.apply_action(action)
    except Exception as exc:  # noqa: BLE001
        out["raised"] = _plain_error(exc)
    after = (list(state.history()), state.move_number(), state.fishrules_state.to_json(), state.serialize())
    out["unchanged"] = after == before
    out["agrees"] = game.deserialize_state(state.serialize()).fishrules_state == state.fishrules_state
    return out


def os_observe(ruleset: str, players: int, how: str, player: Any, recall: bool = False) -> dict:
    """An observation of `player` in a game in play: through the state (`observation_string`,
    `observation_tensor`, `information_state_string`, `information_state_tensor`) or an observer
    (`set_from`, `string_from`)."""
    import pyspiel

    game, state = _os_in_play(ruleset, players, 1, simultaneous=False)
    try:
        if how in ("set_from", "string_from"):
            obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=recall))
            value = getattr(obs, how)(state, player)
        else:
            value = getattr(state, how)(player)
        return {"raised": None, "value": str(value)[:100]}
    except Exception as exc:  # noqa: BLE001
        return {"raised": _plain_error(exc)}
