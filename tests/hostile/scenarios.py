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
    again = fs.game.replay(list(fs.history), players=fs.n,
                           options={o.name: fs.g[o.slot] for o in fs.prog.model.options})
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
