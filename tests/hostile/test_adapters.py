"""The adapters as untrusted input (issue 25): PettingZoo's `step`, OpenSpiel's `apply_action` and
`apply_actions`, and observations of seats that do not exist.

Learning code sends numbers it computed, and a server may pass on numbers a client sent.  An action
that is not a whole number (`None` for an agent still playing, a float even if whole, a text, a
bool, an array), out of range, negative, or not legal now raises `IllegalAction`; an agent or a
seat that does not exist raises `OptionError` — or, through OpenSpiel's own State methods, the
`SpielError` (or, for a value that is not an integer, the `TypeError`) that OpenSpiel's bindings
raise before fishrules is reached.  Either way nothing changes: not the fishrules state, not
PettingZoo's rewards and agent selection, not OpenSpiel's history; a joint action is checked whole
before any of it is applied.  OpenSpiel's serialized states are tried in test_openspiel.py.
"""

from __future__ import annotations

import pytest

from . import scenarios as sc
from .contract import SLOW, readable, run

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (pip install 'fishrules[pettingzoo]')")
np = pytest.importorskip("numpy")

#: Actions no agent may send while it plays.
BAD_ACTIONS = {
    "None": None,
    "negative": -1,
    "numpy negative": np.int64(-7),
    "out of range": 10**9,
    "past 2**63": 2**64 + 3,
    "a float": 1.5,
    "a whole float": 2.0,
    "numpy float": np.float64(3.0),
    "nan": float("nan"),
    "a text": "3",
    "a bool": True,
    "numpy bool": np.bool_(True),
    "an array": np.array([1]),
    "a list": [1],
    "a dict": {"action": 1},
}


def assert_refused(out, name: str = "IllegalAction") -> dict:
    assert out.status == "ok", out  # the scenario itself ran: no crash, no hang, no blow-up
    raised = out.value["raised"]
    assert raised is not None, f"accepted: {out.value}"
    assert name in raised["mro"] and raised["module"].startswith("fishrules"), raised
    readable(raised["message"])
    return raised


# ---- PettingZoo ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["raw", "wrapped"])
@pytest.mark.parametrize("name", BAD_ACTIONS)
def test_pettingzoo_step_refuses_what_is_not_an_action(kind, name):
    out = run(sc.pz_step, "fishfry", 2, kind, BAD_ACTIONS[name], timeout=SLOW)
    assert_refused(out)
    assert out.value["unchanged"], "a refused step changed the environment"


@pytest.mark.parametrize("ruleset", ["fatfish", "fisheatfish"])
def test_pettingzoo_step_refuses_an_action_not_legal_now(ruleset):
    # every id of the action space, each either legal now or refused with nothing changed
    for action in (0, 1, 2, 7, 100, 1000):
        out = run(sc.pz_step, ruleset, 2, "raw", action, timeout=SLOW)
        assert out.status == "ok", out
        if out.value["raised"] is not None:
            assert_refused(out)
            assert out.value["unchanged"], (action, out.value)


#: Joint actions of the Parallel environment at a simultaneous choice: a dict with "__legal__" is
#: laid over a legal action of every agent the game waits for ("__drop__": leaving that one out).
BAD_JOINT = {
    "None": None,
    "a list": [1, 2],
    "nothing": {},
    "one agent left out": {"__legal__": True, "__drop__": "player_1"},
    "one not legal": {"__legal__": True, "player_1": 10**9},
    "one a float": {"__legal__": True, "player_1": 1.0},
    "one None": {"__legal__": True, "player_1": None},
    "an agent that is not there": {"__legal__": True, "player_7": 1},
    "a key that is not a name": {"__legal__": True, None: 1},
}


@pytest.mark.parametrize("name", BAD_JOINT)
def test_pettingzoo_parallel_step_checks_every_action_before_any(name):
    out = run(sc.pz_step, "fisheatfish", 2, "parallel", BAD_JOINT[name], 1, 0, True, timeout=SLOW)
    assert_refused(out, "OptionError" if name in ("an agent that is not there", "a key that is not a name") else "IllegalAction")
    assert out.value["unchanged"], "a refused joint step changed the game (some agents' actions applied)"


@pytest.mark.parametrize("kind", ["raw", "wrapped", "parallel"])
@pytest.mark.parametrize("method", ["observe", "action_space", "observation_space"])
@pytest.mark.parametrize("agent", ["player_2", "player_-1", "player_00", None, 0, "", "x" * 10_000])
def test_pettingzoo_agents_that_do_not_exist(kind, method, agent):
    if kind == "parallel" and method == "observe":
        pytest.skip("the Parallel environment has no observe")
    out = run(sc.pz_ask, "fishfry", 2, kind, method, agent, timeout=SLOW)
    raised = assert_refused(out, "OptionError")
    assert len(raised["message"]) < 300


# ---- OpenSpiel -----------------------------------------------------------------------------------------------

pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'fishrules[openspiel]')")


@pytest.mark.parametrize("action", [-1, -5, 10**9, 2**62, 31, 2**63 - 1, 1.5, "3", None])
def test_openspiel_apply_action_refuses_ids_not_legal(action):
    out = run(sc.os_apply, "fatfish", 2, "one", action, timeout=SLOW)
    assert out.status == "ok", out
    raised = out.value["raised"]
    assert raised is not None, out.value
    # fishrules' IllegalAction, or what OpenSpiel's binding raises before fishrules sees the value
    assert ("IllegalAction" in raised["mro"] or raised["type"] in ("SpielError", "TypeError")), raised
    assert "Traceback" not in raised["message"]
    assert out.value["unchanged"] and out.value["agrees"], out.value


#: Joint actions at a simultaneous move: "legal" is that player's first legal action.
JOINT = {
    "one action short": ["legal"],
    "one action too many": ["legal", "legal", 0],
    "the second not legal": ["legal", 10**9],
    "the first not legal": [16964 * 3, "legal"],
    "a negative": ["legal", -3],
}


@pytest.mark.parametrize("name", JOINT)
def test_openspiel_apply_actions_is_whole_or_nothing(name):
    out = run(sc.os_apply, "fisheatfish", 2, "joint", JOINT[name], timeout=SLOW)
    assert out.status == "ok", out
    raised = out.value["raised"]
    assert raised is not None and ("IllegalAction" in raised["mro"] or raised["type"] == "SpielError"), out.value
    assert out.value["unchanged"], "a refused joint move changed the fishrules state or OpenSpiel's history"
    assert out.value["agrees"]


@pytest.mark.parametrize("how", ["observation_string", "observation_tensor", "information_state_string",
                                 "information_state_tensor", "set_from", "string_from"])
@pytest.mark.parametrize("player", [2, 99, -1, -4])
def test_openspiel_observations_of_seats_that_do_not_exist(how, player):
    out = run(sc.os_observe, "fishfish", 2, how, player, timeout=SLOW)
    assert out.status == "ok", out
    raised = out.value["raised"]
    assert raised is not None, f"an observation of seat {player} of 2: {out.value}"
    assert "OptionError" in raised["mro"] or raised["type"] == "SpielError", raised


@pytest.mark.parametrize("player", [2, -1, "p0", 1.5, None])
def test_openspiel_observer_with_perfect_recall_of_seats_that_do_not_exist(player):
    for how in ("set_from", "string_from"):
        out = run(sc.os_observe, "fishfish", 2, how, player, True, timeout=SLOW)
        assert out.status == "ok", out
        if player is None:  # the spectator: what anybody may see
            continue
        assert_refused(out, "OptionError")
