"""A rule that goes wrong on the kernel is the engine's own `RuleError`, and the state stays a `KState`.

A state deciding on the native kernel (`KState`) whose rules go wrong (a
division by zero, the seat of nobody, a phase played for nobody, a number past the largest, a
zone that does not exist, ...) raises exactly what the engine's `State` raises for the same call
(the whole rendered error: message, line, caret, and the context "while playing ...", "while
listing what pN may do in ...", "while reading ..."), and the call is undone as the engine undoes
it: the state is where it was (the same position, legal actions and history as a fresh replay of
its moves), and it stays a `KState`.  Each kind of fault at a player's turn, in a phase played
from a phase, at a choice made together, while the moves are listed (in a `define` reached from a
`require`, at a player's decision and at a choice made together), in a `define` reached from a
phase's `if`, and while the scores are worked out.

Also: no public call with a bad argument makes a KState the engine's (`observation` of a seat not
in the game, `legal_actions()` at a choice made together, `apply` of what is no action, of an
`Action` of another game or of a player who may not act now), nor does `repr`.

The engine's answers are frozen in tests/golden/engine/test_kernel_faults.json (`freeze`, run by
tests/tools/freeze_engine.py while the engine lived)."""

from __future__ import annotations

import pytest

import fishrules
from fishrules.errors import FishrulesError, OptionError
from fishrules.kernel.abi import H_WORK
from fishrules.kernel.apistate import KState, start
from fishrules.kernel.native import compiler

from ._frozen import frozen, plain
from ._twins import outcome, skip_without_compiler, watched_twins

skip_without_compiler()

_HEAD = """\
game "Faults"
players 2 to 3
the game has x: number
the game has big: number
the game has holder: player
the game has xs: list of numbers
tokens chip: colour in red x 3
the game has pile: zones from 1 to 3 of chip
each player has points: number
define ratio: divide(10, x)
"""

_TAIL = """
action safe:
  set big to 999999999999999
  add 1 to your points

phase turn for mover:
  add 1 to mover's points

phase deep:
  play deep

phase inner:
  play deeper

phase spin:
  repeat 1000000000 times:
    add 1 to x

phase deeper:
  if x = 0:
    {fault}
"""

#: a statement that goes wrong, one of each kind the engine words (compiler/program.py's `Fail`s)
FAULTS = {
    "divide by zero": "set x to divide(10, x)",
    "the seat of nobody": "set x to holder's seat",
    "a phase for nobody": "play turn for holder",
    "changed something of nobody": "add 1 to holder's points",
    "a number too large": "set big to (x + 999999999999999) * 2",
    "no such zone": "set x to count(pile(x))",
    "phases too deep": "play deep",
    "not in the list": "remove 5 from xs",
    "nobody to choose": "holder chooses safe",
    "the work budget": "play spin",
}

#: an expression that goes wrong once a player has played `safe` (its points 1), in a `define`
#: that a `require` reaches: met while the moves are listed
EXPRESSIONS = {
    "divide by zero": "divide(10, 1 - p's points)",
    "no such zone": "count(pile(1 - p's points))",
    "a number too large": "p's points * big * 2",
}

#: (where the fault is met, the rules around it): {fault} is the statement, `boom` the move that meets it
CONTEXTS = {
    # at a player's turn, in the action played
    "turn": """
phase game:
  repeat:
    for each player:
      player chooses safe or boom

action boom:
  add 1 to your points
  {fault}
""",
    # in a phase played from a phase, after the move
    "phase in a phase": """
phase game:
  repeat:
    for each player:
      player chooses safe or boom
      if your_boomed(player):
        play inner

define your_boomed(p: player): p's points > 1

action boom:
  add 5 to your points
""",
    # at a choice made together, once everybody has chosen
    "together": """
phase game:
  repeat:
    each of players secretly chooses safe or boom

action boom:
  add 1 to your points
  {fault}
""",
}


_LISTING = """
phase game:
  repeat:
    for each player:
      player chooses safe or boom

define risky(p: player): {fault}

action boom:
  require "sane": risky(you) > -1
  add 1 to your points
"""

#: the same while the moves of a choice made together are listed
_LISTING_TOGETHER = _LISTING.replace("    for each player:\n      player chooses safe or boom\n",
                                     "    each of players secretly chooses safe or boom\n")

#: the same in a phase's `if` condition, after the move
_CONDITION = """
phase game:
  repeat:
    for each player:
      player chooses safe or boom
      if risky(player) > -1:
        add 1 to x

define risky(p: player): {fault}

action boom:
  add 1 to your points
"""

#: too many numbers for one decision: met listing, once `safe` made `big` big
_NUMBERS = """
phase game:
  repeat:
    for each player:
      player chooses safe or boom

action boom(n: a number from 0 to big):
  add n to your points
"""


def rules_with(context: str, fault: str) -> str:
    if context in _EXPRESSION_CONTEXTS:
        body = _EXPRESSION_CONTEXTS[context].format(fault=fault)
    elif context == "numbers":
        body = _NUMBERS
    else:
        body = CONTEXTS[context].format(fault=fault)
    return _HEAD + body + _TAIL.format(fault=fault if context in CONTEXTS else "nothing")


