"""The presentation part of the language: `presentation:` blocks word a table, and change nothing of
the game.  Checked like any declaration (every name is one the rules have, with a hint); read by
`describe()`, `explain` and the language server; an overlay's words count over its base's."""

from __future__ import annotations

import pytest

import fishrules
from fishrules import RuleError
from fishrules.checker.presentation import words

BASE = '''game "Counting"
players 2 to 3
option rounds: number from 1 to 5 = 2, "how many rounds"
cards chip: colour in red, blue and size from 1 to 2
each player has round_points: number
each player has secret hand: zone of chip
the game has internal step: number
define lead: max(round_points of players)

phase game:
  repeat rounds times:
    for each player:
      player chooses count_up

action count_up(by: a number from 1 to 2):
  add by to your round_points

score "points": your round_points
'''


def load(extra: str, base: str = BASE) -> fishrules.Game:
    return fishrules.loads(base + extra, "t.fish", backend="python")


def test_names_read_as_words_where_the_rules_say_nothing():
    d = load("").describe()
    value = {v["name"]: v for v in d["values"]}
    assert value["round_points"]["label"] == "round points" and value["round_points"]["hidden"] is False
    assert d["actions"][0]["label"] == "count up" and d["actions"][0]["params"][0]["label"] == "by"
    assert d["actions"][0]["log"] is None
    assert d["options"] == [{"name": "rounds", "label": "rounds", "description": "how many rounds"}]
    assert d["attributes"] == {"colour": "colour", "size": "size"}
    assert d["derived"]["lead"] == {"label": "lead", "description": None, "hidden": False}
    assert d["scores"] == ["points"]
    assert words("shown_V") == "shown V" and words("left_the_game") == "left the game"


def test_a_presentation_block_words_every_kind_of_name():
    g = load('''
presentation:
  value round_points: "points this round", "what a player counted in this round"
  value lead: hidden
  value hand: "hand"
  action count_up: "count", "add one or two to your points"
  action count_up by: "how many"
  log count_up: "{player} counts {by}"
  option rounds: "rounds to play"
  attribute size: "size of the chip"
  phase game: "the game"
''')
    d = g.describe()
    value = {v["name"]: v for v in d["values"]}
    assert value["round_points"]["label"] == "points this round"
    assert value["round_points"]["description"] == "what a player counted in this round"
    assert d["derived"]["lead"]["hidden"] is True
    a = d["actions"][0]
    assert (a["label"], a["description"], a["log"]) == ("count", "add one or two to your points", "{player} counts {by}")
    assert a["params"][0]["label"] == "how many"
    assert d["options"][0]["label"] == "rounds to play"
    assert d["attributes"]["size"] == "size of the chip"
    assert d["phases"]["game"] == "the game"


def test_words_change_nothing_of_the_game():
    plain, worded = load(""), load('\npresentation:\n  value round_points: "points"\n  value lead: hidden\n')
    a, b = plain.start(players=2, seed=3), worded.start(players=2, seed=3)
    for _ in range(4):
        assert a.legal_actions() == b.legal_actions() or [x.text for x in a.legal_actions()] == [x.text for x in b.legal_actions()]
        a.apply("count_up 2")
        b.apply("count_up 2")
    assert a.view(0) == b.view(0) and a.scores() == b.scores() and a.history == b.history


@pytest.mark.parametrize("entry, message, hint", [
    ('value round_point: "x"', "there is no value `round_point`", "round_points"),
    ('action round_points: "x"', "`round_points` is a value, not an action", "value round_points"),
    ('option count_up: "x"', "`count_up` is an action, not an option", None),
    ('action count_up bye: "x"', "action `count_up` has no parameter `bye`", "by"),
    ('log count_up: "{player} counts {bye}"', "`{bye}` is neither `{player}` nor a parameter", "by"),
    ('log count_up: "{player counts"', "not one of a pair", None),
    ("phase game: hidden", "only a value can be hidden", None),
    ('value round_points: ""', "is empty", None),
    ('value round_points: "' + "x" * 61 + '"', "longer than 60 characters", None),
    ('value round_points: "x", "' + "y" * 401 + '"', "longer than 400 characters", None),
    ('attribute colur: "x"', "there is no attribute `colur`", "colour"),
    ("value round_points: out of rounds", "is not a value of the game's", None),
    ("action count_up: out of rounds", "only a value counts up to something", None),
    ("value step: out of rounds", "is not a number everybody sees", None),
    ("value tally: out of rounds", "is not a value of the game's", None),
    ('about: ""', "is empty", None),
    ('about: "' + "x" * 1001 + '"', "longer than 1000 characters", None),
])
def test_every_name_and_text_is_checked(entry, message, hint):
    with pytest.raises(RuleError) as e:
        load("\npresentation:\n  " + entry + "\n")
    d = e.value.errors[0]
    assert message in d.message and d.span is not None and d.span.line == BASE.count("\n") + 3
    if hint:
        assert hint in (d.hint or "")


def test_words_given_twice_and_words_of_an_internal_value_are_warnings():
    g = load('\npresentation:\n  value round_points: "a"\n  value round_points: "b"\n  value step: "step"\n')
    said = [w.message for w in g.warnings]
    assert any("given words twice" in m for m in said) and any("`step` is internal" in m for m in said)
    assert {v["name"]: v for v in g.describe()["values"]}["round_points"]["label"] == "b"


