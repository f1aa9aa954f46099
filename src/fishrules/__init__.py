"""fishrules: a rules engine for small tabletop games written as readable .fish rule files.

    import fishrules
    game = fishrules.load("rules/my-game.fish")  # or a bundled ruleset by name
    state = game.start(players=3, seed=7)
    while not state.is_over:
        state.apply(state.legal_actions()[0])
    print(state.scores(), state.winners())

The pipeline is parse (`parser`) -> resolve overlays (`variants`) -> check (`checker`) ->
compile (`compiler`) -> run (`runtime`); `api` strings them together.
"""

from .api import Game, OptionInfo, bundled, load, loads
from .errors import Diagnostic, FishrulesError, IllegalAction, OptionError, RuleError, StateError
from .runtime import CHANCE, SIMULTANEOUS, Action, State

__all__ = [
    "load",
    "loads",
    "bundled",
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
