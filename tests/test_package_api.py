"""No package reaches into another's private names, but through the API written down here.

`src/fishrules/` is a few packages (`compiler`, `kernel`, `runtime`, `checker`, `syntax`, `web`,
`adapters`) and top-level modules (`api`, `analysis`, `cli`, ..., each counted as a package of its
own).  A name that starts with one underscore is private to the package that defines it.  This test
reads every module (with `ast`, nothing is imported) and lists each use of one package's private
name from another:

- `from fishrules.compiler.expressions import _define_order` (or the same, relative);
- `module._name`, where `module` was imported from another package;
- `thing._name` (read, written or passed to `getattr`), where `_name` is defined (a function, a
  class, a module's or a class's value, an attribute set on `self`, a slot) by other packages only.

Two lists say which crossings there may be.  `GAME_API` and `STATE_API` are the package-internal
API that `Game` (api.py) and `State` (runtime/) give the rest of the package: documented in
docs/architecture.md ("What Game and State give the rest"), and used by any package.  `ALLOWED` is
every other crossing there is, each with a one-line reason: it must only shrink.  The test fails on
a crossing in neither list, and on an entry of `ALLOWED` that no longer happens (take it out).
"""

from __future__ import annotations

import ast
import functools
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "fishrules"

#: What `Game` gives the rest of the package (docs/architecture.md says the same).
GAME_API = {
    "_options": "game._options(options): every option's value, the given ones checked, the others defaulted",
    "_resolved": "game._resolved: the resolved rule files (variants, files read), to load the game again",
    "_kernel": "game._kernel: the game's Kernel once it is built, else None",
    "_identity": "game._identity: the title and rule hash that name the game in caches and saved states",
    "_backend": "game._backend: the backend the game was loaded for (auto, native or python)",
    "_position_of": "game._position_of(state): the kernel's position of a state, as a saved state writes it",
}

#: What `State` (and its `Action`) gives the rest of the package (docs/architecture.md says the same).
STATE_API = {
    "_new": "State._new(game, players, options, seed, manual, ...): a new game, as Game.start makes it",
    "_replayed": "State._replayed(game, history, players, options, seed): the state a history reaches",
    "_from_dict": "State._from_dict(game, data): a saved state read back",
    "_history": "state._history: its record (a Log; None after a playout)",
    "_work": "state._work: the work done so far by the current call, against WORK_BUDGET",
    "_values": "action._values: an action's actor and parameter values, as the rules hold them",
}

#: Every other crossing: (module using it, name) -> why.  Only ever take entries out.
ALLOWED: dict[tuple[str, str], str] = {
    # the helpers of the engine's generated code (runtime/contract.py); they go with compiler/
    ("compiler/program.py", "_chances"): "runtime/contract.py: the chance draws a helper counts",
    ("compiler/program.py", "_dmemo"): "runtime/contract.py: the defines' memo a helper forgets",
    ("compiler/program.py", "_draw"): "runtime/contract.py: a helper draws cards through the state",
    ("compiler/program.py", "_move"): "runtime/contract.py: a helper moves cards through the state",
    ("compiler/program.py", "_randbelow"): "runtime/contract.py: a helper rolls with the state's generator",
    ("compiler/program.py", "_same_card"): "runtime/contract.py: identical cards, for a helper's draw",
    ("compiler/program.py", "_zget"): "runtime/contract.py: a zone's cards, for a helper",
    # the kernel's bridge to the engine's State; it goes when State is one class (issue 32)
    ("kernel/apistate.py", "_ks"): "a State deciding on the kernel keeps its kernel position in this slot",
    ("kernel/apistate.py", "_to"): "a draw's chance outcome names the zone it goes to (Action.to), as the engine's do",
    ("kernel/__init__.py", "_kernel_origin"): "a determinized State says how to build its kernel position",
}


def _unit(path: Path) -> str:
    """The package a module belongs to: its package, or a top-level module itself."""
    rel = path.relative_to(SRC)
    if len(rel.parts) > 1:
        return rel.parts[0]
    return "fishrules" if rel.stem == "__init__" else rel.stem


