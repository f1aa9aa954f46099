"""A ruleset as a PettingZoo environment (`pip install 'fishrules[pettingzoo]'`).

    from fishrules.adapters import pettingzoo
    env = pettingzoo.env("rules.fish", players=3)           # an AEC environment
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

As PettingZoo's classic environments do: agents `player_0` … `player_{n-1}` (seats), a `Discrete`
action space numbered by `Game.action_space`, an observation dict with `observation` (the float32
vector of `State.observation(player)`: only what the player's view shows) and `action_mask`
(int8, the legal ids of the agent to act; zeros for the others), rewards only at the end (each
winner 1/len(winners), minus 1/players for everybody: zero-sum), no truncation.  Chance is resolved
by the state's generator, seeded by `reset(seed=…)`.  At a simultaneous choice the agents the
game waits for act one after the other, each choice kept secret until the last.
`render_mode="ansi"`: `render()` returns the view of the agent to act, as text.
`parallel_env(…)` steps every agent the game waits for at once (all of them at a simultaneous
choice, the one to act elsewhere); the others' actions are ignored.

Actions come from learning code, and maybe from farther: an action that is not a whole number (a
Python or NumPy integer; not `None` for an agent still playing, not a float, a text, a bool or an
array), that is outside the action space, or that is not legal now raises `IllegalAction`, and an
agent that is not one of the environment's (`observe`, `action_space`, a `step` of the Parallel
environment) raises `OptionError`; either way nothing changes, and the Parallel environment
checks every agent's action before it applies any.
"""

from __future__ import annotations

import json
import secrets
from typing import Any, Mapping, Optional

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("fishrules.adapters.pettingzoo needs PettingZoo, Gymnasium and numpy: "
                      "pip install 'fishrules[pettingzoo]'") from exc

import fishrules
from fishrules.api import Game
from fishrules.errors import FishrulesError, IllegalAction, OptionError
from fishrules.runtime import SIMULTANEOUS, State

__all__ = ["env", "raw_env", "parallel_env", "FishrulesEnv", "FishrulesParallelEnv"]


