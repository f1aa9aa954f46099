"""Whatever the checker accepts compiles (issue 26): rules nested up to the language's limits, and
rules as long and wide as a file may be, become Python that CPython reads, and play.

CPython reads at most 200 nested brackets in one expression, 100 levels of indentation and 20
nested loops in a function, and gives up on an `if … elif` chain or a sum of about a thousand links
(its compiler nests them).  The rules may nest an expression 100 operators deep, blocks 100 deep,
and write thousands of `otherwise if`s, score terms, decisions in one phase or parameters of one
action.  So the compiler cuts what it writes into pieces (tests/_compiling.py says which); here
every kind of construct is nested as deep as the parser takes it, in every place an expression or
a block can stand, and each deepest ruleset must load, play some seeded random moves (a run-time
`RuleError` is allowed: a deep rule may well run out of its work budget), and play the same when
the compiler cuts everywhere it can.  One level deeper must be refused, naming the limit.

Hypothesis builds the nests: a random chain of typed wrappers (`count(… where {})`, `left of {}`,
`(any v3 in players has {})`, …) from the outside in, around a core that may read a name bound
far outside it (so that a piece must be given it), placed in a random context (a score, a define
with a parameter, a statement, a rule of an action, a parameter's domain, the winners).
"""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests._compiling import SPLIT

from . import scenarios as sc
from .contract import HEAD, L, SLOW, TINY, assert_loads, names_limit, nested, readable, run
from .fuzzing import fuzz, say

LIMIT = L["MAX_NESTING"]
#: Every way the compiler can cut, and the plain compiler cutting only where it must.
KNOBS = SPLIT + [{"HOIST_DEPTH": 5, "_CHAIN": 3, "_INLINE_DEPTH": 7, "_INLINE_LOOPS": 2, "LOOPS_PER_FUNCTION": 2}]

# ---- a game with something of every kind ---------------------------------------------------------

GAME = HEAD + """\
dice: 2 with faces ONE 1, TWO 2, THREE 3
cards chip: colour in red, blue and size from 1 to 3
board: circles from 1 to 4
  line 1, 2, 3, 4

the game has pile: zone of chip
the game has heaps: zones from 1 to 3 of chip
the game has marks: list of numbers
the game has total: number
each player has points: number

define same(n: number): n
define who(q: player): q

{defines}
phase game:
  move chip to pile face up
  roll dice
{phase}
  repeat 2 times:
    for each player:
      player chooses poke

action poke{params}:
{action}
  add 1 to your points

score "points": your points
{scores}
"""

# How tightly a piece of an expression binds, as the grammar says (a higher level may stand where a
# lower one is wanted; a lower one needs brackets there).  The nests below are as tight as the
# grammar allows: a bracket is written only where it must be, so that the parser's count of
# operators and brackets is as small, and the Python written for it as deep, as it can be.
FULL, OR, AND, NOT, CMP, SUM, PRODUCT, UNARY, POSTFIX, PRIMARY, ATOM = range(11)

#: Where an expression can stand: (its type, the level it must have there, the declarations with
#: `{e}` in them, the names its core may read and their types, whether `you` is someone there).
CONTEXTS = {
    "a score": ("num", FULL, {"scores": 'score "deep": {e}'}, {}, True),
    "a define": ("num", FULL, {"defines": "define deep: {e}", "scores": 'score "deep": deep'}, {}, False),
    "a define of a parameter": ("num", FULL, {"defines": "define deep(k: number): {e}",
                                              "scores": 'score "deep": deep(3)'}, {"k": "num"}, False),
    "a define of a player": ("bool", FULL, {"defines": "define deep(q: player): {e}",
                                            "scores": 'score "deep": if deep(you) then 1 otherwise 0'},
                             {"q": "player"}, False),
    "a set": ("num", FULL, {"phase": "  set total to {e}"}, {}, False),
    "an if": ("bool", FULL, {"phase": "  if {e}:\n    add 1 to total"}, {}, False),
    "a loop over": ("players", FULL, {"phase": "  for each r in {e}:\n    add 1 to total"}, {}, False),
    "a rule of an action": ("bool", AND, {"params": "(n: a number from 0 to 2)", "action": '  require "deep": {e} or yes'},
                            {"n": "num"}, True),
    "an action's effect": ("num", FULL, {"params": "(n: a number from 0 to 2)", "action": "  set total to {e}"},
                           {"n": "num"}, True),
    "a parameter's range": ("num", FULL, {"params": "(n: a number from 0 to min(max({e}, 0), 2))"}, {}, True),
    "the winners": ("bool", OR, {"scores": "winners: players where {e}"}, {}, False),
}

