"""Imports flow one way: a module never imports, even late, a module that imports it back.

The pipeline's stages import only earlier stages (docs/architecture.md, "The stages"),
and so do the modules built on them.  An import written inside a function, to run only when it is
called, is an import all the same: it used to hide cycles (the runtime importing the
determinization and the spaces, which import the runtime or the API, which imports the runtime),
and this test reads those too, from the source of every module of `fishrules`.

Two checks.  Between modules, the imports that run (at the top of a module, or in a function) form
no cycle.  Between stages — the top-level modules, each package counted as one (`runtime`,
`kernel`, `compiler`, `checker`, `adapters`, `web`) — no cycle either, imports written for type
checkers only (`if TYPE_CHECKING:`) included: a stage may not even name a type of a stage built on
it.  (Inside one package a module may name, for type checkers, a class of the same package: the
runtime's layers and its determinization name `State`.)
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "fishrules"


def modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: dotted name -> (file, is a package)."""
    out = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        out[".".join(parts)] = (path, is_package)
    return out


MODULES = modules()


def _targets(name: str, is_package: bool, node: ast.AST) -> list[str]:
    """The modules of the package an import statement runs."""
    if isinstance(node, ast.Import):
        found = [a.name for a in node.names]
    else:
        assert isinstance(node, ast.ImportFrom)
        if node.level:
            base = name.split(".") if is_package else name.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        found = [module]
        found += [f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in MODULES]
    out = []
    for target in found:
        parts = target.split(".")
        # importing a.b.c runs a, a.b and a.b.c; a package the importer is in is running already
        for i in range(1, len(parts) + 1):
            mod = ".".join(parts[:i])
            if mod in MODULES and mod != name and not name.startswith(mod + "."):
                out.append(mod)
    return list(dict.fromkeys(out))


@functools.cache  # read when a test first asks, not when the file is collected (by every process of `make test`)
def imports() -> list[tuple[str, str, str, int]]:
    """(importer, imported, how, line) for every import of one module of the package by another;
    how: "top" (runs on import), "late" (inside a function) or "typing" (type checkers only)."""
    out = []
    for name, (path, is_package) in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))

        def walk(node: ast.AST, how: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(name, is_package, child):
                        out.append((name, target, how, child.lineno))
                elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    walk(child, "typing" if how == "typing" else "late")
                elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    walk(child, "typing")
                    for orelse in child.orelse:
                        walk(orelse, how)
                else:
                    walk(child, how)

        walk(tree, "top")
    return out


def cycle(edges: dict[str, set[str]]) -> list[str]:
    """A cycle of the graph (its nodes in order, the first repeated last), or []."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    path: list[str] = []

    def visit(v: str) -> list[str]:
        state[v] = 1
        path.append(v)
        for w in sorted(edges.get(v, ())):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state:
                found = visit(w)
                if found:
                    return found
        path.pop()
        state[v] = 2
        return []

    for v in sorted(edges):
        if v not in state:
            found = visit(v)
            if found:
                return found
    return []


def _explain(found: list[str], where: dict[tuple[str, str], list[str]]) -> str:
    return "\n".join(f"  {a} -> {b}: " + ", ".join(dict.fromkeys(where[a, b])) for a, b in zip(found, found[1:]))


def stage(name: str) -> str:
    """The stage a module belongs to: a top-level module, or the package it is in."""
    parts = name.split(".")
    return ".".join(parts[:2])


def test_the_modules_are_read():
    """(The checks below read what they should: the imports that used to make the cycle.)"""
    assert {"fishrules.api", "fishrules.runtime.state", "fishrules.spaces", "fishrules.kernel"} <= set(MODULES)
    edges = {(a, b) for a, b, _, _ in imports()}
    assert ("fishrules.api", "fishrules.runtime") in edges  # from .runtime import ...
    assert ("fishrules.api", "fishrules.spaces") in edges  # written inside Game._spaces
    assert any(how == "late" for _, _, how, _ in imports()) and any(how == "typing" for _, _, how, _ in imports())


def test_no_module_imports_one_that_imports_it_back():
    edges: dict[str, set[str]] = {}
    where: dict[tuple[str, str], list[str]] = {}
    for a, b, how, line in imports():
        if how != "typing":
            edges.setdefault(a, set()).add(b)
            where.setdefault((a, b), []).append(f"{MODULES[a][0].relative_to(SRC)}:{line} ({how})")
    found = cycle(edges)
    assert not found, "these imports make a cycle:\n" + _explain(found, where)


def test_no_stage_names_a_stage_built_on_it():
    edges: dict[str, set[str]] = {}
    where: dict[tuple[str, str], list[str]] = {}
    for a, b, how, line in imports():
        sa, sb = stage(a), stage(b)
        if sa != sb and sa != PACKAGE:  # the package itself re-exports the API (fishrules/__init__.py)
            edges.setdefault(sa, set()).add(sb)
            where.setdefault((sa, sb), []).append(f"{MODULES[a][0].relative_to(SRC)}:{line} ({how})")
    found = cycle(edges)
    assert not found, "these stages import each other:\n" + _explain(found, where)


def test_the_cycle_checks_find_a_cycle():
    """(A cycle, as the runtime importing the determinization that imports the runtime, is found.)"""
    assert cycle({"runtime": {"determinize"}, "determinize": {"runtime"}}) in (
        ["runtime", "determinize", "runtime"], ["determinize", "runtime", "determinize"])
    assert cycle({"api": {"runtime"}, "runtime": {"compiler"}}) == []
