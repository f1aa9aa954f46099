"""Every ruleset as a game of a learning framework, with nothing written per game.

- `fishrules.adapters.openspiel`: `make_game(ruleset, players=…)` is a `pyspiel.Game`, and
  `register()` makes `pyspiel.load_game("fishrules_NAME", {"players": 3})` work for the bundled
  rulesets (extra `fishrules[openspiel]`).
- `fishrules.adapters.pettingzoo`: `env(ruleset, players=…)` is a PettingZoo AEC environment, and
  `parallel_env(…)` a Parallel one (extra `fishrules[pettingzoo]`).

Both number actions with `Game.action_space` and observe with `State.observation`, so a player
sees what `State.view(player)` shows and nothing more.  The facts they share about a ruleset
(does it have chance, hidden information, simultaneous choices) are worked out here.
"""

from __future__ import annotations

from typing import Any

from .. import model as m
from ..walk import find_all

__all__ = ["facts"]


def facts(game: Any) -> dict[str, bool]:
    """What kind of game a ruleset is, from its declarations: `chance` (dice, shuffles),
    `simultaneous` (some `each of … secretly chooses`), `hidden` (anything a player may not see:
    a value or zone not public, a secret parameter, a secret choice)."""
    model: m.Model = game.model
    found = {"chance": model.dice is not None, "simultaneous": False, "hidden": False}
    decls = (*model.phases.values(), *model.actions.values())
    for s in find_all(decls, (m.RollDice, m.ShuffleZone, m.ChooseTogether), stop_at=m.Expr):
        if isinstance(s, m.ChooseTogether):
            found["simultaneous"] = found["hidden"] = True
        else:
            found["chance"] = True
    for a in model.actions.values():
        if any(p.secret for p in a.params):
            found["hidden"] = True
    for v in model.game_vars + model.player_vars:
        if v.visibility not in ("public", "internal"):
            found["hidden"] = True
    return found
