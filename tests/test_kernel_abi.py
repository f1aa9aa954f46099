"""The kernel's ABI is defined once (fishrules/kernel/abi.py), and nothing binds it by hand.

- The C headers define none of it: no `#define` of a header slot, a fault code, a limit or the
  generator's constants, no header slot or fault code written as a number; every such name the C
  uses, in the headers and in the C of every bundled ruleset, is defined by the prelude that
  `abi.c_prelude()` writes at the top of the program, with abi's value.
- The kernel's Python defines none of it either (no module but abi.py assigns an `H_`, `CUR_` or
  `FAULT_` name; no fault raised by its number), and splitmix64's constants are written once, in
  fishrules/splitmix.py, which the engine's states and the kernel both draw from.
- The generators agree: splitmix64, the rejection that draws below a bound, and the seed of a
  playout's choices give the same numbers in Python and in the C the kernel is compiled from, for
  thousands of draws (a tiny C program built from the prelude and kernel.h).
"""

from __future__ import annotations

import ast
import re
import subprocess
from importlib import resources
from pathlib import Path

import pytest

import fishrules
from fishrules.kernel import abi
from fishrules.kernel.emit_c import emit_c
from fishrules.kernel.lower import lower
from fishrules.kernel.native import NativeError, compiler
from fishrules.splitmix import M64, below, mix

from ._twins import engine_start

SRC = Path(__file__).resolve().parent.parent / "src" / "fishrules"
HEADERS = ("kernel.h", "kernel_state.h")
#: The names of the ABI's kinds: what C may only get from the prelude.
ABI_NAME = re.compile(r"\b(?:H|CUR|FAULT|F|MIX)_[A-Z_]+\b|\b(?:NIL|KERNEL_BUDGET|MAX_STACK|LIST_CAPACITY|LIST_CAP|"
                      r"MAX_NUMBER|MAX_LIST_LENGTH|MAX_CHOICES|MAX_DICE|DECISION_DRAW)\b")


def _header(name: str) -> str:
    return resources.files("fishrules.kernel").joinpath(name).read_text()


def _code(c: str) -> str:
    """C without its comments."""
    return re.sub(r"//[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", c, flags=re.S))


