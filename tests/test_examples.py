"""The examples folder: every script runs, every house rule checks, plays to the end and changes
what it says it changes."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import fishrules
from fishrules.random_play import play_random, random_step

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
HOUSE = EXAMPLES / "house-rules"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))
HOUSE_RULES = sorted(p.name for p in HOUSE.glob("*.fish"))
FISHRULES = Path(sys.executable).parent / "fishrules"


def run(*args: str, expect_rc: int = 0) -> str:
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == expect_rc, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


# ---- the scripts -----------------------------------------------------------------------------------

# Small arguments so that the scripts run in a few seconds together; every script must be here.
SCRIPT_RUNS = {
    "embed.py": [
        (["--players", "2", "--seed", "3"], [r"winners: \[\d", r"replay and JSON round trip: same state",
                                            r"chosen dice: \['HEAD', 'TAIL', 'BODY 20', 'BODY 20', 'PANFISH'\] worth 51 points"]),
    ],
    "view_bot.py": [
        (["--games", "60", "--players", "3"], [r"view-only bot\s+\d", r"random player\s+\d", r"playing Fish Fish"]),
        (["--games", "30", "--players", "4", "--rules", "examples/house-rules/fishfish-three-catch.fish"],
         [r"playing Fish Fish with three Catch cards: 30 games, 4 players", r"view-only bot\s+\d"]),
    ],
    "compare_variants.py": [
        (["--games", "150"], [r"fishfry-six-dice", *(rf"seat {p} wins" for p in range(3)), r"length\s+\d"]),
        (["fishfry-keeper", "fishfry-keeper", "--option-b", "rounds=3", "--games", "40", "--players", "2"],
         [r"B = fishfry-keeper rounds=3", r"seat 1 score"]),
    ],
    "openspiel_mcts.py": [
        (["--games", "2", "--simulations", "10"], [r"fishrules_fishfry_six_dice_\w+\(players=2\): 64 actions",
                                                  r"MCTS \(10 simulations\) vs random: [\d.]+ wins of 2"]),
    ],
    "pettingzoo_random.py": [
        (["fisheatfish", "--players", "3", "--games", "1"], [r"game 0: \d+ decisions, winners \['player_\d'",
                                                             r"observation: 696 floats, actions: 16965"]),
    ],
}
#: Scripts that need an optional framework (an extra): skipped, saying so, where it is missing.
REQUIRES = {"openspiel_mcts.py": "pyspiel", "pettingzoo_random.py": "pettingzoo"}


def test_every_script_has_a_run():
    assert SCRIPTS, "no examples/*.py found"
    assert sorted(SCRIPT_RUNS) == SCRIPTS


@pytest.mark.parametrize(
    "script,args,patterns",
    [pytest.param(s, a, p, id=f"{s} {' '.join(a)}") for s, runs in SCRIPT_RUNS.items() for a, p in runs],
)
def test_script_runs(script, args, patterns):
    if script in REQUIRES:
        pytest.importorskip(REQUIRES[script], reason=f"{script} needs {REQUIRES[script]} (its fishrules extra)")
    out = run(str(EXAMPLES / script), *args)
    for pattern in patterns:
        assert re.search(pattern, out), f"{pattern!r} not in the output of {script}:\n{out}"


def win_rates(out: str) -> dict:
    return {m[1]: float(m[2]) for m in re.finditer(r"^(view-only bot|random player|fair share)\s+([\d.]+)%", out, re.M)}


def test_view_bot_beats_random_play():
    rates = win_rates(run(str(EXAMPLES / "view_bot.py"), "--games", "90", "--players", "3"))
    assert rates.keys() == {"view-only bot", "random player", "fair share"}
    assert rates["view-only bot"] > rates["random player"] + 10
    assert rates["view-only bot"] > rates["fair share"]


def test_view_bot_says_which_game_it_plays():
    out = run(str(EXAMPLES / "view_bot.py"), "--rules", "fatfish", "--games", "1", expect_rc=2)
    assert "this bot plays Fish Fish, not Fat Fish" in out


def test_view_bot_reads_only_its_view():
    """The bot's functions are given a view dict, never a state: it cannot reach the history."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        import view_bot
    finally:
        sys.path.remove(str(EXAMPLES))
    game = fishrules.load("fishfish")
    state = game.start(players=3, seed=4)
    rng = random.Random(4)
    while not state.is_over:
        me = state.current
        view = state.view(me)
        choice = view_bot.bot_action(view, me)
        assert choice in {str(a) for a in state.legal_actions()}
        # What the bot decides depends on nothing but the view: the same view gives the same choice.
        assert view_bot.bot_action(state.clone().view(me), me) == choice
        state.apply(choice if rng.random() < 0.5 else rng.choice(state.legal_actions()))
    source = (EXAMPLES / "view_bot.py").read_text(encoding="utf-8")
    assert "state.history" not in source.replace("never `state.history`", "")
    assert "._" not in source  # no private attribute of the engine


