"""One way to walk a tree (`fishrules.walk`): the children of a node, a walk, a search."""

from __future__ import annotations

import inspect

import attrs

from fishrules import model as m
from fishrules import nodes as n
from fishrules.syntax import parse
from fishrules.walk import Node, find_all, walk

RULES = '''game "Walk"
players 2 to 2
the game has total: number = 0
phase game:
  if total = 1:
    set total to 2
  otherwise if total > 2:
    add 1 to total
  otherwise:
    end game
'''


def node_classes(module):
    return [c for _, c in inspect.getmembers(module, inspect.isclass) if attrs.has(c) and c.__module__ == module.__name__]


def test_every_node_of_the_syntax_and_the_model_is_a_node():
    assert all(issubclass(c, Node) for c in node_classes(n))
    # values, not nodes: a type, and the presentation's words (plain data, nothing to walk into)
    assert [c.__name__ for c in node_classes(m) if not issubclass(c, Node)] == ["Presentation", "Type"]


def test_the_children_of_an_if_in_the_order_they_are_written():
    phase = parse(RULES).items[-1]
    stmt = phase.body[0]
    kinds = [type(c).__name__ for c in stmt.iter_child_nodes()]
    assert kinds == ["BinOp", "Set", "BinOp", "AddTo", "End"]  # branch by branch, the `otherwise` last


def test_a_walk_goes_in_the_order_written_or_last_first():
    e = n.BinOp("+", n.Name("a"), n.BinOp("*", n.Name("b"), n.Name("c")))
    names = [x.name for x in e.walk() if isinstance(x, n.Name)]
    assert names == ["a", "b", "c"]
    order = [getattr(x, "name", getattr(x, "op", None)) for x in e.walk(last_first=True)]
    assert order == ["+", "*", "c", "b", "a"]  # each node before those inside it, the last first
    assert [x.name for x in walk([n.Name("x"), e], last_first=True) if isinstance(x, n.Name)] == ["c", "b", "a", "x"]


def test_stop_at_keeps_a_walk_out_of_a_kind_of_node():
    phase = parse(RULES).items[-1]
    held = [type(x).__name__ for x in phase.walk(stop_at=n.Expr)]  # the statements, and what they hold
    assert held == ["Phase", "If", "BinOp", "Set", "Name", "Number", "BinOp", "AddTo", "Number", "Name", "End"]
    assert [type(x).__name__ for x in phase.walk()].count("Name") == 4  # the conditions' names too
    assert [type(s).__name__ for s in find_all(phase.body, n.Stmt)] == ["If", "Set", "AddTo", "End"]


def test_a_walk_is_iterative():
    e: n.Expr = n.Name("x")
    for _ in range(20_000):  # far deeper than Python's recursion limit
        e = n.Not(e)
    assert sum(1 for _ in e.walk()) == 20_001
    assert [x.name for x in e.find_all(n.Name)] == ["x"]


def test_the_model_walks_through_its_declarations():
    import fishrules

    model = fishrules.load("fishfry")._model
    assert any(isinstance(x, m.RollDice) for x in model.walk())
    assert list(model.find_all(m.RollDice, stop_at=m.Expr)) == list(
        find_all((*model.phases.values(), *model.actions.values()), m.RollDice, stop_at=m.Expr))


class _Untouchable(tuple):
    """Data that fails the test if anything looks through it."""

    def __iter__(self):
        raise AssertionError("a walk looked through plain data")


def test_a_walk_does_not_look_through_data():
    # `circles` is a constant of a thousand numbers, named wherever a rule names it: a walk that
    # looked through it would do a thousand steps at each name (fifteen million to load 3,000
    # defines that each name it, against thirty thousand)
    data = _Untouchable(range(1000))
    const = m.Const(data, m.LIST)
    assert list(m.Not(const, m.BOOL).walk()) == [m.Not(const, m.BOOL), const]
    lines = _Untouchable(((1, 2, 3),))
    for node in (m.Board(1, 3, lines), m.CardInfo("c", data, "c1"), n.CardAttr("v", data),
                 n.BoardDecl(1, 3, lines, line_spans=data)):
        assert list(node.walk()) == [node]


def _fish_files():
    import pathlib

    root = pathlib.Path(__file__).resolve().parent.parent
    return sorted(p for d in ("rulesets", "examples", "tests/games") for p in (root / d).rglob("*.fish"))


def _holds_a_node(value) -> bool:
    if isinstance(value, Node):
        return True
    if isinstance(value, dict):
        value = tuple(value.values())
    return isinstance(value, tuple) and any(_holds_a_node(v) for v in value)


def test_no_node_hides_in_data():
    # what `data_fields` names a walk skips: it must never hold a node, or a walk would miss it
    import fishrules

    files = _fish_files()
    assert len(files) >= 10
    checked = 0
    for path in files:
        trees = [*parse(path.read_text()).items]
        try:
            trees.append(fishrules.load(path)._model)
        except fishrules.FishrulesError:
            pass  # a file that is meant not to load still has its syntax
        for x in walk(trees):
            for name in type(x).data_fields:
                assert not _holds_a_node(getattr(x, name)), (path.name, type(x).__name__, name)
                checked += 1
    assert checked > 100
