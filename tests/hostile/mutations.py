"""Hypothesis strategies for hostile inputs: mutated rule files, random programs, odd action texts,
edited saved states.  Pure functions of their draws, so that a failure prints a reproducible input.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
RULESETS = HERE.parent.parent / "rulesets"
BUNDLED = {p.stem: p.read_text(encoding="utf-8") for p in sorted(RULESETS.glob("*.fish"))}

# ---- rule files ----------------------------------------------------------------------------------------

#: Characters a careless or hostile writer may slip in.
ODD_CHARS = [
    "\x00", "\t", "\r", "\n", "\x0b", "\x0c", "\x1b", "\x7f", "\u00a0", "\u2028", "\u2029", "\ufeff", "\u200b",
    "\u202e", "²", "١", "３", "𝟑", "é", "ß", "İ", "ﬁ", "\U0001f41f", "\\", '"', "'", "#", ":", "(", ")", "[", "]",
    "{", "}", ",", "=", "<", ">", "!", "-", "+", "*", "/", "%", "_", " ", "0", "9", "\ud800",
]
BIG_NUMBERS = ["0", "1", "-1", "65535", "65536", "65537", "1000", "1001", "10000", "10001", "999999999",
               str(10**15), str(10**15 + 1), "9" * 30, "9" * 4301, "1" + "0" * 5000]
NEST_TEMPLATES = ["({})", "not ({})", "if yes then ({}) otherwise 0", "max({}, 0)", "abs({})", "- ({})",
                  "({}) + 1", "count(players where ({}) > 0)"]
NEST_DEPTHS = [2, 50, 99, 100, 101, 150, 300, 1000, 5000]
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\"[^\"\n]*\"|'s|\s+|.", re.S)
EXPR_SITE = re.compile(r'^(\s*(?:define\s+\w+(?:\([^)]*\))?|score(?:\s+"[^"]*")?|winners|require\s+"[^"]*")\s*:\s*)(.+)$',
                       re.M)

mutation = st.one_of(
    st.tuples(st.just("delete line"), st.integers(0, 10**6)),
    st.tuples(st.just("duplicate line"), st.integers(0, 10**6), st.sampled_from([1, 2, 1000])),
    st.tuples(st.just("swap lines"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("indent"), st.integers(0, 10**6), st.sampled_from([-4, -2, -1, 1, 2, 3, 4, 400])),
    st.tuples(st.just("delete token"), st.integers(0, 10**6)),
    st.tuples(st.just("duplicate token"), st.integers(0, 10**6)),
    st.tuples(st.just("swap tokens"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.sampled_from(ODD_CHARS)),
    st.tuples(st.just("insert bytes"), st.integers(0, 10**6), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("big number"), st.integers(0, 10**6), st.sampled_from(BIG_NUMBERS)),
    st.tuples(st.just("nest"), st.integers(0, 10**6), st.sampled_from(NEST_TEMPLATES), st.sampled_from(NEST_DEPTHS)),
    st.tuples(st.just("truncate"), st.integers(0, 10**6)),
)


def mutate(text: str, op: tuple) -> str:
    kind, at = op[0], op[1]
    lines = text.split("\n")
    if kind == "delete line":
        del lines[at % len(lines)]
    elif kind == "duplicate line":
        i = at % len(lines)
        lines[i:i + 1] = [lines[i]] * (op[2] + 1)
    elif kind == "swap lines":
        i, j = at % len(lines), op[2] % len(lines)
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "indent":
        i, by = at % len(lines), op[2]
        if by > 0:
            lines[i] = " " * by + lines[i]
        elif lines[i].startswith(" " * -by):
            lines[i] = lines[i][-by:]
    elif kind in ("delete token", "duplicate token", "swap tokens", "big number"):
        toks = TOKEN.findall(text)
        if not toks:
            return text
        if kind == "big number":
            nums = [i for i, t in enumerate(toks) if t.isdigit()]
            if not nums:
                return text
            toks[nums[at % len(nums)]] = op[2]
        else:
            solid = [i for i, t in enumerate(toks) if not t.isspace()]
            if not solid:
                return text
            i = solid[at % len(solid)]
            if kind == "delete token":
                del toks[i]
            elif kind == "duplicate token":
                toks.insert(i, toks[i] + " ")
            else:
                j = solid[op[2] % len(solid)]
                toks[i], toks[j] = toks[j], toks[i]
        return "".join(toks)
    elif kind == "insert":
        i = at % (len(text) + 1)
        return text[:i] + op[2] + text[i:]
    elif kind == "insert bytes":
        i = at % (len(text) + 1)
        return text[:i] + op[2].decode("latin-1") + text[i:]
    elif kind == "nest":
        sites = list(EXPR_SITE.finditer(text))
        if not sites:
            return text
        m = sites[at % len(sites)]
        left, _, right = op[2].partition("{}")
        wrapped = left * op[3] + m.group(2) + right * op[3]
        return text[:m.start(2)] + wrapped + text[m.end(2):]
    elif kind == "truncate":
        return text[: at % (len(text) + 1)]
    return "\n".join(lines)


def mutants(names=None, max_ops: int = 3):
    """(ruleset name, mutated text, the ops) for the bundled rulesets."""
    names = sorted(BUNDLED) if names is None else names

    @st.composite
    def draw(d):
        name = d(st.sampled_from(names))
        ops = d(st.lists(mutation, min_size=1, max_size=max_ops))
        text = BUNDLED[name]
        for op in ops:
            text = mutate(text, op)
        return name, text

    return draw()


# ---- random programs, from the grammar ------------------------------------------------------------------------

FACES = ["A", "B", "C"]


@st.composite
def programs(d) -> str:
    """A random .fish program: declarations from the grammar, expressions and statements typed
    loosely (mostly right, sometimes not), names mostly declared, sizes mostly small and sometimes
    at or past a limit."""

    def pick(common: list, rare: list = ()):
        """Mostly one of `common`, now and then one of `rare`."""
        return d(st.sampled_from(list(common) * 6 + list(rare)))

    ints = st.one_of(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6),
                     st.sampled_from([0, 1, 2, 10, 100, 1000, 65536, 10**9, 10**15, 10**15 + 1]))
    lo = pick([2, 2, 1, 3], [0])
    hi = pick([lo, lo + 1, lo + 3, 8], [64, 65])
    nums = ["x", "y"]
    actions = [f"a{i}" for i in range(d(st.integers(1, 3)))]
    phases = [f"ph{i}" for i in range(d(st.integers(0, 2)))]
    dice = d(st.booleans())
    cards = d(st.booleans())
    board = d(st.booleans())
    defines = []
    out = ['game "Random"', f"players {lo} to {hi}"]
    if d(st.booleans()):
        top = d(ints)
        out.append(f'option opt: number from 0 to {top} = {pick([min(top, 1), 0, top], [top + 1])}, "o"')
        nums.append("opt")
    if dice:
        out.append(f"dice: {pick([1, 2, 5], [16, 17, 1000, 1001])} with faces A, B {d(ints)}, C 5")
    if cards:
        out.append(f"cards c: v from 1 to {pick([3, 10, 20], [10000, 10001])}")
        out += ["the game has deck: zone of c", "each player has hand: zone of c"]
    if board:
        n = pick([5, 25], [1000, 1001])
        out.append(f"board: circles from 1 to {n}")
        out.append("  line " + ", ".join(str(pick([1, 2, 3, 4, 5], [0, n, n + 1])) for _ in range(d(st.integers(2, 5)))))
    if d(st.booleans()):
        out.append(f"the game has pile: zones from 1 to {pick([1, 3], [1000, 1001])}")
    out += ["the game has x: number", "the game has y: number = 1", "the game has xs: list of numbers",
            "the game has who: player", "each player has points: number"]

    def num(depth: int, ctx: set) -> str:
        opts = ["lit", "name"]
        if "you" in ctx:
            opts.append("your")
        if depth > 0:
            opts += ["bin", "bin", "call", "cond", "count", "sum"]
        k = d(st.sampled_from(opts))
        if k == "lit":
            return str(d(ints))
        if k == "name":
            return pick(nums + defines + (["n"] if "n" in ctx else []), ["zz"])
        if k == "your":
            return "your points"
        if k == "bin":
            return f"({num(depth - 1, ctx)} {d(st.sampled_from(['+', '-', '*']))} {num(depth - 1, ctx)})"
        if k == "call":
            f = d(st.sampled_from(["divide", "max", "min", "abs", "largest", "count"]))
            if f == "abs":
                return f"abs({num(depth - 1, ctx)})"
            if f == "largest":
                return f"sum(largest({num(depth - 1, ctx)}, xs))"
            if f == "count":
                return f"count({coll(depth - 1, ctx)})"
            return f"{f}({num(depth - 1, ctx)}, {num(depth - 1, ctx)})"
        if k == "cond":
            return f"(if {cond(depth - 1, ctx)} then {num(depth - 1, ctx)} otherwise {num(depth - 1, ctx)})"
        if k == "count":
            return f"count({coll(depth - 1, ctx)})"
        return "sum(xs)" if not dice else d(st.sampled_from(["sum(xs)", "sum(value of dice)"]))

    def player(depth: int, ctx: set) -> str:
        opts = ["who", "first(players)", "first(players)"] + (["you"] * 3 if "you" in ctx else []) \
            + (["p"] if "p" in ctx else []) + (["player"] if "player" in ctx else []) + (["nobody"] if depth == 0 else [])
        if depth > 0:
            opts += ["left of", "right of"]
        k = d(st.sampled_from(opts))
        if k in ("left of", "right of"):
            return f"{k} {player(depth - 1, ctx)}"
        return k

    def coll(depth: int, ctx: set) -> str:
        opts = ["players"]
        if dice:
            opts += ["dice", "dice showing A"]
        if board:
            opts += ["circles", f"adjacent({num(0, ctx)})"]
        if cards:
            opts += ["deck", "c"]
        if depth > 0:
            opts += ["where", "other"]
        k = d(st.sampled_from(opts))
        if k == "where":
            return f"({coll(depth - 1, ctx)} where {cond(depth - 1, ctx | {'it'})})"
        if k == "other":
            return f"(players other than {player(depth - 1, ctx)})"
        return k

    def cond(depth: int, ctx: set) -> str:
        opts = ["cmp", "yes", "no"]
        if depth > 0:
            opts += ["not", "and", "or", "any", "in"]
        if dice:
            opts.append("every")
        k = d(st.sampled_from(opts))
        if k == "cmp":
            return f"{num(depth - 1 if depth else 0, ctx)} {d(st.sampled_from(['=', '<', '>=', '!=']))} {num(0, ctx)}"
        if k in ("yes", "no"):
            return k
        if k == "not":
            return f"not ({cond(depth - 1, ctx)})"
        if k in ("and", "or"):
            return f"({cond(depth - 1, ctx)} {k} {cond(depth - 1, ctx)})"
        if k == "any":
            return f"(any q in players where {cond(depth - 1, ctx)})"
        if k == "in":
            return f"{player(depth - 1, ctx)} in players"
        return "every die shows A"

    def block(depth: int, indent: int, ctx: set, in_phase: bool) -> list:
        pad = "  " * indent
        body = []
        for _ in range(d(st.integers(1, 3))):
            opts = ["set", "add", "nothing", "addlist", "if"]
            if in_phase:
                opts += ["choose", "choose", "foreach", "repeat", "play", "end", "simul"]
            if dice:
                opts.append("roll")
            if cards:
                opts += ["move", "draw", "shuffle"]
            if depth <= 0:
                opts = [o for o in opts if o not in ("if", "foreach", "repeat")]
            k = d(st.sampled_from(opts))
            if k == "set":
                body.append(f"{pad}set {d(st.sampled_from(['x', 'y']))} to {num(2, ctx)}")
            elif k == "add":
                target = d(st.sampled_from(["x", "y"] + (["your points"] if "you" in ctx else [])))
                body.append(f"{pad}add {num(2, ctx)} to {target}")
            elif k == "addlist":
                body.append(f"{pad}add {num(1, ctx)} to xs")
            elif k == "nothing":
                body.append(f"{pad}nothing")
            elif k == "if":
                body.append(f"{pad}if {cond(2, ctx)}:")
                body += block(depth - 1, indent + 1, ctx, in_phase)
                if d(st.booleans()):
                    body.append(f"{pad}otherwise:")
                    body += block(depth - 1, indent + 1, ctx, in_phase)
            elif k == "foreach":
                if d(st.booleans()):
                    body.append(f"{pad}for each p in {pick(['players'], [coll(1, ctx)])}:")
                    body += block(depth - 1, indent + 1, ctx | {"p"}, in_phase)
                else:
                    body.append(f"{pad}for each player:")
                    body += block(depth - 1, indent + 1, ctx | {"player"}, in_phase)
            elif k == "repeat":
                body.append(f"{pad}repeat {d(st.sampled_from(['2 times', 'while x < 3', 'until y > 2', '1000000 times']))}:")
                body += block(depth - 1, indent + 1, ctx, in_phase)
            elif k == "choose":
                who = pick([w for w in ("player", "p") if w in ctx] + ["first(players)"], ["who", "left of who"])
                body.append(f"{pad}{who} chooses " + " or ".join(d(st.lists(st.sampled_from(actions), min_size=1,
                                                                                   max_size=2, unique=True))))
            elif k == "simul":
                chooser = pick(["players", "players other than first(players)"], [coll(1, ctx)])
                body.append(f"{pad}each of {chooser} secretly chooses {d(st.sampled_from(actions))}")
            elif k == "play" and phases:
                body.append(f"{pad}play {d(st.sampled_from(phases))}")
            elif k == "end":
                body.append(f"{pad}end {d(st.sampled_from(['game'] + phases))}")
            elif k == "roll":
                body.append(f"{pad}roll {d(st.sampled_from(['all dice', 'dice showing A']))}")
            elif k == "move":
                body.append(f"{pad}move c to deck face {d(st.sampled_from(['up', 'down']))}")
            elif k == "draw":
                body.append(f"{pad}draw {num(0, ctx)} from deck to {player(1, ctx)}'s hand")
            elif k == "shuffle":
                body.append(f"{pad}shuffle deck")
            else:
                body.append(f"{pad}nothing")
        return body

    for i in range(d(st.integers(0, 3))):
        name = f"d{i}"
        out.append(f"define {name}: {num(3, set())}")
        defines.append(name)
    out.append("phase game:")
    out.append("  repeat:" if d(st.booleans()) else "  repeat 3 times:")
    out.append("    for each player:")
    out.append(f"      player chooses {' or '.join(actions)}")
    out += block(3, 3, {"player"}, True)
    for ph in phases:
        out.append(f"phase {ph}:")
        out += block(2, 1, set(), True)
    for a in actions:
        params = []
        ctx = {"you"}
        if d(st.booleans()):
            kind = d(st.sampled_from(["number", "player", "some", "one"]))
            if kind == "number":
                params.append(f"n: a number from {d(ints)} to {num(1, {'you'})}")
                ctx.add("n")
            elif kind == "player":
                params.append("q: one of players other than you")
            elif kind == "some" and dice:
                params.append("chosen: some dice")
            elif kind == "one" and board:
                params.append("t: one of circles")
        out.append(f"action {a}" + (f"({', '.join(params)})" if params else "") + ":")
        if d(st.booleans()):
            out.append(f'  require "r{a}": {cond(2, ctx)}')
        out += block(2, 1, ctx, False)
    out.append(f'score "s": {num(2, {"you"})}')
    if d(st.booleans()):
        out.append(f"winners: {coll(1, set())}")
    return "\n".join(out) + "\n"


# ---- action texts --------------------------------------------------------------------------------------------

ODD_TOKENS = ["²", "p²", "p١", "１", "٣", "𝟑", "-1", "+1", "0", "00", "9" * 30, "9" * 5000, "p" + "1" * 5000, "\x00",
              "", " ", "p0:", "p1:", "p9:", "p-1:", ":", "nobody", "you", "NaN", "1e3", "0x1", "\u200b", "\ufeff",
              "x" * 1001, "yes", "no", "?", "*"]

action_edit = st.one_of(
    st.tuples(st.just("replace token"), st.integers(0, 100), st.sampled_from(ODD_TOKENS)),
    st.tuples(st.just("insert token"), st.integers(0, 100), st.sampled_from(ODD_TOKENS)),
    st.tuples(st.just("delete token"), st.integers(0, 100)),
    st.tuples(st.just("duplicate token"), st.integers(0, 100)),
    st.tuples(st.just("insert char"), st.integers(0, 10**4), st.sampled_from(ODD_CHARS)),
    st.tuples(st.just("case"), st.sampled_from(["upper", "title"])),
    st.tuples(st.just("prefix"), st.sampled_from(["p0: ", "p1: ", "p2: ", "P1: ", "p١: ", "p²: ", "p01: ", ": "])),
    st.tuples(st.just("strip prefix")),
    st.tuples(st.just("player"), st.sampled_from(["p²", "p١", "p１", "p" + "1" * 5000, "p-1", "p9", "p00", "P1"])),
    st.tuples(st.just("repeat"), st.sampled_from([2, 10, 500])),
)


def edit_action(text: str, op: tuple) -> str:
    toks = text.split(" ")
    kind = op[0]
    if kind == "replace token" and toks:
        toks[op[1] % len(toks)] = op[2]
    elif kind == "insert token":
        toks.insert(op[1] % (len(toks) + 1), op[2])
    elif kind == "delete token" and toks:
        del toks[op[1] % len(toks)]
    elif kind == "duplicate token" and toks:
        i = op[1] % len(toks)
        toks.insert(i, toks[i])
    elif kind == "insert char":
        i = op[1] % (len(text) + 1)
        return text[:i] + op[2] + text[i:]
    elif kind == "case":
        return getattr(text, op[1])()
    elif kind == "prefix":
        return op[1] + text
    elif kind == "strip prefix":
        return text.split(": ", 1)[-1]
    elif kind == "player":  # an odd player where the text names one (p0, p1, ...), or as its chooser
        named = [i for i, t in enumerate(toks) if re.fullmatch(r"p\d+:?", t)]
        if not named:
            return op[1] + ": " + text
        i = named[0]
        toks[i] = op[1] + (":" if toks[i].endswith(":") else "")
    elif kind == "repeat":
        return " ".join([text] * op[1])[:2_000_000]  # a big text, not a worker out of memory
    return " ".join(toks)


# ---- saved states -------------------------------------------------------------------------------------------

ODD_VALUES = [None, True, False, 0, 1, -1, 2, 7, 63, 64, 65, 10**6, 2**63, -(2**63), 10**30, 1.5, 0.0, 2.0,
              float("nan"), float("inf"), "", "x", "0", "chance", "simultaneous", "p0", [], [0], [[]], {}, {"a": 1},
              [-1], [10**9]]

json_edit = st.one_of(
    st.tuples(st.just("replace"), st.lists(st.integers(0, 10**4), min_size=1, max_size=5), st.sampled_from(ODD_VALUES)),
    st.tuples(st.just("bump"), st.lists(st.integers(0, 10**4), min_size=1, max_size=5), st.sampled_from([-1, 1, 2, 100, -100])),
    st.tuples(st.just("delete"), st.lists(st.integers(0, 10**4), min_size=1, max_size=5)),
    st.tuples(st.just("duplicate"), st.lists(st.integers(0, 10**4), min_size=1, max_size=5)),
    st.tuples(st.just("swap"), st.lists(st.integers(0, 10**4), min_size=1, max_size=5), st.integers(0, 10**4)),
    st.tuples(st.just("wrap"), st.lists(st.integers(0, 10**4), min_size=1, max_size=5), st.sampled_from([1, 2, 100_000])),
    st.tuples(st.just("add key"), st.sampled_from(["extra", "", "players ", "__class__", "format"]), st.sampled_from(ODD_VALUES)),
    st.tuples(st.just("move element"), st.lists(st.integers(0, 10**4), min_size=1, max_size=5),
              st.lists(st.integers(0, 10**4), min_size=1, max_size=5)),
)
text_edit = st.one_of(
    st.tuples(st.just("truncate"), st.integers(0, 10**6)),
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.sampled_from(ODD_CHARS + ["NaN", "1e999", "9" * 5000, "[" * 10_000])),
    st.tuples(st.just("digit"), st.integers(0, 10**6), st.sampled_from("0123456789")),
)


def _walk(data, path):
    """The container and key that `path` (indices, taken modulo) leads to; None if nowhere."""
    parent, key = None, None
    node = data
    for step in path:
        if isinstance(node, dict) and node:
            keys = sorted(node)
            parent, key = node, keys[step % len(keys)]
        elif isinstance(node, list) and node:
            parent, key = node, step % len(node)
        else:
            break
        node = parent[key]
    return parent, key


def edit_json(data, op: tuple):
    kind = op[0]
    if kind == "add key":
        data[op[1]] = copy.deepcopy(op[2])
        return data
    parent, key = _walk(data, op[1])
    if parent is None:
        return data
    if kind == "replace":
        parent[key] = copy.deepcopy(op[2])
    elif kind == "bump":
        v = parent[key]
        if isinstance(v, bool):
            parent[key] = not v
        elif isinstance(v, int):
            parent[key] = v + op[2]
        elif isinstance(v, str):
            parent[key] = v + "x"
    elif kind == "delete":
        del parent[key]
    elif kind == "duplicate":
        if isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        else:
            parent[key] = [parent[key], copy.deepcopy(parent[key])]
    elif kind == "swap" and isinstance(parent, list):
        j = op[2] % len(parent)
        parent[key], parent[j] = parent[j], parent[key]
    elif kind == "wrap":
        v = parent[key]
        if op[2] > 200:  # deeper than json.dumps can write: spliced in as text by `dumps`
            parent[key] = Deep(op[2], v)
        else:
            for _ in range(op[2]):
                v = [v]
            parent[key] = v
    elif kind == "move element":
        dest_parent, dest_key = _walk(data, op[2])
        if isinstance(parent, list) and dest_parent is not None and isinstance(dest_parent[dest_key], list) \
                and dest_parent[dest_key] is not parent:
            dest_parent[dest_key].append(parent.pop(key))
    return data


def edit_text(text: str, op: tuple) -> str:
    kind, at = op[0], op[1] % (len(text) + 1)
    if kind == "truncate":
        return text[:at]
    if kind == "insert":
        return text[:at] + op[2] + text[at:]
    digits = [i for i, ch in enumerate(text) if ch.isdigit()]
    if not digits:
        return text
    i = digits[op[1] % len(digits)]
    return text[:i] + op[2] + text[i + 1:]


class Deep:
    """A value wrapped in `depth` lists, too deep for json.dumps."""

    def __init__(self, depth: int, value) -> None:
        self.depth, self.value = depth, value


def dumps(data) -> str:
    """Compact JSON, as to_json writes it (NaN and infinities included, as Python's json allows;
    `Deep` values written as text)."""
    deep: list = []

    def default(o):
        if isinstance(o, Deep):
            deep.append(o)
            return f"\x00deep{len(deep) - 1}\x00"
        raise TypeError(type(o).__name__)

    text = json.dumps(data, separators=(",", ":"), allow_nan=True, default=default)
    for i, o in enumerate(deep):
        inner = "[" * o.depth + dumps(o.value) + "]" * o.depth
        text = text.replace(json.dumps(f"\x00deep{i}\x00"), inner, 1)
    return text

