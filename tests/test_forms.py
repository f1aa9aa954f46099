"""The forms of a ruleset's actions and its tables, from the model alone (fishrules.forms, issue 32
step 4a): every legal action's text is its form's and reads back through it, tokens that name
nothing read as nothing, the engine's compiled program has no second way of writing a move, the
forms keep nothing of the model, and the rest of the package reads its tables from the forms."""

from __future__ import annotations

import ast
import gc
import random
import weakref
from pathlib import Path

import pytest

import fishrules
from fishrules import forms as F
from fishrules.compiler.program import ActionProgram, ParamProgram
from fishrules.forms import forms_of
from fishrules.limits import MAX_NUMBER
from fishrules.runtime import SIMULTANEOUS, move_of

from .hostile.test_actions import PARAMS
from .test_backends_refuse_alike import SECRET_BIDS

SRC = Path(__file__).resolve().parent.parent / "src" / "fishrules"
HOUSE = {"secret-bids": SECRET_BIDS, "params": PARAMS}
RULESETS = fishrules.bundled() + list(HOUSE)
STEPS = 40

_games: dict = {}


def game(name: str):
    if name not in _games:
        _games[name] = (fishrules.loads(HOUSE[name], name=name, backend="python") if name in HOUSE
                        else fishrules.load(name, backend="python"))
    return _games[name]