def _defines(c: str) -> dict[str, str]:
    return dict(re.findall(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]*(.*)$", _code(c), flags=re.M))


PRELUDE = _defines(abi.c_prelude())


def _c_value(text: str) -> int:
    """The value of one of the prelude's constants (a C integer constant, maybe bracketed, maybe
    `(-N - 1)`)."""
    text = re.sub(r"(?<=[0-9A-Fa-f])(?:ULL|LL|U)\b", "", text)
    assert re.fullmatch(r"[\s()0-9A-Fa-fx+-]+", text), text
    return eval(text, {"__builtins__": {}})  # only digits, brackets, + and -: checked above


def test_the_prelude_defines_the_abi_with_its_values():
    g = vars(abi)
    header = {n: v for n, v in g.items() if n.startswith("H_")}
    assert sorted(header.values()) == list(range(len(header)))  # one slot each, no gap
    assert max(header, key=header.__getitem__) == "H_MOVE"  # the move is last: the layout goes on from it
    faults = [n for n in g if n.startswith("FAULT_")]
    assert len({g[n] for n in faults}) == len(faults) and 0 not in {g[n] for n in faults}  # 0: no fault
    for name in [*header, *faults, *(n for n in g if n.startswith("CUR_")), "NIL", "KERNEL_BUDGET", "MAX_STACK",
                 "LIST_CAPACITY"]:
        assert _c_value(PRELUDE[name]) == g[name], name
    from fishrules import limits, splitmix

    for name in ("MAX_NUMBER", "MAX_LIST_LENGTH", "MAX_CHOICES", "MAX_DICE"):
        assert _c_value(PRELUDE[name]) == getattr(limits, name), name
    for c, py in (("MIX_GAMMA", splitmix.GAMMA), ("MIX_MUL1", splitmix.MUL1), ("MIX_MUL2", splitmix.MUL2)):
        assert _c_value(PRELUDE[c]) == py
    assert abi.decision_seed(12345) == mix(12345, _c_value(PRELUDE["DECISION_DRAW"])) >> 1


@pytest.mark.parametrize("name", HEADERS)
def test_the_headers_bind_nothing_by_hand(name):
    code = _code(_header(name))
    hand = [n for n in _defines(code) if ABI_NAME.fullmatch(n) or n in PRELUDE]
    assert not hand, f"{name} defines {hand}: they belong in fishrules/kernel/abi.py"
    assert not re.findall(r"\bS\[\s*\d+\s*\]", code), f"{name} reads a header slot by its number"
    assert not re.findall(r"k_fault\(\s*k\s*,\s*\d", code), f"{name} raises a fault by its number"
    for literal in ("9E3779B97F4A7C15", "BF58476D1CE4E5B9", "94D049BB133111EB"):
        assert literal not in code.upper(), f"{name} writes the generator's constant {literal}"
    used = set(ABI_NAME.findall(code))
    assert used and not used - set(PRELUDE), f"{name} uses {sorted(used - set(PRELUDE))}, which the prelude does not define"


def test_every_abi_name_the_generated_c_uses_is_the_preludes():
    prelude = abi.c_prelude()
    for ruleset in fishrules.bundled():
        g = fishrules.load(ruleset, backend="python")
        c = emit_c(lower(g.model))
        head = c.index("#define")
        assert c[head:].startswith(prelude.split("\n", 1)[1]), ruleset  # first of all, before kernel.h
        defined = _defines(c)
        used = set(ABI_NAME.findall(_code(c)))
        assert used - set(PRELUDE) == set(), (ruleset, sorted(used - set(PRELUDE)))
        for n in set(PRELUDE):
            assert defined[n] == PRELUDE[n], (ruleset, n)  # defined once: the prelude's value


def _module_assignments(tree: ast.Module) -> list[str]:
    out = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    out.append(n.id)
    return out


def test_the_kernels_python_binds_nothing_by_hand():
    for path in sorted((SRC / "kernel").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        if path.name != "abi.py":
            own = [n for n in _module_assignments(tree) if re.match(r"_?(H|CUR|FAULT)_[A-Z]", n)]
            assert not own, f"{path.name} defines {own}: they belong in abi.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "KFault" and node.args:
                assert not isinstance(node.args[0], ast.Constant), f"{path.name}:{node.lineno} raises a fault by its number"
    # splitmix64's constants: written once, in the module every stage draws from
    for path in sorted(SRC.rglob("*")):
        if path.suffix in (".py", ".h") and path.name != "splitmix.py":
            text = path.read_text(encoding="utf-8").upper()
            for literal in ("9E3779B97F4A7C15", "BF58476D1CE4E5B9", "94D049BB133111EB"):
                assert literal not in text, f"{path.relative_to(SRC)} writes the generator's constant {literal}"


def test_the_generator_is_splitmix64():
    """(Its published outputs for seed 0: every golden history hangs on these.)"""
    assert [mix(0, n) for n in range(4)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F,
                                              0xF88BB8A8724C81EC]


def test_the_engines_states_draw_from_the_same_generator():
    """(A seeded engine state draws exactly what `below` gives: one generator for both machines.)"""
    state = engine_start(fishrules.load("fishfry", backend="python"), 3, 2**64 + 77)
    draws = state.draws
    got = [state._randbelow(k) for k in (6, 52, 1, 7, 2**40 + 3)]
    want, n = [], draws
    for k in (6, 52, 1, 7, 2**40 + 3):
        r, n = below(state.seed, n, k)
        want.append(r)
    assert got == want and state.draws == n


SEEDS = [0, 1, 2, 42, 2**31, 2**32 + 5, 2**53 + 1, 2**63 - 1, 2**63, M64 - 1, M64, 0x0123456789ABCDEF,
         *(mix(7, i) for i in range(20))]
BOUNDS = [1, 2, 3, 6, 7, 52, 1000, 65536, 2**33 + 1, 2**62 + 3, 2**63 + 1, M64]


def _program() -> str:
    seeds = ", ".join(f"{s}ULL" for s in SEEDS)
    bounds = ", ".join(f"{b}ULL" for b in BOUNDS)
    return "\n".join([
        abi.c_prelude(),
        _header("kernel.h"),
        "#include <stdio.h>",
        f"static const U SEEDS[] = {{{seeds}}};",
        f"static const U BOUNDS[] = {{{bounds}}};",
        "int main(void) {",
        f"    for (int s = 0; s < {len(SEEDS)}; s++) {{",
        "        for (U n = 0; n < 100; n++) printf(\"%llu\\n\", (unsigned long long)k_mix(SEEDS[s], n));",
        "        printf(\"%lld\\n\", (long long)(I)(k_mix(SEEDS[s], DECISION_DRAW) >> 1));",
        "        I S[H_MOVE + 1] = {0};",
        "        S[H_SEED] = (I)SEEDS[s];",
        f"        for (int b = 0; b < {len(BOUNDS)}; b++)",
        "            for (int t = 0; t < 3; t++) {",
        "                I r = k_below(S, H_SEED, H_DRAWS, BOUNDS[b]);",
        "                printf(\"%lld %lld\\n\", (long long)r, (long long)S[H_DRAWS]);",
        "            }",
        "    }",
        "    return 0;",
        "}",
    ])


def _python() -> list[str]:
    out = []
    for seed in SEEDS:
        out += [str(mix(seed, n)) for n in range(100)]
        out.append(str(abi.decision_seed(seed)))
        draws = 0
        for k in BOUNDS:
            for _ in range(3):
                r, draws = below(seed, draws, k)
                out.append(f"{r if r < 1 << 63 else r - (1 << 64)} {draws}")
    return out


def test_the_c_and_python_generators_agree(tmp_path):
    try:
        cc, _ = compiler()
    except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
        pytest.skip("no C compiler here")
    src, exe = tmp_path / "mix.c", tmp_path / "mix"
    src.write_text(_program())
    subprocess.run(cc + ["-std=gnu11", "-w", "-O1", "-o", str(exe), str(src)], check=True, timeout=120,
                   capture_output=True)
    got = subprocess.run([str(exe)], check=True, timeout=60, capture_output=True, text=True).stdout.split("\n")[:-1]
    want = _python()
    assert len(got) == len(want) > 2500
    assert got == want
