"""The public API is a typed contract: every public function, method and property of what
`fishrules` exports is fully annotated (each parameter and the return), and mypy checks the API's
modules in `make test` (pyproject.toml, [tool.mypy])."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import fishrules

ROOT = Path(__file__).resolve().parent.parent


def public_callables():
    for name in fishrules.__all__:
        obj = getattr(fishrules, name)
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj) and not issubclass(obj, BaseException):
            # `State` is built in layers (fishrules.runtime): its members are those of its own
            # classes, the nearest one's where two define a name
            members: dict = {}
            for klass in reversed(obj.__mro__):
                if klass.__module__.startswith("fishrules"):
                    members.update(vars(klass))
            for attr, member in members.items():
                if attr.startswith("_") and attr not in ("__init__",):
                    continue
                if isinstance(member, property):
                    yield f"{name}.{attr}", member.fget
                elif isinstance(member, (staticmethod, classmethod)):
                    yield f"{name}.{attr}", member.__func__
                elif inspect.isfunction(member):
                    yield f"{name}.{attr}", member


CALLABLES = sorted(public_callables(), key=lambda x: x[0])


def test_there_is_a_public_surface_to_check():
    names = {n for n, _ in CALLABLES}
    assert {"load", "Game.start", "State.apply", "State.legal_actions", "State.view", "State.playout"} <= names


@pytest.mark.parametrize("name,fn", CALLABLES, ids=[n for n, _ in CALLABLES])
def test_public_callable_is_fully_annotated(name, fn):
    sig = inspect.signature(fn)
    missing = [p.name for p in sig.parameters.values()
               if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
    assert not missing, f"{name}: parameters without a type: {missing}"
    if fn.__name__ != "__init__":
        assert sig.return_annotation is not inspect.Signature.empty, f"{name}: no return type"


def test_the_package_says_it_is_typed():
    assert (ROOT / "src" / "fishrules" / "py.typed").is_file()