#: Wrappers: (type outside, type inside, template, its level, the level its inside must have);
#: `{}` is the inside, `{v}` a name it binds (a player).
WRAPPERS = [
    ("num", "num", "{} + 1", SUM, SUM), ("num", "num", "{} - 1", SUM, SUM), ("num", "num", "{} * 1", PRODUCT, PRODUCT),
    ("num", "num", "- {}", UNARY, UNARY), ("num", "num", "abs({})", ATOM, FULL), ("num", "num", "max({}, 0)", ATOM, FULL),
    ("num", "num", "min({}, 1000)", ATOM, FULL), ("num", "num", "divide({}, 1)", ATOM, FULL),
    ("num", "num", "same({})", ATOM, FULL), ("num", "num", "if yes then {} otherwise 0", FULL, FULL),
    ("num", "num", "if no then 0 otherwise {}", FULL, FULL),
    ("num", "bool", "if {} then 1 otherwise 0", FULL, OR), ("num", "bool", "count(players where {})", ATOM, OR),
    ("num", "bool", "count(dice where {})", ATOM, OR),
    ("num", "player", "{}'s points", PRIMARY, PRIMARY), ("num", "player", "points of {}", PRIMARY, POSTFIX),
    ("num", "player", "{}'s seat", PRIMARY, PRIMARY),
    ("num", "players", "count({})", ATOM, FULL),
    ("num", "list", "sum({})", ATOM, FULL), ("num", "list", "max({})", ATOM, FULL), ("num", "list", "count({})", ATOM, FULL),
    ("num", "list", "first({})", ATOM, FULL),
    ("num", "dice", "count({})", ATOM, FULL), ("num", "dice", "sum(value of {})", ATOM, POSTFIX),
    ("num", "cards", "count({})", ATOM, FULL), ("num", "cards", "sum(size of {})", ATOM, POSTFIX),
    ("bool", "bool", "not {}", NOT, NOT), ("bool", "bool", "{} and yes", AND, AND), ("bool", "bool", "no or {}", OR, AND),
    ("bool", "bool", "if {} then yes otherwise no", FULL, OR),
    ("bool", "bool", "any {v} in players has {}", NOT, OR), ("bool", "bool", "every {v} in players has {}", NOT, OR),
    ("bool", "bool", "no {v} in players where {}", NOT, OR),
    ("bool", "bool", "first(players) not in (players where {})", CMP, OR),
    ("bool", "num", "{} >= -1000", CMP, SUM), ("bool", "num", "{} != 123456789", CMP, SUM),
    ("bool", "num", "{} in points of players", CMP, SUM),
    ("bool", "player", "{} in players", CMP, SUM), ("bool", "player", "{} is nobody", CMP, SUM),
    ("bool", "players", "first(players) in {}", CMP, SUM), ("bool", "players", "first(players) not in {}", CMP, SUM),
    ("bool", "dice", "any {v} in {} shows ONE", NOT, POSTFIX),
    ("player", "player", "left of {}", PRIMARY, PRIMARY), ("player", "player", "right of {}", PRIMARY, PRIMARY),
    ("player", "player", "who({})", ATOM, FULL), ("player", "player", "first(players starting with {})", ATOM, PRIMARY),
    ("player", "players", "first({})", ATOM, FULL), ("player", "players", "last({})", ATOM, FULL),
    ("player", "bool", "first(players where {})", ATOM, OR),
    ("players", "players", "{} where yes", FULL, OR), ("players", "players", "{} starting with first(players)", POSTFIX, POSTFIX),
    ("players", "players", "{} with the highest points", FULL, OR),
    ("players", "bool", "players where {}", FULL, OR), ("players", "player", "players other than {}", POSTFIX, PRIMARY),
    ("list", "list", "distinct({})", ATOM, FULL), ("list", "list", "largest(2, {})", ATOM, FULL),
    ("list", "list", "top(2, {})", ATOM, FULL), ("list", "players", "points of {}", PRIMARY, POSTFIX),
    ("list", "num", "adjacent(min(max({}, 1), 4))", ATOM, FULL), ("list", "num", "slide(min(max({}, 1), 4), marks)", ATOM, FULL),
    ("list", "dice", "value of {}", PRIMARY, POSTFIX),
    ("dice", "dice", "{} where yes", FULL, OR), ("dice", "dice", "{} showing ONE", POSTFIX, POSTFIX),
    ("dice", "bool", "dice where {}", FULL, OR),
    ("cards", "cards", "{} where yes", FULL, OR), ("cards", "bool", "pile where {}", FULL, OR),
    ("cards", "num", "heaps(min(max({}, 1), 3))", ATOM, FULL),
]