_EXPRESSION_CONTEXTS = {"listing": _LISTING, "listing together": _LISTING_TOGETHER, "if condition": _CONDITION}
CASES = ([(c, f) for c in CONTEXTS for f in FAULTS] + [(c, f) for c in _EXPRESSION_CONTEXTS for f in EXPRESSIONS]
         + [("numbers", "")])


def said(call) -> list:
    """What `call()` ended in (`_twins.outcome`), as the golden file holds it."""
    return plain(outcome(call))


def engine(key: str):
    """What the engine answered (frozen by `freeze`, tests/tools/freeze_engine.py)."""
    return frozen("test_kernel_faults")[key]


def _picture(k: KState) -> tuple:
    """What a state is, without making a KState the engine's: its position, who is waited for,
    what each of them may do, the history, the scores."""
    position = list(k._ks[1])
    position[H_WORK] = 0  # (the work of the last call into the kernel, not the position)
    return (position, k.current, k.waiting, [[a.text for a in k.legal_actions(p)] for p in k.waiting],
            k.history, k.scores())


@pytest.fixture
def twins(monkeypatch):
    """How often a KState asked the engine's machine (a twin of itself) for an error's words."""
    return watched_twins(monkeypatch)


#: the faults the kernel has no words of its own for: none (its work budget, the engine's since
#: issue 32's step 5f, is worded by the kernel too)
ENGINES_WORDS: set = set()


def _case(context: str, fault: str):
    statement = EXPRESSIONS[fault] if context in _EXPRESSION_CONTEXTS else FAULTS.get(fault, "")
    return fishrules.loads(rules_with(context, statement), "faults.fish", backend="native")


def _chosen(context: str, acts: list):
    """The action played at each step: the last (which goes wrong in a turn), else the first."""
    return acts[-1] if context in CONTEXTS else acts[0]


@pytest.mark.parametrize("context,fault", CASES)
def test_a_rule_that_goes_wrong_is_the_engines_error_and_the_state_stays(context, fault, twins):
    want = engine(f"{context}/{fault}")
    g = _case(context, fault)
    k = start(g, 2, g._options(None), 1, False)
    assert type(k) is KState
    played: list = []
    for text, result in want["steps"]:
        ka = _chosen(context, k.legal_actions(k.waiting[0]))
        assert ka.text == text, (context, fault, played)
        before = _picture(k)
        got = said(lambda: k.apply(ka))
        assert got == result, (context, fault)
        # in the kernel's own words (kernel/faults.py), not the engine's
        assert len(twins) == (result[0] == "error" and fault in ENGINES_WORDS), (context, fault)
        assert type(k) is KState and k._ks is not None, f"{context}, {fault}: the fault left the kernel"
        if result[0] == "error":
            # undone: where it was, and as a fresh replay of the same moves is
            assert _picture(k) == before
            fresh = start(g, 2, g._options(None), 1, False)
            for t in played:
                fresh.apply(t)
            assert _picture(k) == _picture(fresh)
            assert type(k) is KState
            # and it goes wrong again the same way, then plays on as the engine's does
            assert said(lambda: k.apply(ka.text)) == result
            assert len(twins) == 2 * (fault in ENGINES_WORDS)
            assert type(k) is KState and k.to_json() == want["json"]
            return
        played.append(ka.text)
    raise AssertionError(f"{context}, {fault}: the rules never went wrong")


def _score_case():
    return fishrules.loads(rules_with("turn", "nothing") + 'score "ratio": ratio\n', "faults.fish", backend="native")


def test_a_score_that_goes_wrong_is_the_engines_error_and_the_state_stays(twins):
    k = _score_case().start(2, seed=1)
    want = engine("score")
    assert want[0] == "error" and "divide by zero" in want[2]
    assert said(k.scores) == want and twins == []  # (the kernel's own words)
    assert type(k) is KState and k._ks is not None
    k.apply(k.legal_actions(0)[0])
    assert type(k) is KState and [a.text for a in k.legal_actions(1)] == ["safe", "boom"]


_TOGETHER = """\
game "Bad arguments"
players 2 to 3
each player has n: number

phase game:
  repeat 3 times:
    each of players secretly chooses grow

action grow:
  add 1 to your n
"""

#: the bad arguments to `observation`
BAD_SEATS = (2, -1, True, "0", 1.0)


def _refused(call, kind=FishrulesError) -> list:
    with pytest.raises(kind) as got:
        call()
    return [type(got.value).__name__, str(got.value)]


def _bad_arguments(s) -> dict:
    """What a state that waits for p1 at a choice made together answers to bad arguments."""
    return {"observation": [_refused(lambda: s.observation(bad), OptionError) for bad in BAD_SEATS],
            "legal_actions": _refused(s.legal_actions, OptionError), "repr": repr(s),
            "legal_actions of one who chose": [a.text for a in s.legal_actions(0)],
            "then": [s.observation(1), s.history]}


