"""fishrules: a rules engine for small tabletop games written as readable .fish rule files.

    import fishrules
    game = fishrules.load("rules/my-game.fish")  # or a bundled ruleset by name
    state = game.start(players=3, seed=7)
    while not state.is_over:
        state.apply(state.legal_actions()[0])
    print(state.scores(), state.winners())

The pipeline is parse (`syntax`) -> resolve overlays (`variants`) -> check (`checker`) ->
compile (`compiler`) -> run (`runtime`); `api` strings them together.  Importing the package
imports only the errors: the pipeline is imported when a name of it is first used, so a program
that only catches `fishrules.RuleError` pays nothing for it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import Diagnostic, FishrulesError, IllegalAction, OptionError, RuleError, StateError

if TYPE_CHECKING:  # for type checkers and editors; at run time these come from __getattr__
    from .api import Game, OptionInfo, bundled, load, loads
    from .comparison import compare_rulesets as compare
    from .runtime import CHANCE, SIMULTANEOUS, Action, State
    from .simulation import simulate

__all__ = [
    "load",
    "loads",
    "bundled",
    "simulate",
    "compare",
    "Game",
    "State",
    "Action",
    "OptionInfo",
    "CHANCE",
    "SIMULTANEOUS",
    "RuleError",
    "IllegalAction",
    "OptionError",
    "StateError",
    "FishrulesError",
    "Diagnostic",
]

__version__ = "0.1.0"

#: public name -> the module that defines it, imported on first use
_LAZY = {
    "load": "api",
    "loads": "api",
    "bundled": "api",
    "Game": "api",
    "OptionInfo": "api",
    "State": "runtime",
    "Action": "runtime",
    "CHANCE": "runtime",
    "SIMULTANEOUS": "runtime",
    "simulate": "simulation",
    "compare": "comparison:compare_rulesets",
}


def __getattr__(name: str) -> Any:
    spec = _LAZY.get(name)
    if spec is None:
        raise AttributeError(f"module 'fishrules' has no attribute {name!r}")
    module, _, attr = spec.partition(":")
    value = getattr(importlib.import_module(f".{module}", __name__), attr or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