class _Core:
    """What the AEC and Parallel environments share: spaces, observations, rewards."""

    def __init__(self, ruleset: Any, players: Optional[int], options: Optional[Mapping[str, Any]],
                 variant: Optional[str], render_mode: Optional[str]):
        if render_mode not in (None, "ansi"):
            raise fishrules.OptionError(f"render_mode is None or 'ansi', not {render_mode!r}")
        rules = ruleset if isinstance(ruleset, Game) else fishrules.load(ruleset, variant=variant)
        self.rules = rules
        self.n = rules.min_players if players is None else players
        self.opts = rules._options(options)
        self.space = rules.action_space(self.n, self.opts)
        self.spec = rules.observation_spec(self.n, self.opts)
        self.names = [f"player_{i}" for i in range(self.n)]
        self.seat = {a: i for i, a in enumerate(self.names)}
        self.action_spaces = {a: spaces.Discrete(self.space.size) for a in self.names}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low=-np.inf, high=np.inf, shape=(self.spec.size,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.space.size,), dtype=np.int8),
            })
            for a in self.names
        }
        self.state: Optional[State] = None

    def start(self, seed: Optional[int]) -> State:
        self.state = self.rules.start(players=self.n, seed=secrets.randbits(63) if seed is None else seed,
                                      options=self.opts)
        return self.state

    def seat_of(self, agent: Any) -> int:
        """The seat of an agent's name; `OptionError` for a name that is not one of the agents."""
        try:
            return self.seat[agent]
        except (KeyError, TypeError):
            shown = repr(agent) if len(repr(agent)) <= 40 else repr(agent)[:37] + "…"
            raise OptionError(f"there is no agent {shown} in this environment (its agents are "
                              f"{self.names[0]} to {self.names[-1]})") from None

    def action_id(self, action: Any) -> int:
        """An action as the action space numbers it; `IllegalAction` for anything else."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            shown = repr(action) if len(repr(action)) <= 40 else repr(action)[:37] + "…"
            why = ("None is the action of an agent that is done" if action is None else
                   f"an action is a whole number from 0 to {self.space.size - 1}, not {type(action).__name__}")
            raise IllegalAction(shown, why)
        return int(action)

    def observe(self, seat: int) -> dict:
        s = self.state
        assert s is not None, "reset() the environment first"
        mask = np.zeros(self.space.size, np.int8)
        if seat in s.waiting:
            mask[s.legal_action_ids(seat if s.current == SIMULTANEOUS else None)] = 1
        return {"observation": np.asarray(s.observation(seat), np.float32),
                "action_mask": mask}

    def apply(self, seat: int, action: Any) -> None:
        s = self.state
        assert s is not None
        player = seat if s.current == SIMULTANEOUS else None
        s.apply(s.action_of_id(self.action_id(action), player))

    def apply_all(self, actions: Any) -> None:
        """The actions of every agent the game waits for (a dict by agent name): all checked
        before any is applied; a rule that goes wrong on the way leaves the state as it was."""
        s = self.state
        assert s is not None, "reset() the environment first"
        if not isinstance(actions, Mapping):
            raise IllegalAction(type(actions).__name__, "the actions are a dict of the agents' names and their actions")
        for agent in actions:
            self.seat_of(agent)
        together = s.current == SIMULTANEOUS
        chosen = []
        for seat in list(s.waiting):
            name = self.names[seat]
            if name not in actions:
                raise IllegalAction(f"no action for {name}", f"{name} must act now")
            chosen.append(s.action_of_id(self.action_id(actions[name]), seat if together else None))
        before = s.clone()
        try:
            for a in chosen:
                s.apply(a)
        except FishrulesError:
            self.state = before
            raise

    def final_rewards(self) -> list[float]:
        s = self.state
        assert s is not None
        won = s.winners()
        return [(1.0 / len(won) if p in won else 0.0) - 1.0 / self.n for p in range(self.n)]

    def render(self, seat: Optional[int]) -> str:
        s = self.state
        assert s is not None
        view = s.view(seat)
        lines = [f"{view['title']}: {'over' if view['over'] else 'phase ' + ' > '.join(view['phase'])}"
                 f" ({'spectator' if seat is None else f'p{seat}'}'s view)"]
        for key in ("values", "dice", "derived"):
            if view.get(key):
                lines.append(f"{key}: {json.dumps(view[key], sort_keys=True)}")
        for row in view["seats"]:
            lines.append(json.dumps(row, sort_keys=True))
        if view.get("legal_actions"):
            lines.append("choices: " + ", ".join(view["legal_actions"][:20]))
        return "\n".join(lines)


class FishrulesEnv(AECEnv):
    """A fishrules ruleset as a PettingZoo AEC environment (see the module's description)."""

    metadata = {"render_modes": ["ansi"], "name": "fishrules", "is_parallelizable": False}

    def __init__(self, ruleset: Any, players: Optional[int] = None, options: Optional[Mapping[str, Any]] = None,
                 render_mode: Optional[str] = None, variant: Optional[str] = None):
        super().__init__()
        self._core = _Core(ruleset, players, options, variant, render_mode)
        self.metadata = {**FishrulesEnv.metadata, "name": f"fishrules_{self._core.rules.name}"}
        self.render_mode = render_mode
        self.possible_agents = list(self._core.names)
        self.agents = list(self.possible_agents)
        self.action_spaces = self._core.action_spaces
        self.observation_spaces = self._core.observation_spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[self._core.names[self._core.seat_of(agent)]]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[self._core.names[self._core.seat_of(agent)]]

    @property
    def fishrules_state(self) -> State:
        """The fishrules state being played (never show it to a player: `view` is theirs)."""
        assert self._core.state is not None, "reset() the environment first"
        return self._core.state

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        self._core.start(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        s = self._core.state
        assert s is not None
        waiting = s.waiting
        if waiting:
            self.agent_selection = self._core.names[waiting[0]]
        elif s.is_over:
            for a, r in zip(self._core.names, self._core.final_rewards()):
                self.rewards[a] = r
                self.terminations[a] = True
            self._accumulate_rewards()
            self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict:
        return self._core.observe(self._core.seat_of(agent))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._core.apply(self._core.seat[agent], action)  # first: a refused action changes nothing
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._select()

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        seat = self._core.seat.get(self.agent_selection) if self.agents else None
        return self._core.render(seat)

    def close(self) -> None:
        pass


class FishrulesParallelEnv(ParallelEnv):
    """A fishrules ruleset as a PettingZoo Parallel environment: each step takes an action from
    every agent the game waits for (see the module's description)."""

    metadata = {"render_modes": ["ansi"], "name": "fishrules"}

    def __init__(self, ruleset: Any, players: Optional[int] = None, options: Optional[Mapping[str, Any]] = None,
                 render_mode: Optional[str] = None, variant: Optional[str] = None):
        self._core = _Core(ruleset, players, options, variant, render_mode)
        self.metadata = {**FishrulesParallelEnv.metadata, "name": f"fishrules_{self._core.rules.name}"}
        self.render_mode = render_mode
        self.possible_agents = list(self._core.names)
        self.agents = list(self.possible_agents)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._core.observation_spaces[self._core.names[self._core.seat_of(agent)]]

    def action_space(self, agent: str) -> spaces.Space:
        return self._core.action_spaces[self._core.names[self._core.seat_of(agent)]]

    def _observations(self) -> dict:
        return {a: self._core.observe(self._core.seat[a]) for a in self.agents}

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        self._core.start(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict) -> tuple[dict, dict, dict, dict, dict]:
        self._core.apply_all(actions)
        s = self._core.state
        assert s is not None
        obs = self._observations()
        over = s.is_over
        rewards = dict(zip(self._core.names, self._core.final_rewards())) if over else dict.fromkeys(self.agents, 0.0)
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, False)
        infos: dict[str, dict] = {a: {} for a in self.agents}
        if over:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def render(self) -> Optional[str]:
        if self.render_mode is None or self._core.state is None:
            return None
        return self._core.render(None)

    def close(self) -> None:
        pass


def raw_env(ruleset: Any, players: Optional[int] = None, options: Optional[Mapping[str, Any]] = None,
            render_mode: Optional[str] = None, variant: Optional[str] = None) -> FishrulesEnv:
    """The AEC environment without PettingZoo's wrappers."""
    return FishrulesEnv(ruleset, players, options, render_mode, variant)


def env(ruleset: Any, players: Optional[int] = None, options: Optional[Mapping[str, Any]] = None,
        render_mode: Optional[str] = None, variant: Optional[str] = None) -> Any:
    """An AEC environment for a ruleset (a bundled name, a path, or a `fishrules.Game`), wrapped as
    PettingZoo's classic environments are: methods must be called in order (`reset` first).  An
    action out of bounds is refused by the environment itself, with `IllegalAction` (not by
    PettingZoo's `AssertOutOfBoundsWrapper`, whose assertion `python -O` would take away)."""
    from pettingzoo.utils import wrappers

    e: Any = raw_env(ruleset, players, options, render_mode, variant)
    return wrappers.OrderEnforcingWrapper(e)


def parallel_env(ruleset: Any, players: Optional[int] = None, options: Optional[Mapping[str, Any]] = None,
                 render_mode: Optional[str] = None, variant: Optional[str] = None) -> FishrulesParallelEnv:
    """A Parallel environment for a ruleset (meant for rulesets with simultaneous choices; any
    ruleset works, one agent acting at a time elsewhere)."""
    return FishrulesParallelEnv(ruleset, players, options, render_mode, variant)