@pytest.mark.parametrize("call", ["observation", "legal_actions", "repr", "legal_actions of one who chose"])
def test_a_bad_argument_leaves_the_state_on_the_kernel(call):
    want = engine("bad arguments")
    g = fishrules.loads(_TOGETHER, "together.fish", backend="native")
    k = g.start(2, seed=1)
    assert type(k) is KState
    k.apply("p0: grow")
    if call == "observation":
        assert [_refused(lambda: k.observation(bad), OptionError) for bad in BAD_SEATS] == want[call]
    elif call == "legal_actions":
        assert _refused(k.legal_actions, OptionError) == want[call]
    elif call == "repr":
        assert repr(k) == want[call]
    else:
        assert [a.text for a in k.legal_actions(0)] == want[call] == []
    assert type(k) is KState and k._ks is not None, f"{call} made the state the engine's"
    assert plain([k.observation(1), k.history]) == want["then"]
    k.apply("p1: grow")
    assert type(k) is KState and k._ks is not None
    assert repr(k) == want["repr after"]


_TURNS = _TOGETHER.replace("    each of players secretly chooses grow\n", "    for each player:\n      player chooses grow\n")


def _no_action(start) -> list:
    """(the things applied, as built from a state `start(game)` of these rules and of another game)"""
    g = fishrules.loads(_TURNS, "turns.fish", backend="native")
    other = fishrules.loads(_TURNS.replace("Bad arguments", "Another game"), "other.fish", backend="native")
    mine = start(g).legal_actions(0)[0]  # an action of another state of this game, for p0
    theirs = start(other).legal_actions(0)[0]
    return [None, 5, b"grow", ["grow"], theirs, mine]


def test_what_is_no_action_here_is_refused_on_the_kernel():
    g = fishrules.loads(_TURNS, "turns.fish", backend="native")
    k = g.start(2, seed=1)
    k.apply("grow")
    for bad, want in zip(_no_action(lambda g: g.start(2, seed=1)), engine("no action"), strict=True):
        assert _refused(lambda: k.apply(bad)) == want, bad
        assert type(k) is KState and k._ks is not None, f"apply({bad!r}) made the state the engine's"
    assert k.history == ["grow"] and k.current == 1


_COUNTED = """\
game "Counted"
players 2 to 2
cards deck_cards: rank from 1 to 2
the game has hidden deck: zone of deck_cards
each player has secret hand: zone of deck_cards
each player has points: number
the game has x: number

phase game:
  move deck_cards to deck face down
  shuffle deck
  repeat:
    for each player:
      player chooses go
      play inner

phase inner:
  rule "tick":
    add 1 to x
  if x = 4:
    set x to divide(1, 0)

action go:
  rule "score one":
    add 1 to your points
  draw 1 from deck to your hand
"""


def test_a_call_that_goes_wrong_counts_no_rule_fired_and_no_empty_draw():
    """What a simulation counts (`count_rules`): a failed call is undone, its counts with it, on
    both machines (the engine kept the failed attempt's, growing at every retry)."""
    counted = []
    for backend in ("python", "native"):
        g = fishrules.loads(_COUNTED, "counted.fish", backend=backend)
        s = g.start(2, seed=1, count_rules=True)
        for _ in range(3):
            s.apply("go")
        before = (dict(s.rules_fired), dict(s.empty_draws))
        assert before == ({"tick": 3, "score one": 3}, {0: 1})
        for _ in range(2):
            with pytest.raises(FishrulesError, match="divide by zero"):
                s.apply("go")
            assert (s.rules_fired, s.empty_draws) == before
        counted.append(before)
    assert counted[0] == counted[1]


# ---- the engine's answers, frozen (tests/tools/freeze_engine.py) -------------------------------------


def freeze(engine) -> dict:
    """What the engine answered in the cases above (run by tests/tools/freeze_engine.py while it lived)."""
    out: dict = {}
    for context, fault in CASES:
        g = _case(context, fault)
        e = engine.start(g, 2, 1)
        steps = []
        for _ in range(8):
            ea = _chosen(context, e.legal_actions(e.waiting[0]))
            steps.append([ea.text, said(lambda: e.apply(ea))])
            if steps[-1][1][0] == "error":
                break
        out[f"{context}/{fault}"] = {"steps": steps, "json": e.to_json()}
    out["score"] = said(engine.start(_score_case(), 2, 1).scores)
    g = fishrules.loads(_TOGETHER, "together.fish", backend="native")
    e = engine.start(g, 2, 1)
    e.apply("p0: grow")
    out["bad arguments"] = _bad_arguments(e)
    out["bad arguments"]["repr after"] = repr(e.apply("p1: grow"))
    e = engine.start(fishrules.loads(_TURNS, "turns.fish", backend="native"), 2, 1)
    e.apply("grow")
    out["no action"] = [_refused(lambda: e.apply(bad)) for bad in _no_action(lambda g: engine.start(g, 2, 1))]
    return out
