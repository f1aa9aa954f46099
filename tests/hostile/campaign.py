"""A fuzz campaign that does not stop at the first failure: it sorts every failing input into a class
(the exception and where it was raised, or the contract broken) and keeps the smallest input of each.

    .venv/bin/python -m tests.hostile.campaign rules --examples 3000
    .venv/bin/python -m tests.hostile.campaign programs actions states --examples 2000 --out /tmp/findings

Targets: rules (mutated bundled rulesets), programs (random programs), actions (edited action texts),
states (edited saved states).  The classes are printed at the end, and written as JSON to --out.
One worker process runs the inputs, one at a time (see harness.py).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from . import harness
from . import mutations as mu
from . import scenarios as sc
from . import test_fuzz_actions as fa
from . import test_fuzz_rules as fr
from . import test_fuzz_states as fs
from .fuzzing import FUZZ_TIMEOUT

FRAME = re.compile(r'File "[^"]*/fishrules/(\w+\.py)", line (\d+), in (\w+)')


def classify(out, failure: AssertionError) -> str:
    if out.status in ("timeout", "memory", "crashed"):
        return out.status
    if out.status == "raised" and not out.is_a("RuleError") and not out.is_a("IllegalAction") \
            and not out.is_a("StateError"):
        frames = FRAME.findall(out.traceback)
        where = f"{frames[-1][0]}:{frames[-1][2]}" if frames else "?"
        if out.exc_type == "Violation":
            return "Violation: " + re.sub(r"'[^']*'|\d+|\[.*?\]", "…", out.message)[:90]
        return f"{out.exc_module}.{out.exc_type} at {where}"
    text = str(failure).split("\n")[0]
    return re.sub(r"'[^']*'|\d+", "…", text)[:110]


class Findings:
    def __init__(self) -> None:
        self.classes: dict[str, dict] = {}
        self.tried = 0
        self.failed = 0

    def add(self, target: str, key: str, example: dict, out) -> None:
        size = len(json.dumps(example, default=repr))
        cls = self.classes.setdefault(f"{target}: {key}", {"count": 0, "size": None, "example": None})
        cls["count"] += 1
        if cls["size"] is None or size < cls["size"]:
            cls.update(size=size, example=example, outcome=str(out)[:2500])

    def report(self) -> str:
        lines = [f"{self.tried} inputs, {self.failed} failing, {len(self.classes)} classes"]
        for key, cls in sorted(self.classes.items(), key=lambda kv: -kv[1]["count"]):
            lines.append(f"\n[{cls['count']:>5}] {key}\n        e.g. {json.dumps(cls['example'], default=repr)[:600]}")
        return "\n".join(lines)


def _explore(target: str, strategy, runner, checker, findings: Findings, examples: int, deadline: float) -> None:
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def explore(example):
        if time.monotonic() > deadline:
            return
        findings.tried += 1
        out = runner(example)
        try:
            checker(out)
        except AssertionError as failure:
            findings.failed += 1
            findings.add(target, classify(out, failure), example, out)

    explore()


def rules_target():
    strategy = st.fixed_dictionaries({"name": st.sampled_from(sorted(mu.BUNDLED)),
                                      "ops": st.lists(mu.mutation, min_size=1, max_size=3),
                                      "seed": st.integers(0, 3)})

    def runner(ex):
        text = mu.BUNDLED[ex["name"]]
        for op in ex["ops"]:
            text = mu.mutate(text, op)
        return harness.run(sc.exercise_mutant, text, ex["name"] + ".fish", ex["seed"], timeout=FUZZ_TIMEOUT)

    return strategy, runner, fr.check_outcome


def programs_target():
    strategy = st.fixed_dictionaries({"text": mu.programs(), "seed": st.integers(0, 3)})

    def runner(ex):
        return harness.run(sc.exercise_text, ex["text"], "random.fish", None, ex["seed"], 8, timeout=FUZZ_TIMEOUT)

    return strategy, runner, fr.check_outcome


def actions_target():
    strategy = st.fixed_dictionaries({
        "ruleset": st.sampled_from(sorted(mu.BUNDLED)), "seed": st.integers(0, 5), "steps": st.integers(0, 80),
        "pick": st.integers(0, 10**4), "ops": st.lists(mu.action_edit, min_size=1, max_size=3), "manual": st.booleans(),
        "simultaneous": st.booleans()})

    def runner(ex):
        return harness.run(fa.fuzz_edited, ex["ruleset"], ex["seed"], ex["steps"], ex["pick"], ex["ops"], ex["manual"],
                           ex["simultaneous"], timeout=FUZZ_TIMEOUT)

    return strategy, runner, fa.check


def states_target():
    strategy = st.fixed_dictionaries({
        "ruleset": st.sampled_from(sorted(mu.BUNDLED)), "where": st.sampled_from(fs.POSITIONS),
        "ops": st.lists(mu.json_edit, min_size=1, max_size=3)})

    def runner(ex):
        data = json.loads(fs.saved(ex["ruleset"], *ex["where"]))
        for op in ex["ops"]:
            data = mu.edit_json(data, op)
        seed, steps, chance = ex["where"]
        return harness.run(sc.restore, ex["ruleset"], seed, steps, mu.dumps(data), chance=chance, timeout=FUZZ_TIMEOUT)

    return strategy, runner, fs.check


TARGETS = {"rules": rules_target, "programs": programs_target, "actions": actions_target, "states": states_target}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("targets", nargs="+", choices=sorted(TARGETS))
    p.add_argument("--examples", type=int, default=2000, help="inputs per target")
    p.add_argument("--minutes", type=float, default=30, help="time per target")
    p.add_argument("--out", type=Path, help="write the classes as JSON here")
    args = p.parse_args(argv)
    findings = Findings()
    try:
        for name in args.targets:
            strategy, runner, checker = TARGETS[name]()
            started = time.monotonic()
            _explore(name, strategy, runner, checker, findings, args.examples, started + 60 * args.minutes)
            print(f"{name}: {time.monotonic() - started:.0f}s", file=sys.stderr)
    finally:
        harness.close()
    print(findings.report())
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "findings.json").write_text(json.dumps(findings.classes, indent=1, default=repr))
    return 0


if __name__ == "__main__":
    sys.exit(main())
