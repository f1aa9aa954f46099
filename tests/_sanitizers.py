"""The native kernel under AddressSanitizer and UndefinedBehaviorSanitizer, for
tests/test_native_sanitizers_1.py and _2.py: every bundled ruleset and every hostile rule file that
loads (tests/hostile/corpus/rules, tests/games), built with `-fsanitize=address,undefined`, plays
random games, step by step and with chance given by hand, with no report.  The files are shared
between two test files, half each, so that the two halves (most of their time is gcc building
sanitized code: 2 s of CPU a bundled ruleset) run on two of the suite's processes at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fishrules

ROOT = Path(__file__).resolve().parent.parent

SANITIZED = """
    import json, sys
    from array import array
    from pathlib import Path
    import fishrules
    from fishrules.errors import FishrulesError
    from fishrules.kernel import abi as A
    from fishrules.kernel.lower import lower
    from fishrules.kernel.native import NativeBackend
    from fishrules.kernel.pyruntime import KFault
    played = drawn = 0
    for ref in sys.argv[1:]:
        try:
            g = fishrules.load(ref)
        except FishrulesError:
            continue
        be = NativeBackend(lower(g.model), sanitize=True)
        for n in sorted({g.min_players, g.max_players}):
            # the same 150 games as in one call; but where the first ten all fault (a loop that
            # runs to the work budget, a step that fails whatever the dice), the others would
            # only fault the same way, slowly under the sanitizers (moving-cards-for-ever's 150
            # games to the budget were 4 s of the 27 s of CPU of its half)
            out = be.simulate(n, g._options(None), list(range(10)), 2000)
            played += len(out[0]) // n
            if not all(out[4]):
                out = be.simulate(n, g._options(None), list(range(10, GAMES)), 2000)
                played += len(out[0]) // n
            # and step by step: every decision's moves listed, one played, the record's trace kept
            S = be.new(n, g._options(None), 7, limit=2000)
            be.trace_on()
            try:
                be.start(S, False)
                for _ in range(200):
                    if S[0] == -1:
                        break
                    if S[0] == -3:
                        lists = [be.moves(S, p) for p in be.who_together(S)]
                        if not all(lists):
                            break  # a player who must choose may do nothing: the engine says so
                        be.play_together(S, tuple(m[0] for m in lists))
                    else:
                        moves = be.moves(S, S[0])
                        if not moves:
                            break
                        # what an action's text is read against: each parameter's domain and the
                        # rule a move breaks, of legal moves and of moves no list holds (values out
                        # of every range, nothing, too many things)
                        odd = [moves[0][:2] + tuple((bad if isinstance(v, tuple) else num) for v in moves[0][2:])
                               for bad, num in (((-1, 1 << 40), 1 << 40), ((3,) * 40, -(1 << 62)), ((), None))]
                        for m in moves[:2] + odd:
                            name = be.kp.move_blocks[m[0]][0]
                            a = be.kp.action_names.index(name)
                            for i in range(len(m) - 1):
                                try:
                                    if i < len(m) - 2:
                                        be.domain(array("q", S), a, i, m)
                                    else:
                                        be.why(array("q", S), a, m)
                                except KFault:
                                    pass
                        be.play(S, moves[len(moves) // 2])
            except KFault:
                pass
            finally:
                be.trace_off()
            # chance left to the caller: the game waits at each die and each card drawn from a
            # shuffled zone; hostile faces and cards (of no zone, of another zone) are refused
            S = be.new(n, g._options(None), 7, limit=2000)
            S[A.H_MANUAL] = 1
            be.trace_on()
            try:
                be.start(S, False)
                for step in range(300):
                    if S[0] == A.CUR_OVER:
                        break
                    if S[0] == A.CUR_CHANCE:
                        for bad in (-1, 1 << 40, A.NIL, 10 ** 6, 2, be.kp.layout.ncards, *range(8)):
                            try:
                                be.play_chance(array("q", S), bad)
                            except KFault:
                                pass
                        if S[A.H_CHANCE] == A.CHANCE_DRAW:  # a card of the zone drawn from
                            at = be.kp.layout.zones[S[A.H_CHANCE_A]][0]
                            be.play_chance(S, S[at + 1 + step % S[at]])
                            drawn += 1
                        else:
                            be.play_chance(S, 0)
                    elif S[0] == A.CUR_SIMUL:
                        lists = [be.moves(S, p) for p in be.who_together(S)]
                        if not all(lists):
                            break
                        be.play_together(S, tuple(m[-1] for m in lists))
                    else:
                        moves = be.moves(S, S[0])
                        if not moves:
                            break
                        try:
                            be.play_chance(array("q", S), 0)  # no chance is waited for here
                        except KFault:
                            pass
                        be.play(S, moves[step % len(moves)])
            except KFault:
                pass
            finally:
                be.trace_off()
    print(json.dumps({"played": played, "drawn": drawn}))
"""


def _sanitizer_env() -> dict:
    libs = []
    for name in ("libasan.so", "libubsan.so"):
        try:
            path = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
        except OSError:
            return {}
        if not path or not os.path.isabs(path) or not os.path.exists(path):
            return {}
        libs.append(path)
    return {"LD_PRELOAD": ":".join(libs), "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}


def sanitized_files() -> list[str]:
    """Every bundled ruleset, and every hostile or test rule file (the ones that load are played)."""
    return (list(fishrules.bundled())
            + [str(p) for p in sorted((ROOT / "tests" / "hostile" / "corpus" / "rules").glob("*.fish"))
               if not p.name.startswith("billion")]
            + [str(p) for p in sorted((ROOT / "tests" / "games").glob("*.fish"))])


def play_sanitized(files: list[str], cache: Path) -> tuple[int, int]:
    """Play `files` built with the sanitizers in a process of their own: (games played, cards
    drawn by hand); a sanitizer's report or a crash fails the test."""
    env = _sanitizer_env()
    if not env or sys.platform != "linux":
        pytest.skip("gcc's AddressSanitizer and UndefinedBehaviorSanitizer runtimes are not installed here")
    code = textwrap.dedent(SANITIZED).replace("GAMES", "150")
    full = {**os.environ, **env, "FISHRULES_CACHE": str(cache), "PYTHONPATH": str(ROOT / "src")}
    p = subprocess.run([sys.executable, "-c", code, *files], env=full, capture_output=True, text=True, timeout=900)
    assert "ERROR: AddressSanitizer" not in p.stderr and "runtime error" not in p.stderr, p.stderr[-3000:]
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    return got["played"], got["drawn"]