#: The core of each type, from what it may read (`{p}` a player's name in scope, `{k}` a
#: number's), with its level.
CORES = {
    "num": [("7", ATOM), ("{p}'s points", PRIMARY), ("{k}", ATOM)],
    "bool": [("yes", ATOM), ("{p} in players", CMP), ("{k} >= 0", CMP)],
    "player": [("first(players)", ATOM), ("{p}", ATOM)],
    "players": [("players", ATOM), ("players other than {p}", POSTFIX)],
    "list": [("points of players", PRIMARY), ("value of dice", PRIMARY)],
    "dice": [("dice", ATOM)],
    "cards": [("pile", ATOM)],
}


#: The level of the operator that follows an inside (`{} + 1`): an inside that ends in a hole of
#: that level or looser would take the operator in (`any v in players has x and yes` is `any …
#: has (x and yes)`, `left of x's points` is `left of (x's points)`), so it is bracketed.
FOLLOW = {"+": SUM, "-": SUM, "*": PRODUCT, "'s": PRIMARY, ">=": CMP, "!=": CMP, "in": CMP, "is": CMP, "not": CMP,
          "and": AND, "or": OR, "where": FULL, "with": FULL, "starting": POSTFIX, "showing": POSTFIX}


def _after(text: str):
    """The level of the operator `text` starts with, or None (a bracket, a comma, a keyword)."""
    text = text.lstrip()
    word = "'s" if text.startswith("'s") else (text.split() or [""])[0]
    return FOLLOW.get(word)


def _open(template: str, hole: int):
    """The level of the hole a piece ends in (it can take in what follows), or None."""
    return hole if template.endswith("{}") else None


def _bracket(level: int, trailing, need: int, follow) -> bool:
    """Whether a piece of this level, ending in a hole of level `trailing` (or None), needs
    brackets where a piece of level `need` may stand, followed by an operator of level `follow`."""
    return level < need or (trailing is not None and follow is not None and trailing <= follow)


