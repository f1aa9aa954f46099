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
    assert [c.__name__ for c in node_classes(m) if not issubclass(c, Node)] == ["Type"]  # a value, not a node


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
