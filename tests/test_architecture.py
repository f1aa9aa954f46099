"""docs/architecture.md and the README's layout section stay true to the source tree.

The architecture page is how a newcomer finds the file that holds a stage: every module of the
package is named there (each module of the stage packages by its own name), every path it names
exists, and the stages import only the stages before them, as the page and the README say.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "fishrules"
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
#: packages whose modules the page names one by one; the others it names as a whole
STAGE_PACKAGES = ("syntax", "checker", "compiler", "runtime", "kernel")
#: the stages, in order: none may import a later one
STAGES = ("syntax", "variants", "analysis", "checker", "compiler", "runtime")


def test_every_module_is_named_on_the_architecture_page():
    missing = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if len(rel.parts) == 1:
            wanted = f"src/fishrules/{rel}"
        elif rel.parts[0] in STAGE_PACKAGES:
            wanted = "/".join(rel.parts) if rel.name != "__init__.py" else f"src/fishrules/{rel.parts[0]}/"
        else:
            wanted = f"src/fishrules/{rel.parts[0]}/"
        if wanted not in PAGE:
            missing.append(wanted)
    assert not missing, f"docs/architecture.md does not name {missing}"


def test_every_path_on_the_architecture_page_exists():
    named = set(re.findall(r"`((?:src/fishrules/|tests/|(?:syntax|checker|compiler|runtime|kernel)/)[\w/.-]*)`", PAGE))
    assert len(named) > 40
    for path in named:
        where = ROOT / path if path.startswith(("src/", "tests/")) else SRC / path
        assert where.exists(), f"docs/architecture.md names {path}, which does not exist"


def test_the_readme_layout_names_what_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout"):]
    assert "docs/architecture.md" in layout
    named = re.findall(r"`([\w.-]+(?:\.py|\.lark|/))`", layout)
    for name in named:
        found = [p for p in (ROOT / name, SRC / name, SRC / "syntax" / name, SRC / "runtime" / name) if p.exists()]
        assert found, f"the README's layout names {name}, which does not exist"
    # and it leaves none out: every module and package of src/fishrules/ is named
    here = {p.name + "/" if p.is_dir() else p.name for p in SRC.iterdir()
            if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.name != "__init__.py")}
    assert not here - set(named), f"the README's layout leaves out {sorted(here - set(named))}"


def imported_stages(module: Path) -> set[str]:
    """The top-level modules or packages of fishrules that a module of `module` imports."""
    out = set()
    files = [module] if module.is_file() else list(module.rglob("*.py"))
    for f in files:
        depth = len(f.relative_to(SRC).parts) - 1
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                up = node.level - 1  # levels above the file's own package
                if up >= depth and node.module:
                    out.add(node.module.split(".")[0])
                elif up >= depth:
                    out.update(a.name for a in node.names)
    return out


def test_each_stage_imports_only_the_stages_before_it():
    for i, stage in enumerate(STAGES):
        path = SRC / stage if (SRC / stage).is_dir() else SRC / f"{stage}.py"
        later = set(STAGES[i + 1:]) | {"api", "kernel"}
        assert not imported_stages(path) & later, f"{stage} imports a later stage: {imported_stages(path) & later}"


def isinstance_chain(test_of_if: ast.If) -> int:
    """How many tests of an `if`/`elif` chain are isinstance tests."""
    count, node = 0, test_of_if
    while True:
        if any(isinstance(c, ast.Call) and getattr(c.func, "id", None) == "isinstance" for c in ast.walk(node.test)):
            count += 1
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
        else:
            return count


def test_passes_over_nodes_dispatch_by_kind_not_by_isinstance_chains():
    # one dispatch style, `visit_<Node>` (one method per kind of node), as the compiler's: the
    # checker and explain hold no long if/elif chain over the kinds of node
    files = [*sorted((SRC / "checker").glob("*.py")), SRC / "explain.py"]
    long_chains = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        elifs = {id(x.orelse[0]) for x in ast.walk(tree) if isinstance(x, ast.If) and len(x.orelse) == 1}
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and id(node) not in elifs and isinstance_chain(node) > 4:
                long_chains.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not long_chains, f"if/elif chains over the kinds of node: {long_chains}"


#: a function longer than this many lines says why it is long: "(Long, and kept whole: …)"
LONGEST = 80


def test_every_long_function_says_why_it_is_long():
    # issue 24: a newcomer reads functions of a screen or so; the few longer ones (flat lists of
    # declarations, of routes, of closures, a template of C) say so where they start
    silent = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([d.lineno for d in node.decorator_list] + [node.lineno])
                length = node.end_lineno - start + 1
                if length > LONGEST and "(Long, and kept whole:" not in (ast.get_docstring(node, clean=False) or ""):
                    silent.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    assert not silent, "functions longer than 80 lines that do not say why: " + ", ".join(silent)