def build(context: str, chain: list, cores: list) -> list[str]:
    """The rules with the expression of the first k wrappers of `chain` (outermost first) around a
    core, for every k: texts[k].  `cores` picks the core at each depth (an index into the choices
    the names in scope allow).  Brackets only where the grammar needs them."""
    kind, need, parts, names, you = CONTEXTS[context]
    follow = next(_after(v.partition("{e}")[2]) for v in parts.values() if "{e}" in v)
    texts = []
    scope = [(n, t) for n, t in names.items()] + ([("you", "player")] if you else [])
    left, right, t = "", "", kind
    for k in range(len(chain) + 1):
        players = [n for n, ty in scope if ty == "player"]
        numbers = [n for n, ty in scope if ty == "num"]
        options = [(c, lv) for c, lv in CORES[t] if ("{p}" not in c or players) and ("{k}" not in c or numbers)]
        core, level = options[cores[k] % len(options)]
        trailing = PRIMARY if core.endswith("{p}") else None
        core = core.format(p=(players or ["?"])[0], k=(numbers or ["?"])[0])
        if _bracket(level, trailing, need, follow):
            core = f"({core})"
        expr = left + core + right
        fields = {"defines": "", "phase": "", "params": "", "action": "", "scores": ""}
        for field, template in parts.items():
            fields[field] = template.replace("{e}", expr)
        texts.append(GAME.format(**fields))
        if k == len(chain):
            break
        out, inner, template, level, hole = chain[k]
        assert out == t
        bracket = _bracket(level, _open(template, hole), need, follow)
        if "{v}" in template:
            if "{v} in players" in template:  # the inside is the condition: the name is in scope
                scope.insert(0, (f"v{k}", "player"))  # (the outermost first: the core reads it)
            template = template.replace("{v}", f"v{k}")
        a, _, b = template.partition("{}")
        if bracket:
            a, b = "(" + a, b + ")"
        # what follows the inside: this piece's own next word, or what followed the piece
        follow = _after(b) if b else follow
        left, right, t, need = left + a, b + right, inner, hole
    return texts


def _path(outside: str, inside: str) -> list:
    """The shortest chain of wrappers (outermost first) from a piece of type `outside` down to a
    hole of type `inside`."""
    if outside == inside:
        return []
    todo, seen = deque([(outside, [])]), {outside}
    while todo:
        ty, path = todo.popleft()
        for w in WRAPPERS:
            if w[0] == ty and w[1] not in seen:
                if w[1] == inside:
                    return path + [w]
                seen.add(w[1])
                todo.append((w[1], path + [w]))
    raise AssertionError(f"no way from {outside} to {inside}")