def _module(path: Path) -> str:
    parts = ["fishrules", *path.relative_to(SRC).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _unit_of_module(dotted: str) -> str:
    """The package of a module named `fishrules.…`: `fishrules.kernel.lower` -> kernel."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "fishrules"


def _is_module(dotted: str) -> bool:
    rel = "/".join(dotted.split(".")[1:])
    return bool(rel) and ((SRC / rel).is_dir() or (SRC / f"{rel}.py").exists())


def _imported(path: Path, node: ast.ImportFrom) -> str:
    """The dotted module an ImportFrom names."""
    if not node.level:
        return node.module or ""
    base = _module(path).split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _definitions(trees: dict) -> dict[str, set[str]]:
    """Private name -> the packages that define it."""
    out: dict[str, set[str]] = defaultdict(set)

    def names_of_target(t):
        if isinstance(t, ast.Name):
            yield t.id
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                yield from names_of_target(e)

    for path, tree in trees.items():
        unit = _unit(path)
        scopes = [tree.body] + [c.body for c in ast.walk(tree) if isinstance(c, ast.ClassDef)]
        for body in scopes:
            for node in body:
                found: list[str] = []
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    found = [node.name]
                elif isinstance(node, ast.Assign):
                    found = [n for t in node.targets for n in names_of_target(t)]
                    if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
                        found += [c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant)
                                  and isinstance(c.value, str)]
                elif isinstance(node, ast.AnnAssign):
                    found = list(names_of_target(node.target))
                for n in found:
                    if _private(n):
                        out[n].add(unit)
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.args:
                me = fn.args.args[0].arg
                if me not in ("self", "cls"):
                    continue
                for node in ast.walk(fn):
                    if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                            and isinstance(node.value, ast.Name) and node.value.id == me and _private(node.attr)):
                        out[node.attr].add(unit)
    return out


@functools.lru_cache(maxsize=None)
def crossings() -> list[tuple[str, str, str, int]]:
    """(module using it, the package it belongs to, name, line) for every crossing."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8"), str(p)) for p in sorted(SRC.rglob("*.py"))}
    defined = _definitions(trees)
    out = []
    for path, tree in trees.items():
        unit = _unit(path)
        rel = str(path.relative_to(SRC))
        ours: dict[str, str] = {}  # a name bound to a module of the package -> its package
        theirs: set[str] = set()  # a name bound to anything imported from outside the package
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    bound = a.asname or a.name.split(".")[0]
                    if a.name.startswith("fishrules"):  # `import fishrules.x as y` binds y to x
                        ours[bound] = _unit_of_module(a.name if a.asname else "fishrules")
                    else:
                        theirs.add(bound)
            elif isinstance(node, ast.ImportFrom):
                module = _imported(path, node)
                for a in node.names:
                    bound = a.asname or a.name
                    if not module.startswith("fishrules"):
                        theirs.add(bound)
                        continue
                    full = f"{module}.{a.name}"
                    owner = _unit_of_module(full if _is_module(full) else module)
                    if _private(a.name) and owner != unit:
                        out.append((rel, owner, a.name, node.lineno))
                    if _is_module(full):
                        ours[bound] = owner
        for node in ast.walk(tree):  # `x = Lark.__new__(Lark)`: x is another library's too
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                root = node.value
                while isinstance(root, (ast.Attribute, ast.Call, ast.Subscript)):
                    root = root.func if isinstance(root, ast.Call) else root.value
                if isinstance(root, ast.Name) and root.id in theirs:
                    theirs.add(node.targets[0].id)
        for node in ast.walk(tree):
            name = None
            if isinstance(node, ast.Attribute) and _private(node.attr):
                name, receiver = node.attr, node.value
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(node.args) >= 2
                  and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
                  and _private(node.args[1].value)):
                name, receiver = node.args[1].value, node.args[0]
            if name is None:
                continue
            root = receiver
            while isinstance(root, (ast.Attribute, ast.Call, ast.Subscript)):
                root = root.func if isinstance(root, ast.Call) else root.value
            if isinstance(receiver, ast.Name) and receiver.id in ours:
                if ours[receiver.id] != unit:
                    out.append((rel, ours[receiver.id], name, node.lineno))
                continue
            if isinstance(root, ast.Name) and root.id in theirs:
                continue  # another library's own name
            owners = defined.get(name, set())
            if owners and unit not in owners:
                out.append((rel, "/".join(sorted(owners)), name, node.lineno))
    return sorted(out)


def test_no_package_reaches_into_another_s_private_names():
    api = set(GAME_API) | set(STATE_API)
    found = crossings()
    new = [f"{mod}:{line} uses {owner}'s {name}" for mod, owner, name, line in found
           if name not in api and (mod, name) not in ALLOWED]
    assert not new, ("a package uses another's private names (give it a public name, or move it to the "
                     "package that uses it):\n  " + "\n  ".join(new))


def test_every_allowed_crossing_still_happens():
    # so that the list stays true: a crossing that is gone comes off it
    happening = {(mod, name) for mod, _, name, _ in crossings()}
    gone = sorted(k for k in ALLOWED if k not in happening)
    assert not gone, f"these crossings no longer happen; take them out of ALLOWED: {gone}"


def test_the_internal_api_is_used_and_documented():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page[page.index("## What Game and State give the rest"):]
    section = section[: section.find("\n## ", 3)] if "\n## " in section[3:] else section
    documented = set(re.findall(r"`(?:game|state|action|State|Game)\.(_\w+)", section))
    assert documented == set(GAME_API) | set(STATE_API), (
        "docs/architecture.md's section and this test name different internal APIs: "
        f"{sorted(documented ^ (set(GAME_API) | set(STATE_API)))}")
    used = {name for _, _, name, _ in crossings()}
    unused = sorted((set(GAME_API) | set(STATE_API)) - used)
    assert not unused, f"no other package uses {unused}: make it private to its package again"


#: The modules of kernel/ that still import the engine's compiler (which is to retire: issue 32),
#: and why.  Only ever take entries out.
KERNEL_USES_COMPILER: dict[str, str] = {}


def test_the_kernel_needs_nothing_of_the_engine_s_compiler():
    # the lowering takes what the rules mean from fishrules.analysis, so the kernel goes on working
    # when compiler/ goes; an import inside a function counts
    found = set()
    for path in sorted((SRC / "kernel").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and _imported(path, node).startswith("fishrules.compiler"):
                found.add(str(path.relative_to(SRC)))
    assert found <= set(KERNEL_USES_COMPILER), f"kernel modules importing compiler/: {sorted(found - set(KERNEL_USES_COMPILER))}"
    gone = sorted(set(KERNEL_USES_COMPILER) - found)
    assert not gone, f"these no longer import compiler/; take them out of KERNEL_USES_COMPILER: {gone}"
