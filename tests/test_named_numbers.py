"""The numbers a table changes are named in every bundled ruleset (issue 23, group 2): a house rule
changes one in one line (`replace define hand_size: 5`), and naming them changed no game.

A named number (`define NAME: NUMBER`) is the number itself where it is used: the program is the
one the literal gave, and no view shows it (so the golden records of tests/golden still hold)."""

from __future__ import annotations

import pytest

import fishrules

#: ruleset -> the named numbers it must have (what groups most often change), with their values.
NAMED = {
    "fatfish": {"hand_size": 4, "stack_size": 12, "most_cards_a_turn": 4, "row_length": 5,
                "reserve_per_player": 3, "fiasco_penalty": 5},
    "fishfry": {"rolls_a_turn": 3, "most_fish_a_turn": 2, "most_bodies_a_fish": 3, "fish_points": 10},
    "fisherman": {"deals_each": 1, "gold_shield": 5, "silver_shield": 3, "bronze_shield": 1},
    "fishfish": {"tiles_each": 4, "most_tiles_a_bet": 4, "lines_a_round": 5, "points_a_captured_tile": 4},
    "fisheatfish": {"fish_placed_each": 5},
}
#: ruleset -> the options that are its numbers (rounds, target scores).
OPTIONS = {"fishfry-total-points": {"rounds": 5}, "fishfry-keeper": {"rounds": 7, "fish_limit": 3},
           "fishfry-first-to": {"target": 200}}


def defines_of(name: str) -> dict:
    from fishrules import nodes as n
    from fishrules.variants import resolve_file, find_ruleset

    out = {}
    for it in resolve_file(find_ruleset(name)).items:
        if isinstance(it, n.Define) and isinstance(it.expr, n.Number):
            out[it.name] = it.expr.value
    return out


@pytest.mark.parametrize("name", sorted(NAMED))
def test_each_ruleset_names_its_numbers_with_a_rulebook_comment(name):
    found = defines_of(name)
    for number, value in NAMED[name].items():
        assert found.get(number) == value, (name, number)
    text = (fishrules.variants.find_ruleset(name)).read_text(encoding="utf-8").splitlines()
    for number in NAMED[name]:
        at = next(i for i, line in enumerate(text) if line.startswith(f"define {number}:"))
        comment = []  # the comment above it, or above the group of named numbers it belongs to
        for line in reversed(text[:at]):
            if not line.startswith(("#", "define ")):
                break
            comment.append(line)
        assert any(c.startswith("#") and '"' in c for c in comment), f"{name}: `define {number}` has no rulebook quote above it"


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_rounds_and_targets_are_options(name):
    game = fishrules.load(name)
    for option, default in OPTIONS[name].items():
        assert game.options[option].default == default


def test_a_named_number_is_the_number_itself():
    literal = fishrules.loads('game "G"\nplayers 2 to 2\neach player has n: number\nphase game:\n'
                              '  repeat 3 times:\n    for each player:\n      add 2 to player\'s n\n'
                              'score "n": your n\n')
    named = fishrules.loads('game "G"\nplayers 2 to 2\ndefine times: 3\ndefine step: -2\neach player has n: number\n'
                            'phase game:\n  repeat times times:\n    for each player:\n      subtract step from player\'s n\n'
                            'score "n": your n\n')
    a, b = literal.start(players=2, seed=1), named.start(players=2, seed=1)
    assert a.scores() == b.scores() == [6, 6]
    assert "times" not in b.view(0)["derived"] and "step" not in b.view(0)["derived"]
    assert b.view(0)["derived"] == a.view(0)["derived"]


def one_line(base: str, line: str) -> fishrules.Game:
    return fishrules.loads(f'extends "{base}"\ngame "House"\n{line}\n')


def test_five_cards_in_hand_is_one_line():
    game = one_line("fatfish", "replace define hand_size: 5")
    state = game.start(players=3, seed=2)
    assert len(state.view(0)["seats"][0]["hand"]) == 5
    assert all(len(row["hand"]) == 5 for row in state.view(None)["seats"])
    original = fishrules.load("fatfish").start(players=3, seed=2)
    assert len(original.view(0)["seats"][0]["hand"]) == 4


def test_more_numbers_change_in_one_line():
    state = one_line("fatfish", "replace define stack_size: 10").start(players=2, seed=1)
    seat = state.view(None)["seats"][0]
    assert len(seat["stack"]) + len(seat["hand"]) == 10
    state = one_line("fishfish", "replace define tiles_each: 2").start(players=3, seed=1)
    assert [r["tiles"] for r in state.view(None)["seats"]] == [0, 2, 2]
    fisherman = one_line("fisherman", "replace define deals_each: 2")
    from fishrules.simulation import simulate

    assert simulate(fisherman, games=2, players=3)["length"]["mean_decisions"] > \
        simulate("fisherman", games=2, players=3)["length"]["mean_decisions"] * 1.9