def alone(w: tuple, length: int = 160) -> tuple[str, list]:
    """A context and a chain that nest the wrapper `w` in itself (through the shortest way back to
    its own type) as deep as `length` wrappers."""
    kind = min({c[0] for c in CONTEXTS.values()}, key=lambda k: len(_path(k, w[0])))
    context = next(name for name, c in CONTEXTS.items() if c[0] == kind)
    cycle = [w] + _path(w[1], w[0])
    return context, _path(kind, w[0]) + cycle * (length // len(cycle) + 1)


def check_limit(out) -> dict:
    value = assert_loads(out)
    say(str(value)[:3000])
    assert value["deepest"] >= 0, "not even the shallowest text was taken"
    for message in value["errors"]:  # a deep rule may run out of work, or go wrong at run time...
        readable(message)
        assert "went wrong" not in message, message  # ... never as a Python error of the code
    assert all(value["agree"]), "the rules play otherwise cut into pieces"
    # not just under CPython's 200 nested brackets, but well inside them, as HOIST_DEPTH means to
    assert value["brackets"] <= 120, f"the code nests brackets {value['brackets']} deep"
    nxt = value["next"]
    if value["deepest"] + 1 < value["of"]:
        assert nxt not in (None, "loaded"), f"one level deeper than the parser takes loaded: {nxt}"
        assert names_limit(nxt["message"], "MAX_NESTING"), nxt["message"]
    return value


# ---- expressions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=lambda w: w[2])
def test_each_kind_of_expression_nested_in_itself_to_the_limit(wrapper):
    context, chain = alone(wrapper)
    texts = build(context, chain, [1] * (len(chain) + 1))
    check_limit(run(sc.at_the_limit, texts, KNOBS, timeout=SLOW * 3))


REPORTED = {  # the expression nested k deep, the score that reads it, the depth found broken
    "where filters in a count": (lambda k: "count(" + nested("({} where yes)", k, "players") + ")", "deep", 67),
    "you not in (players where …)": (lambda k: nested("you not in (players where {})", k, "yes"),
                                     "if deep then 1 otherwise 0", 50),
}


@pytest.mark.parametrize("name", list(REPORTED))
def test_the_nests_of_the_report(name):
    """Issue 26's examples, which went past CPython's 200 nested brackets (`SyntaxError: too many
    nested parentheses`), each nested as deep as the parser takes it."""
    make, score, broken = REPORTED[name]
    texts = [TINY + f'define deep: {make(k)}\nscore "deep": {score}\n' for k in range(1, 121)]
    value = check_limit(run(sc.at_the_limit, texts, KNOBS, timeout=SLOW * 3))
    assert value["deepest"] + 1 >= broken


@st.composite
def chains(draw, kind: str, length: int = 120):
    chain, t = [], kind
    for _ in range(length):
        w = draw(st.sampled_from([w for w in WRAPPERS if w[0] == t]))
        chain.append(w)
        t = w[1]
    return chain


@pytest.mark.parametrize("context", list(CONTEXTS))
@fuzz(3)
@given(data=st.data())
def test_expressions_of_every_kind_mixed_to_the_limit(context, data):
    kind = CONTEXTS[context][0]
    chain = data.draw(chains(kind))
    cores = data.draw(st.lists(st.integers(0, 2), min_size=len(chain) + 1, max_size=len(chain) + 1))
    texts = build(context, chain, cores)
    say(texts[-1][:2000])
    check_limit(run(sc.at_the_limit, texts, KNOBS, timeout=SLOW * 3))


# ---- statements --------------------------------------------------------------------------------------

BLOCK_GAME = HEAD + """\
dice: 1 with faces ONE 1, TWO 2
the game has total: number

phase game:
{phase}
  repeat 2 times:
    for each player:
      player chooses poke

phase sub:
  add 1 to total

action poke:
{action}
  add 1 to total

score "total": total
"""

#: Blocks that nest: the lines that open one (the nest goes under the last), `{i}` its depth.
HEADERS = [
    ["if yes:"], ["if total >= 0:"], ["if no:", "  nothing", "otherwise:"], ["if no:", "  nothing", "otherwise if yes:"],
    ["repeat 1 times:"], ["repeat until yes:"], ["repeat while total < 0:"], ["for each player:"],
    ["for each q{i} in players where it is first(players):"], ["for each player other than left of first(players):"],
    ['rule "r{i}":'],
]
#: Statements that wait or hand over, written before the block they open (in a phase only).
WAITS = ["first(players) chooses poke", "play sub", "roll dice"]


def chain_header(links: int) -> list[str]:
    """An `if` with `links` `otherwise if`s, the nest under the last."""
    lines = ["if total = -1:", "  nothing"]
    for j in range(2, links + 1):
        lines += [f"otherwise if total = -{j}:", "  add 1 to total"]
    return lines + ["otherwise if total > -1:"]


def nest(where: str, levels: list, inner: str) -> list[str]:
    """The rules with the first k `levels` (each (header lines, a wait before it or None)) opened
    one inside the other in the phase or in the action, around `inner`, for every k."""
    texts = []
    for k in range(len(levels) + 1):
        lines = []
        for depth, (header, wait) in enumerate(levels[:k]):
            pad = "  " * (depth + 1)
            if wait is not None:
                lines.append(pad + wait)
            lines += [pad + h.format(i=depth) for h in header]
        lines.append("  " * (k + 1) + inner)
        body = "\n".join(lines)
        texts.append(BLOCK_GAME.format(phase=body if where == "phase" else "  nothing",
                                       action=body if where == "action" else "  nothing"))
    return texts


@pytest.mark.parametrize("waits", [False, True], ids=["plain", "waiting"])
@pytest.mark.parametrize("header", HEADERS, ids=lambda h: h[-1])
def test_each_kind_of_block_nested_in_itself_to_the_limit(header, waits):
    """Each kind of block in itself as deep as the parser takes it; with `waiting`, a decision, a
    phase played or a roll of the dice (in turn) before each."""
    levels = [(header, WAITS[i % len(WAITS)] if waits else None) for i in range(LIMIT + 10)]
    texts = nest("phase", levels, "add 1 to total")
    check_limit(run(sc.at_the_limit, texts, KNOBS, timeout=SLOW * 3))


@pytest.mark.parametrize("where", ["phase", "action"])
@fuzz(4)
@given(data=st.data())
def test_blocks_of_every_kind_mixed_to_the_limit(where, data):
    """Blocks of every kind inside one another, with decisions, phases played and dice rolled
    between them (in a phase), and at one depth an `if` of more `otherwise if`s than one chain of
    Python holds, as deep as the parser takes them."""
    waits = WAITS if where == "phase" else ["roll dice"]
    levels = [(data.draw(st.sampled_from(HEADERS)), data.draw(st.one_of(st.none(), st.sampled_from(waits))))
              for _ in range(LIMIT + 10)]
    at = data.draw(st.integers(0, LIMIT))
    levels[at] = (chain_header(data.draw(st.integers(1, 250))), levels[at][1])
    inner = data.draw(st.sampled_from(["add 1 to total", *waits]))
    texts = nest(where, levels, inner)
    say(texts[-1][:3000])
    check_limit(run(sc.at_the_limit, texts, KNOBS, timeout=SLOW * 3))


# ---- long and wide ----------------------------------------------------------------------------------

PICK_GAME = HEAD + """\
the game has total: number
the game has result: number

phase game:
  repeat 3 times:
    for each player:
      player chooses pick
{chain}

action pick(n: a number from 0 to {top}):
  set total to n

action poke:
  nothing

score "result": result
"""


def if_chain(links: int, waits: bool) -> str:
    """`if total = 0: … otherwise if total = j: …` for j < links, then `otherwise`: each sets
    `result` to its own number (-1 for `otherwise`); with `waits`, a decision follows in each."""
    then = "\n        first(players) chooses poke" if waits else ""
    lines = [f"      if total = 0:\n        set result to 0{then}"]
    lines += [f"      otherwise if total = {j}:\n        set result to {j}{then}" for j in range(1, links)]
    lines.append(f"      otherwise:\n        set result to -1{then}")
    return "\n".join(lines)


@pytest.mark.parametrize("waits", [False, True], ids=["inline", "waiting"])
@pytest.mark.parametrize("links", [101, 3100])
def test_long_otherwise_if_chains_take_the_right_branch(links, waits):
    """CPython nests `elif`s and gives up past about 3,000: a chain of `otherwise if`s of any
    length the file can hold compiles, and the branch taken is the first that holds (in the first
    hundred, in a later hundred, or `otherwise`)."""
    text = PICK_GAME.format(chain=if_chain(links, waits), top=links + 5)
    picks = [0, links // 2, links - 1, links + 3]
    out = run(sc.pick_and_read, text, [f"pick {n}" for n in picks], "result", timeout=SLOW * 3)
    assert assert_loads(out) == [0, links // 2, links - 1, -1]


@pytest.mark.parametrize("terms", [101, 3100])
def test_many_score_terms(terms):
    """CPython nests the sum `a + b + …` too (and gives up past about 3,000 terms): any number of score terms compiles, and adds up."""
    text = TINY + "".join(f'score "s{i}": {i % 7}\n' for i in range(terms))
    out = run(sc.start_and_score, text, timeout=SLOW * 3)
    assert assert_loads(out) == [sum(i % 7 for i in range(terms))] * 2


@pytest.mark.parametrize("params", [13, 25, 60])
def test_actions_of_many_parameters(params):
    """CPython nests at most 20 loops in a function, and an action's choices are listed by a loop
    per parameter: any number of parameters compiles, and the rules read them all in order."""
    decl = ", ".join(["q0: a number from 0 to 1"] + [f"q{i}: a number from {i} to {i}" for i in range(1, params - 1)]
                     + [f"q{params - 1}: a number from 0 to 1"])
    last, middle = f"q{params - 1}", f"q{params // 2}"
    text = HEAD + f"""\
the game has total: number

phase game:
  for each player:
    player chooses poke

action poke({decl}):
  require "first and last": q0 + {last} = 1
  set total to q0 * 1000 + {middle} * 10 + {last}

score "total": total
"""
    out = run(sc.choose_first_legal, text, timeout=SLOW * 3)
    legal, scores = assert_loads(out)
    middles = " ".join(str(i) for i in range(1, params - 1))
    assert legal == [f"poke 0 {middles} 1", f"poke 1 {middles} 0"]
    assert scores == [(params // 2) * 10 + 1] * 2


@pytest.mark.parametrize("rounds", [50, 1100])
def test_a_phase_of_thousands_of_decisions(rounds):
    """Each decision, and each loop around one, is a place the phase resumes from: an arm of its
    dispatch, which CPython compiles as an `elif` chain.  A phase of more arms than such a chain
    holds (three a round here) compiles, and goes through all of them."""
    text = HEAD + "the game has total: number\nphase game:\n" + \
        "  for each player:\n    player chooses poke\n  add 1 to total\n" * rounds + \
        "action poke:\n  nothing\nscore \"total\": total\n"
    out = run(sc.play_to_the_end, text, timeout=SLOW * 3)
    history, scores = assert_loads(out)
    assert len(history) == 2 * rounds and scores == [rounds] * 2


def test_defines_built_on_defines_as_deep_as_allowed():
    n = L["MAX_DEFINE_DEPTH"]
    text = TINY.replace('score "points": your points\n', "") + "define d1(q: player): q's seat + 1\n" + \
        "".join(f"define d{i}(q: player): d{i - 1}(q) + 1\n" for i in range(2, n + 1)) + f'score "deep": d{n}(you)\n'
    out = run(sc.start_and_score, text, timeout=SLOW)
    assert assert_loads(out) == [n, n + 1]


def evaluation(defines: int, levels: int) -> str:
    """`defines` defines, each `levels` quantifiers deep, each built on the one before at its
    deepest point: an evaluation nested about defines * levels deep, each level a Python frame
    (the first player satisfies every level at once, so the work stays small)."""
    out = [TINY]
    for d in range(1, defines + 1):
        inner = "q is first(players)" if d == 1 else f"d{d - 1}(q)"
        out.append(f"define d{d}(q: player): " + nested("any v in players has {}", levels, inner) + "\n")
    out.append(f'score "deep": if d{defines}(first(players)) then 1 otherwise 0\n')
    return "".join(out)


@pytest.mark.parametrize("defines,refused", [(2, False), (3, True)])
def test_an_evaluation_as_deep_as_allowed(defines, refused):
    """MAX_EVALUATION_DEPTH: defines written out in place nest at most 250 deep.  Just under, each
    level a frame of Python (a generator inside `any`), the game plays; just over, it is refused."""
    text = evaluation(defines, 95)
    out = run(sc.start_and_score, text, timeout=SLOW)
    if refused:
        assert out.status == "raised" and out.is_a("RuleError"), out
        assert "250" in out.message, out.message
    else:
        assert assert_loads(out) == [1, 1]


@pytest.mark.parametrize("name", list(REPORTED))
def test_the_command_line_checks_and_explains_the_deepest_rules(name, tmp_path):
    """`fishrules check` of the report's rules exited 70 (an internal error): as deep as the
    parser takes them, they check, and `explain --python` prints Python that compiles."""
    from .test_cli import cli

    make, score, _ = REPORTED[name]
    texts = [TINY + f'define deep: {make(k)}\nscore "deep": {score}\n' for k in range(1, 121)]
    f = tmp_path / "deep.fish"
    f.write_text(texts[assert_loads(run(sc.deepest, texts))])
    checked = cli(["check", str(f)])
    assert checked.returncode == 0, checked.stderr
    explained = cli(["explain", "--python", str(f)])
    assert explained.returncode == 0, explained.stderr
    compile(explained.stdout, "<listing>", "exec")
    assert "nested too deep to write in one piece" in explained.stdout
