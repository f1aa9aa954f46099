"""The contract between the code the compiler writes and the runtime (fishrules.runtime.contract)
holds on both sides.

The generated code of every bundled ruleset and example touches only the state attributes
`STATE` names; the compiler's code templates write exactly those; the compiler's helpers touch
only those and `HELPER_STATE`; and `State` has every one of them, a method where the contract
says so.  (That the generated code calls nothing but `HELPERS` and names it mints is
tests/test_generated_source.py's identifier check, which reads the same lists.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import fishrules
from fishrules.compiler import program, source_of
from fishrules.runtime import State
from fishrules.runtime.contract import HELPER_STATE, HELPERS, STATE
from fishrules.runtime.fields import Fields

from .test_generated_source import sources

COMPILER = Path(program.__file__).resolve().parent
ON_S = re.compile(r"(?<![\w.])s\.(\w+)")


def attributes_of(tree: ast.AST, name: str = "s") -> set[str]:
    """The attributes read, written or called on the variable `name` in `tree`."""
    return {n.attr for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name}


@pytest.mark.parametrize("name,game", list(sources()), ids=lambda x: x if isinstance(x, str) else "")
def test_generated_code_uses_only_what_the_contract_names(name, game):
    used = attributes_of(ast.parse(source_of(game.model)))
    assert {"g", "stack"} <= used  # (the listing is read)
    assert used <= set(STATE), f"not in fishrules.runtime.contract.STATE: {sorted(used - set(STATE))}"


def test_the_compiler_writes_what_the_contract_names():
    """Every `s.X` the compiler's templates write (the strings of fishrules/compiler/*.py) is in
    `STATE`, and every entry of `STATE` is written by some template: a ruleset that uses a rare
    construct cannot reach past the contract, and the contract names nothing the compiler stopped
    writing."""
    written: set[str] = set()
    for path in sorted(COMPILER.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                written |= set(ON_S.findall(node.value))
    assert written - set(STATE) == set(), "written by the compiler, not in the contract"
    assert set(STATE) - written == set(), "in the contract, written by no template of the compiler"


def helper_functions() -> dict[str, ast.FunctionDef]:
    """The compiler's helpers and the functions of their module they call, by name."""
    tree = ast.parse(Path(program.__file__).read_text(encoding="utf-8"))
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    todo = [name for name in HELPERS if name in functions]
    found: dict[str, ast.FunctionDef] = {}
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found[name] = functions[name]
        for n in ast.walk(functions[name]):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in functions:
                todo.append(n.func.id)
    return found


def test_the_helpers_use_only_what_the_contract_names():
    used: dict[str, set[str]] = {}
    for name, fn in helper_functions().items():
        if "s" in [a.arg for a in fn.args.args]:
            for attr in attributes_of(fn):
                used.setdefault(attr, set()).add(name)
    assert {"charge", "draw_wait", "roll_faces"} <= {h for names in used.values() for h in names}
    allowed = set(STATE) | set(HELPER_STATE)
    outside = {a: sorted(by) for a, by in used.items() if a not in allowed}
    assert not outside, f"used by helpers, not in fishrules.runtime.contract.HELPER_STATE: {outside}"
    stale = set(HELPER_STATE) - set(used)
    assert not stale, f"in HELPER_STATE, used by no helper: {sorted(stale)}"


def test_the_helpers_are_the_compilers():
    assert HELPERS is program.HELPERS


def test_state_has_everything_the_contract_names():
    s = fishrules.load("fatfish").start(3, seed=1, count_rules=True)
    for name, what in {**STATE, **HELPER_STATE}.items():
        if what.startswith("method"):
            assert callable(getattr(State, name, None)), f"State.{name} is not a method"
        else:
            assert name in Fields.__slots__, f"State has no slot {name!r}"
            getattr(s, name)  # set on a new state