def test_compare_variants_shows_the_six_dice_score_more():
    out = run(str(EXAMPLES / "compare_variants.py"), "--games", "300", "--players", "2")
    means = [(float(a), float(b)) for a, b in re.findall(r"seat \d score\s+([\d.]+) ± [\d.]+\s+([\d.]+) ±", out)]
    assert len(means) == 2
    assert all(b > a for a, b in means), out


def test_compare_variants_refuses_an_unknown_option():
    out = run(str(EXAMPLES / "compare_variants.py"), "--option-a", "nope=1", "--games", "1", expect_rc=1)
    assert "has no option 'nope'" in out


# ---- the house rules: each checks and plays -----------------------------------------------------------


def test_there_are_house_rules_for_several_games():
    assert len(HOUSE_RULES) >= 3
    bases = {re.match(r'extends "([^"]+)"', next(line for line in (HOUSE / f).read_text().splitlines()
                                                if line.startswith("extends")))[1] for f in HOUSE_RULES}
    games = {fishrules.load(b).title.split(":")[0] for b in bases}
    assert len(games) >= 2, games


@pytest.mark.parametrize("name", HOUSE_RULES)
def test_house_rule_says_what_and_why(name):
    text = (HOUSE / name).read_text(encoding="utf-8")
    assert text.startswith("# A house rule:"), "the first line says what the house rule changes"
    assert re.search(r"^extends \"", text, re.M)
    assert "Why" in text or "why" in text or "so that" in text