def decisions(g, players: int, seed: int):
    """(player, legal actions) at every decision of a seeded random game, up to STEPS moves."""
    s = g.start(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(STEPS):
        if s.is_over:
            return
        for p in list(s.waiting):
            acts = s.legal_actions(p if s.current == SIMULTANEOUS else None)
            yield p, acts, s.current == SIMULTANEOUS
            s.apply(acts[rng.randrange(len(acts))])


def expected_token_value(forms: F.Forms, form: F.ActionForm, i: int, v):
    """What parse_token gives for a token the history writes for value `v` of parameter i."""
    p = form.params[i]
    kind = p.element.kind if p.element is not None else "number"
    return forms.card_labels[v] if kind == "card" else v


@pytest.mark.parametrize("name", RULESETS)
def test_every_legal_action_is_its_form_s_text_and_reads_back(name):
    g = game(name)
    forms = forms_of(g.model)
    numbers = {n: i for i, n in enumerate(g.model.actions)}
    seen_secret = False
    for players in (g.min_players, g.max_players):
        for actor, acts, together in decisions(g, players, players):
            for a in acts:
                form = forms.actions[a.name]
                assert form.number == numbers[a.name] == move_of(a).action
                assert forms.by_number[form.number] is form
                prefix = f"p{actor}: " if together else ""
                assert prefix + form.render(a._values) == a.text
                assert form.args(a._values) == a.args
                words = a.text[len(prefix):].split()
                assert words[0] == a.name
                toks = words[1:]
                for i, (p, v) in enumerate(zip(form.params, a._values)):
                    if p.kind == "some":  # the last parameter: every remaining token is one thing
                        assert [form.parse_token(i, t) for t in toks] == [expected_token_value(forms, form, i, x) for x in v]
                        toks = []
                    else:
                        assert form.parse_token(i, toks[0]) == expected_token_value(forms, form, i, v), (a.text, i)
                        toks = toks[1:]
                assert not toks
                hidden = form.render_redacted(a._values)
                if not any(p.secret for p in form.params):
                    assert hidden is None
                    continue
                seen_secret = True
                shown = hidden.split()
                assert shown[0] == a.name and len(shown) == len(words)
                for p, w, real in zip(form.params, shown[1:], words[1:]):
                    assert w == ("?" if p.secret else real)
    if name in ("secret-bids", "fishfish"):
        assert seen_secret  # (the walk reached a secret choice)


#: (a rule text with one parameter of each codec, action, parameter index, token, what it reads as)
CODECS = """\
game "Codecs"
players 2 to 3
dice: 2 with faces LOW 1, HIGH 2
cards tile: colour in red, blue and value in 1, 2
the game has pile: zone of tile
each player has points: number
phase game:
  for each player:
    player chooses poke or bet or reroll or pick or lay
action poke(victim: one of players other than you):
  add 1 to victim's points
action bet(n: a number from -5 to 5):
  add n to your points
action reroll(chosen: some dice):
  nothing
action pick(colour: one of red or blue):
  nothing
action lay(card: one of pile):
  nothing
"""

READS = [
    # players: `p` and one or two ASCII digits, either case
    ("poke", "p1", 1), ("poke", "P2", 2), ("poke", "p10", 10), ("poke", "p", None), ("poke", "p100", None),
    ("poke", "p-1", None), ("poke", "p١", None), ("poke", "p¹", None), ("poke", "q1", None), ("poke", "1", None),
    ("poke", "", None), ("poke", "p" + "1" * 5000, None),
    # numbers: ASCII digits, a minus first, within ±MAX_NUMBER
    ("bet", "3", 3), ("bet", "-3", -3), ("bet", "0", 0), ("bet", str(MAX_NUMBER), MAX_NUMBER),
    ("bet", str(MAX_NUMBER + 1), None), ("bet", "-" + str(MAX_NUMBER + 1), None), ("bet", "+3", None),
    ("bet", "3.0", None), ("bet", "٣", None), ("bet", "３", None), ("bet", "²", None), ("bet", "-", None),
    ("bet", "", None), ("bet", "9" * 17, None), ("bet", "1" + "0" * 5000, None), ("bet", "1e3", None),
    # dice: by number, 1 first (read as from 0)
    ("reroll", "1", 0), ("reroll", "2", 1), ("reroll", "0", None), ("reroll", "-1", None), ("reroll", "١", None),
    # a choice's word and a card's label are read as written (whether one is possible is the rules' to say)
    ("pick", "red", "red"), ("pick", "green", "green"), ("lay", "red-1", "red-1"), ("lay", "zz", "zz"),
]


@pytest.mark.parametrize("action, token, value", READS)
def test_a_token_reads_as_its_value_or_as_nothing(action, token, value):
    form = forms_of(fishrules.loads(CODECS, backend="python").model).actions[action]
    assert form.parse_token(0, token) == value


def test_what_each_parameter_takes_is_said_in_words():
    forms = forms_of(fishrules.loads(CODECS, backend="python").model)
    said = {name: a.params[0].describe for name, a in forms.actions.items()}
    assert said == {"poke": "players (written p0, p1, …)", "bet": "a number",
                    "reroll": "one or more of dice (by number, 1 first)", "pick": "one of red or blue",
                    "lay": "cards"}
    reroll = forms.actions["reroll"]
    assert reroll.render(((0, 1),)) == "reroll 1 2" and reroll.args(((0, 1),)) == {"chosen": (1, 2)}
    assert forms.card_labels == ("red-1", "red-2", "blue-1", "blue-2")
    assert forms.actions["lay"].args((1,)) == {"card": "red-2"} and forms.actions["lay"].render((2,)) == "lay blue-1"
    assert forms.roll_text(1, 0) == "die 2 rolls LOW 1" and forms.face_labels[forms.unrolled] == "-"
    assert forms.chance_args("roll", (1, 0)) == {"die": 2, "face": "LOW 1"}
    assert forms.chance_args("draw", (3,)) == {"card": "blue-2"}


@pytest.mark.parametrize("name", fishrules.bundled())
def test_the_engine_writes_moves_only_through_the_forms(name):
    """One implementation: the compiled program's actions are their forms' (while the engine
    lives), and its tables are the forms'."""
    g = game(name)
    prog, forms = g.program, forms_of(g.model)
    assert prog.forms is forms
    # the compiled actions write with the forms' own code and writers (none of their own)
    assert ActionProgram.render is F.ActionForm.render
    assert ActionProgram.render_redacted is F.ActionForm.render_redacted
    for action, ap in prog.actions.items():
        assert ap.form is forms.actions[action]
        assert ap.writers is ap.form.writers and ap.redacted is ap.form.redacted
        assert [p.form for p in ap.params] == list(forms.actions[action].params)
    assert not {"render", "render_one", "parse", "describe"} & set(ParamProgram.__slots__)
    assert prog.face_labels == list(forms.face_labels) and prog.face_values == list(forms.face_values)
    assert prog.card_labels == list(forms.card_labels) and prog.card_values == forms.card_values
    assert prog.chance_outcomes == list(forms.chance_outcomes) and prog.unrolled == forms.unrolled
    assert prog.public_defines == forms.public_defines
    for slot in forms.game_zone_names:
        assert prog.zone_name(slot) == forms.zone_name(True, slot, -1)
    for slot in forms.player_var_names:
        assert prog.zone_name(prog.G + slot * 64 + 1) == forms.zone_name(False, slot, 1)


def test_the_forms_keep_nothing_of_the_model():
    """Made once per model and kept while the model lives: a model that goes takes its forms along
    (a server loading rule texts all day must not keep every one)."""
    made = len(F._MADE)
    refs = []
    for i in range(3):
        g = fishrules.loads(PARAMS.replace('"Params"', f'"Params {i}"'), backend="python")
        assert forms_of(g.model) is forms_of(g.model)
        g.start(2, seed=1).legal_actions()[0].text  # noqa: B018 - a text written
        refs.append(weakref.ref(g.model))
        del g
    gc.collect()
    assert all(r() is None for r in refs)
    assert len(F._MADE) <= made


# ---- the rest of the package reads the tables from the forms -------------------------------------

#: The tables a compiled program holds that the forms hold too (and, at step 6, only they).
TABLES = {"face_labels", "face_values", "face_kinds", "face_canonical", "unrolled", "chance_outcomes", "card_labels",
          "card_values", "public_defines", "roll_text", "zone_name", "game_zone_names", "game_var_names",
          "player_var_names"}

#: Modules outside compiler/ that still read those of the engine's compiled program, and why.  Only
#: ever take entries out (step 6 of issue 32 empties it).
STILL_READ = {
    "runtime/decisions.py": "zone_name of an engine zone key (a drawn card's `to`)",
    "runtime/machine.py": "the engine's own step machine (unrolled dice)",
    "runtime/record.py": "the engine's record: events' card labels and zone names (step 3 replaces it)",
    "runtime/views.py": "the engine's view (step 3 replaces it)",
    "runtime/zones.py": "the engine's cards and zones",
    "runtime/determinize.py": "card labels of the engine's determinization (step 5d)",
    "kernel/__init__.py": "the bridge to the engine (state_of), which goes at step 6",
}


def _programish(e: ast.expr) -> bool:
    if isinstance(e, ast.Name):
        return e.id in ("prog", "program")
    return isinstance(e, ast.Attribute) and e.attr in ("prog", "program", "_prog")


def _reads() -> dict[str, set]:
    """Module -> the tables it reads of something named as the compiled program (`prog.x`,
    `state.prog.x`, `game.program.x`, `self._prog.x`), and the texts of its actions
    (`prog.actions[...].render`)."""
    out: dict[str, set] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = str(path.relative_to(SRC))
        if rel.startswith("compiler/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute):
                continue
            if node.attr in TABLES and _programish(node.value):
                out.setdefault(rel, set()).add(node.attr)
            elif (node.attr in ("render", "render_redacted") and isinstance(node.value, ast.Subscript)
                  and isinstance(node.value.value, ast.Attribute) and node.value.value.attr == "actions"
                  and _programish(node.value.value.value)):
                out.setdefault(rel, set()).add(node.attr)
    return out


def test_the_rest_reads_the_tables_from_the_forms():
    found = _reads()
    new = sorted(f"{mod}: {sorted(names)}" for mod, names in found.items() if mod not in STILL_READ)
    assert not new, "read these from fishrules.forms, not from the compiled program:\n  " + "\n  ".join(new)
    gone = sorted(set(STILL_READ) - set(found))
    assert not gone, f"these no longer read the compiled program's tables; take them out of STILL_READ: {gone}"
