"""docs/architecture.md's "Adding a construct" stays true: every statement kind has each stage's piece.

The section lists the places a new statement kind touches; this holds it, by reading the source
(AST and text only: nothing is imported or played).  For every syntax statement (`nodes.Stmt`
subclass): a tree builder named like a grammar rule, a checker visitor, an unparser, and a row of
docs/language.md's tables that starts with its keyword.  For every checked statement (`model.Stmt`
subclass): a checker visitor that builds it, the kernel's lowering (`s_<Model>`) and, while
`compiler/` exists, the engine's block writer.  And the modules that name a statement's model class
are exactly the ones the page's table lists: a module that starts naming one is a new place to
touch, which the page (and issue 32's target of at most 8) must hear of.  Expression kinds are
held the same way, more loosely (the kernel lowers them by what they give, not by one visitor).
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "fishrules"
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
LANGUAGE = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def _tree(rel: str) -> ast.Module:
    return ast.parse((SRC / rel).read_text(encoding="utf-8"))


def stmt_classes(rel: str) -> list[str]:
    """The direct subclasses of `Stmt` a module defines (every statement kind is one)."""
    return [c.name for c in _tree(rel).body
            if isinstance(c, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == "Stmt" for b in c.bases)]


@lru_cache(maxsize=None)
def methods(rel: str) -> dict[str, ast.AST]:
    """Every method of every class of a module, by name, with the aliases (`visit_A = visit_B = f`)."""
    out: dict[str, ast.AST] = {}
    for cls in (c for c in ast.walk(_tree(rel)) if isinstance(c, ast.ClassDef)):
        for item in cls.body:
            if isinstance(item, ast.FunctionDef):
                out[item.name] = item
            elif isinstance(item, ast.Assign):
                for t in item.targets:
                    if isinstance(t, ast.Name):
                        out[t.id] = item
    return out


def built(fn: ast.AST, module: str) -> set[str]:
    """The classes of `module` (the alias `n` or `m`) a function constructs."""
    return {c.func.attr for c in ast.walk(fn) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
            and isinstance(c.func.value, ast.Name) and c.func.value.id == module}


SYNTAX = stmt_classes("nodes.py")
MODEL = stmt_classes("model.py")


def test_the_statement_kinds_are_found():
    # the scanning itself: a refactor that hides the classes must not make every check pass vacuously
    assert {"Reveal", "Unavailable", "If", "ForEach"} <= set(SYNTAX) and len(SYNTAX) >= 20
    assert {"RevealCards", "Refuse", "IfStmt", "ForEachStmt"} <= set(MODEL) and len(MODEL) >= 15


@lru_cache(maxsize=None)
def grammar_rules() -> dict[str, str]:
    """Each grammar rule and alias (`-> name`) with the first word of the language it is spelled with."""
    text = "\n".join(line.split("//")[0] for line in (SRC / "syntax" / "grammar.lark").read_text().splitlines())
    out = {}
    for m in re.finditer(r"^\??(\w+):(.*?)(?=^\??\w+:|\Z)", text, re.M | re.S):
        name, body = m.groups()
        for alt in body.split("\n"):
            word = re.search(r'"([a-z]+)"', alt)
            alias = re.search(r"->\s*(\w+)", alt)
            if word and alias:
                out.setdefault(alias.group(1), word.group(1))
        word = re.search(r'"([a-z]+)"', body)
        if word:
            out[name] = word.group(1)
    return out


@lru_cache(maxsize=None)
def tree_builders() -> dict[str, list[str]]:
    """Each syntax statement class with the tree builder methods (grammar rules) that construct it."""
    out: dict[str, list[str]] = {}
    for name, fn in methods("syntax/tree.py").items():
        for cls in built(fn, "n"):
            out.setdefault(cls, []).append(name)
    return out


@pytest.mark.parametrize("kind", SYNTAX)
def test_each_syntax_statement_is_built_checked_and_unparsed(kind):
    builders = tree_builders().get(kind, [])
    assert builders, f"syntax/tree.py builds no nodes.{kind} (a grammar rule's method returning n.{kind}(...))"
    rules = grammar_rules()
    assert any(b in rules for b in builders), f"nodes.{kind} is built by {builders}, none of them a grammar rule"
    checker = methods("checker/statements.py")
    assert f"visit_{kind}" in checker, f"checker/statements.py has no visit_{kind}"
    assert f"visit_{kind}" in methods("explain.py"), f"explain.py cannot print nodes.{kind} back (no visit_{kind})"
    words = {rules[b] for b in builders if b in rules}
    missing = [w for w in sorted(words) if not in_a_table_row(w, LANGUAGE)]
    assert not missing, f"no table row of docs/language.md shows {missing} (nodes.{kind})"


@lru_cache(maxsize=None)
def syntax_of_model() -> dict[str, set[str]]:
    """Each model statement class with the syntax statements whose checker visitor builds it."""
    checker = methods("checker/statements.py")
    out: dict[str, set[str]] = {}
    for kind in SYNTAX:
        fn = checker.get(f"visit_{kind}")
        for cls in built(fn, "m") if fn is not None else ():
            out.setdefault(cls, set()).add(kind)
    return out


def in_a_table_row(word: str, text: str) -> bool:
    """Whether a table row of a Markdown page starts with a code cell holding `word` (the page's
    tables of statements: "| `reveal CARDS` | turn them face up |")."""
    for line in text.splitlines():
        if line.startswith("| `"):
            first = re.split(r"(?<!\\)\|", line)[1]
            code = " ".join(re.findall(r"`([^`]+)`", first))
            if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", code):
                return True
    return False


@pytest.mark.parametrize("kind", MODEL)
def test_each_model_statement_is_lowered_and_documented(kind):
    assert syntax_of_model().get(kind), f"no visitor of checker/statements.py builds model.{kind}"
    assert f"s_{kind}" in methods("kernel/lower_blocks.py"), f"kernel/lower_blocks.py cannot lower model.{kind}"
    if (SRC / "compiler" / "blocks.py").exists():  # the engine's program, until issue 32's step 6
        assert f"visit_{kind}" in methods("compiler/blocks.py"), f"compiler/blocks.py has no visit_{kind}"


def naming(path: Path, kinds: list[str]) -> set[str]:
    """The statement classes a module names: as a name or attribute (`m.RevealCards`), a visitor
    (`visit_RevealCards`, `s_RevealCards`), an import, or a string that is exactly the name."""
    names = set()
    for a in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(a, ast.Name):
            names.add(a.id)
        elif isinstance(a, ast.Attribute):
            names.add(a.attr)
        elif isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(a.name)
        elif isinstance(a, ast.alias):
            names.add(a.name.rsplit(".", 1)[-1])
        elif isinstance(a, ast.Constant) and isinstance(a.value, str):
            names.add(a.value)
    return {k for k in kinds if any(x == k or x.endswith("_" + k) for x in names)}


def documented_namers() -> dict[str, set[str]]:
    """The page's table "Who names a statement's model class": module → the classes it names."""
    section = PAGE[PAGE.index("### Who names a statement's model class"):]
    section = section[:section.index("\n## ")]
    out = {}
    for row in re.findall(r"^\| `([\w/.]+\.py)` \| ([^|]+) \|", section, re.M):
        module, kinds = row
        out[module] = set(MODEL) if kinds.strip() == "every" else {k.strip() for k in kinds.split(",")}
    assert len(out) >= 4, "the page's table of who names a statement's model class is missing or unreadable"
    return out