def test_fishrules_check_passes_on_every_house_rule():
    proc = subprocess.run([str(FISHRULES), "check", *(str(HOUSE / f) for f in HOUSE_RULES)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for f in HOUSE_RULES:
        assert re.search(rf"{re.escape(f)}: ok", proc.stdout), proc.stdout


@pytest.mark.parametrize("name", HOUSE_RULES)
def test_house_rule_plays_to_the_end(name):
    game = fishrules.load(HOUSE / name)
    assert not game.warnings
    for players in (game.min_players, game.min_players + 1):
        for seed in range(4):
            state = play_random(game.start(players=players, seed=seed), random.Random(seed), max_actions=20_000)
            assert state.is_over and state.winners()
            assert game.replay(state.history, players=players) == state


# ---- the house rules: each changes what it says ---------------------------------------------------


def load_house(name: str) -> fishrules.Game:
    return fishrules.load(HOUSE / name)


def roll_dice(state: fishrules.State, faces: list[str]) -> None:
    for face in faces:
        state.apply(next(a for a, _ in state.chance_outcomes() if str(a).endswith(" rolls " + face)))


def diff_six_dice():
    base, house = fishrules.load("fishfry"), load_house("fishfry-six-dice.fish")
    assert len(base.start(players=2, seed=1).view(0)["dice"]) == 5
    assert len(house.start(players=2, seed=1).view(0)["dice"]) == 6
    # Five PANFISH were a FISHFRY; with six dice, the sixth must be a PANFISH too.
    b = base.start(players=2, chance="manual")
    roll_dice(b, ["PANFISH"] * 5)
    assert b.view(0)["derived"]["fishfry_rolled"] is True
    h = house.start(players=2, chance="manual")
    roll_dice(h, ["PANFISH"] * 5 + ["HEAD"])
    assert h.view(0)["derived"]["fishfry_rolled"] is False
    h.apply("reroll 6")
    roll_dice(h, ["PANFISH"])
    assert h.is_over and h.winners() == [0]


def diff_quick_keeper():
    base, house = fishrules.load("fishfry-keeper"), load_house("fishfry-quick-keeper.fish")
    options = house.start(players=2, seed=1).view(0)["options"]
    assert (options["rounds"], options["fish_limit"]) == (4, 2)
    faces = ["HEAD", "TAIL", "BODY 20", "PANFISH", "BODY 5"]
    points = []
    for game in (base, house):
        s = game.start(players=2, chance="manual")
        roll_dice(s, faces)
        points.append(s.view(0)["derived"]["keeper_fish_points"])
    assert points == [10 + 25 + 1, 15 + 25 + 1]
    # Nobody keeps more than two fish; the Keeper tournament's three are reached by random play.
    most = {}
    for game in (base, house):
        most[game.title] = 0
        for seed in range(40):
            s = game.start(players=2, seed=seed)
            rng = random.Random(seed)
            while not s.is_over:
                random_step(s, rng)
                most[game.title] = max(most[game.title], *(len(seat["catch"]) for seat in s.view(None)["seats"]))
    assert most == {base.title: 3, house.title: 2}


def diff_three_catch():
    base, house = fishrules.load("fishfish"), load_house("fishfish-three-catch.fish")
    for game, catches, cards in ((base, 2, 5), (house, 3, 6)):
        hand = game.start(players=3, seed=1).view(0)["values"]["fishing_hand"]  # seat 0 is the Fisherman
        assert Counter(hand) == {"Catch": catches, "Empty_handed": cards - catches}
    # Two players: seat 0 is the Fisherman, seat 1 the Fish, who bets one tile on each Catch line.
    fisherman_after = {}
    for game in (base, house):
        s = game.start(players=2, seed=1)
        seen = []
        for bait in ("bait-5", "bait-4", "bait-3"):
            if s.view(1)["values"]["fisherman"] != 0:
                break
            s.apply(f"set_line Catch {bait}")
            s.apply("bet 1")
            seen.append(s.view(1)["values"]["fisherman"])
        fisherman_after[game.title] = seen
    # The base round ends when the second Catch is revealed (the next Fisherman is seat 1); the
    # house rule's goes on to a third line and ends when the third Catch is revealed.
    assert fisherman_after == {base.title: [0, 1], house.title: [0, 0, 1]}


def catch_points(seat: dict, values: dict, size_worth: int) -> int:
    total = 0
    for label in seat["catch"]:
        suit, number = label.rsplit("-", 1)
        size = int(number) in (values["size_low"], values["size_low"] + 1)
        total += (suit == values["target"]) - (suit == values["not_target"])
        if size:
            total += -size_worth if suit == values["not_target"] else size_worth
    return total


def diff_big_size():
    # A probe overlay plays one tournament and keeps the catches on the table, to be counted.
    probe = '''extends "{}"
game "one tournament, catches kept"
replace phase game:
  set dealer to first(players)
  play tournament
replace phase tidy_up:
  nothing
'''
    differed = 0
    for ref, folder, worth in (("fisherman", ROOT / "rulesets", 1), ("fisherman-big-size", HOUSE, 2)):
        game = fishrules.loads(probe.format(ref), "probe.fish", base_dir=str(folder))
        for seed in range(6):
            s = play_random(game.start(players=3 + seed % 2, seed=seed), random.Random(seed))
            view = s.view(None)
            for seat in view["seats"]:
                assert seat["round_points"] == catch_points(seat, view["values"], worth)
                differed += catch_points(seat, view["values"], 1) != catch_points(seat, view["values"], 2)
    assert differed > 0


def wrong_lay(state: fishrules.State):
    me = state.current
    hand = state.view(me)["seats"][me]["hand"]
    legal = {str(a) for a in state.legal_actions() if a.breaks is None}  # keeping every rule
    return next((f"lay {r} {c}" for r in (1, 2, 3) for c in hand if f"lay {r} {c}" not in legal), None)


def diff_strict_table():
    base, house = fishrules.load("fatfish"), load_house("fatfish-strict-table.fish")
    assert base.start(players=2, seed=1).view(0)["options"]["fiasco"] == "penalty"
    assert house.start(players=2, seed=1).view(0)["options"]["fiasco"] == "refusal"
    outcomes = {}
    for game, options in ((base, {}), (house, {}), (house, {"fiasco": "penalty"})):
        s = game.start(players=2, seed=5, options=options)
        rng = random.Random(5)
        while wrong_lay(s) is None:
            random_step(s, rng)
        me, text = s.current, wrong_lay(s)
        try:
            s.apply(text)
            outcomes[game.title, tuple(options)] = ("accepted", s.view(None)["values"]["fiasco_holder"] == me)
        except fishrules.IllegalAction as e:
            outcomes[game.title, tuple(options)] = ("refused", "a matching colour" in str(e) or "one row a turn" in str(e))
    assert outcomes == {
        (base.title, ()): ("accepted", True),
        (house.title, ()): ("refused", True),
        (house.title, ("fiasco",)): ("accepted", True),
    }


DIFFERENCES = {
    "fishfry-six-dice.fish": diff_six_dice,
    "fishfry-quick-keeper.fish": diff_quick_keeper,
    "fishfish-three-catch.fish": diff_three_catch,
    "fisherman-big-size.fish": diff_big_size,
    "fatfish-strict-table.fish": diff_strict_table,
}


def test_every_house_rule_has_a_behavioural_test():
    assert sorted(DIFFERENCES) == HOUSE_RULES


@pytest.mark.parametrize("name", sorted(DIFFERENCES))
def test_house_rule_differs_from_its_base_game(name):
    DIFFERENCES[name]()