def test_an_overlay_words_over_its_base(tmp_path):
    (tmp_path / "base.fish").write_text(BASE + '\npresentation:\n  value round_points: "points"\n  value lead: hidden\n')
    (tmp_path / "house.fish").write_text('extends "base"\ngame "House"\npresentation:\n  value round_points: "tally"\n')
    g = fishrules.load(tmp_path / "house.fish", backend="python")
    d = g.describe()
    assert {v["name"]: v for v in d["values"]}["round_points"]["label"] == "tally"
    assert d["derived"]["lead"]["hidden"] is True  # the base's entry stays
    assert not g.warnings


def test_explain_and_the_language_server_show_the_words(tmp_path):
    from fishrules.lsp import Analysis

    text = BASE + '\npresentation:\n  value round_points: "points this round", "counted so far"\n  log count_up: "{player} counts {by}"\n'
    g = fishrules.loads(text, "t.fish", backend="python")
    out = g.explain()
    assert 'value round_points: "points this round", "counted so far"' in out and 'log count_up: "{player} counts {by}"' in out
    again = fishrules.loads(out.split("\n", 3)[-1] if out.startswith("#") else out, "u.fish", backend="python")
    assert again.describe()["values"] == g.describe()["values"]
    path = tmp_path / "t.fish"
    path.write_text(text)
    a = Analysis(text, path)
    hover = a.hover("round_points", 4)
    assert "“points this round” — counted so far" in hover
    assert "{player} counts {by}" in a.hover("count_up", 14)


def test_a_base_s_words_for_what_an_overlay_removed_are_dropped(tmp_path):
    (tmp_path / "base.fish").write_text(BASE + '\npresentation:\n  option rounds: "rounds to play"\n')
    (tmp_path / "house.fish").write_text('extends "base"\ngame "House"\nremove option rounds\n'
                                         'replace phase game:\n  for each player:\n    player chooses count_up\n')
    assert fishrules.load(tmp_path / "house.fish", backend="python").describe()["options"] == []
    (tmp_path / "bad.fish").write_text('extends "base"\ngame "House"\npresentation:\n  option round: "r"\n')
    with pytest.raises(RuleError) as e:
        fishrules.load(tmp_path / "bad.fish", backend="python")
    assert "there is no option `round`" in e.value.errors[0].message and e.value.errors[0].span.line == 4


COUNTED = BASE.replace("the game has internal step: number", "the game has turn: number\nthe game has internal step: number")


def test_about_and_a_counter_s_bound_are_read_and_checked():
    """`about` says what the game is (paragraphs, an overlay's over its base's); `value NAME: out of
    BOUND` gives a counter its bound: a named number is its number, a public value, define or
    option its name (the table reads it from the view); a bound nobody declared is an error with a
    hint."""
    text = COUNTED + ("define most_turns: 9\npresentation:\n  about: \"Count up.\"\n  about: \"The most wins.\"\n"
                      "  value turn: out of most_turns\n")
    g = fishrules.loads(text, "t.fish", backend="python")
    d = g.describe()
    assert d["about"] == ["Count up.", "The most wins."]
    assert {v["name"]: v for v in d["values"]}["turn"]["out_of"] == 9
    out = g.explain()
    assert 'about: "Count up."' in out and "value turn: out of most_turns" in out
    again = fishrules.loads(out.split("\n", 3)[-1] if out.startswith("#") else out, "u.fish", backend="python")
    assert again.describe()["about"] == d["about"] and again.describe()["values"] == d["values"]
    by_option = fishrules.loads(COUNTED + "presentation:\n  value turn: out of rounds\n", "t.fish", backend="python")
    assert {v["name"]: v for v in by_option.describe()["values"]}["turn"]["out_of"] == "rounds"
    with pytest.raises(RuleError) as e:
        fishrules.loads(COUNTED + "define most_turns: 9\npresentation:\n  value turn: out of most_turn\n", "t.fish")
    assert "no number `most_turn`" in e.value.errors[0].message and "most_turns" in e.value.errors[0].hint
    assert load("").describe()["about"] == []


def test_an_overlay_s_about_counts_over_its_base_s(tmp_path):
    (tmp_path / "base.fish").write_text(BASE + '\npresentation:\n  about: "The base."\n  about: "Its rules."\n')
    (tmp_path / "house.fish").write_text('extends "base"\ngame "House"\npresentation:\n  about: "A house rule."\n')
    (tmp_path / "plain.fish").write_text('extends "base"\ngame "Plain"\n')
    assert fishrules.load(tmp_path / "house.fish", backend="python").describe()["about"] == ["A house rule."]
    assert fishrules.load(tmp_path / "plain.fish", backend="python").describe()["about"] == ["The base.", "Its rules."]


def test_every_bundled_ruleset_words_its_actions_and_options():
    # the bundled games use the presentation part: every action has a sentence for the log and a
    # description, every option a description
    for name in fishrules.bundled():
        d = fishrules.load(name, backend="python").describe()
        for a in d["actions"]:
            assert a["log"] and a["description"], (name, a["name"])
        for o in d["options"]:
            assert o["description"], (name, o["name"])
        assert d["about"], name  # what the game is, for the rules panel