def test_the_modules_that_name_a_statement_are_the_documented_ones():
    documented = documented_namers()
    unknown = {mod: kinds - set(MODEL) for mod, kinds in documented.items() if kinds - set(MODEL)}
    assert not unknown, f"the page's table names statement classes model.py does not define: {unknown}"
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = str(path.relative_to(SRC))
        if rel == "model.py" or not any(k in path.read_text(encoding="utf-8") for k in MODEL):
            continue  # (parsing only the modules that may name one keeps this fast)
        kinds = naming(path, MODEL)
        if kinds:
            found[rel] = kinds
    for mod in sorted(set(found) | set(documented)):
        got, said = found.get(mod, set()), documented.get(mod, set())
        assert got == said, (
            f"src/fishrules/{mod} names the statement classes {sorted(got)}, and docs/architecture.md's "
            f"\"Who names a statement's model class\" says {sorted(said)}: a new place a statement kind "
            f"touches goes on the page (and in \"Adding a construct\"), or out of the module")


def test_the_page_lists_each_place_in_pipeline_order():
    section = PAGE[PAGE.index("## Adding a construct"):]
    section = section[:section.index("\n## ")]
    rows = re.findall(r"^\| (\d+) \| `([^`]+)`", section, re.M)
    assert [int(n) for n, _ in rows] == list(range(1, len(rows) + 1))
    files = [f for _, f in rows]
    order = ["syntax/grammar.lark", "nodes.py", "syntax/tree.py", "checker/statements.py", "model.py",
             "explain.py", "kernel/lower_blocks.py", "docs/language.md"]
    assert [f for f in files if f in order] == order
    for f in files:
        assert (SRC / f).exists() or (ROOT / f).exists() or (SRC / f.rstrip("/")).is_dir(), f
    # every module the table of namers lists is one of the places to touch
    assert set(documented_namers()) - {"analysis.py", "bounds.py", "api.py", "adapters/__init__.py"} <= set(files)


# ---- expressions: the same path, held more loosely ----------------------------------------------

def expr_classes(rel: str) -> list[str]:
    return [c.name for c in _tree(rel).body
            if isinstance(c, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == "Expr" for b in c.bases)]


SYNTAX_EXPR = expr_classes("nodes.py")
MODEL_EXPR = expr_classes("model.py")


def test_each_expression_kind_is_built_checked_unparsed_and_lowered():
    assert len(SYNTAX_EXPR) >= 20 and len(MODEL_EXPR) >= 20
    builders, checker, unparse = tree_builders(), methods("checker/expressions.py"), methods("explain.py")
    for kind in SYNTAX_EXPR:
        assert builders.get(kind), f"syntax/tree.py builds no nodes.{kind}"
        assert f"visit_{kind}" in checker, f"checker/expressions.py has no visit_{kind}"
        assert f"visit_{kind}" in unparse, f"explain.py cannot print nodes.{kind} back (no visit_{kind})"
    # the kernel lowers an expression by what it gives (`x_` a value, `s_` a stream, `b_` a buffer,
    # or a case of its own): each kind must at least be named there
    lowered = naming(SRC / "kernel" / "lower_expr.py", MODEL_EXPR)
    assert set(MODEL_EXPR) <= lowered, f"kernel/lower_expr.py never names {sorted(set(MODEL_EXPR) - lowered)}"
    if (SRC / "compiler" / "expressions.py").exists():  # the engine's program, until issue 32's step 6
        writer = methods("compiler/expressions.py")
        assert not [k for k in MODEL_EXPR if f"visit_{k}" not in writer]
