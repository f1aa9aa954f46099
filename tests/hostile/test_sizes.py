"""Every size, range and count a rule file declares is bounded before it is built (issue 25).

The first round bounded cards, circles, zones of a family and choices (test_limits.py).  A board of
a billion circles still blew up as soon as a rule *read* `circles`, and other sizes were not bounded
at all: a die's faces, the lines of a board (what a piece may slide along is worked out from every
line beforehand, quadratic in a line's length), zones of all families and players together (each
player's zones once for every seat), variants (`fishrules check` checks each), and what the game
kernel and the observation of the adapters lay out from them.  Each is tried just under its limit
(the rules load and play) and just over (refused, at the line, naming the limit), and the blow-up
that was found, in full size, is refused at once.  Sizes that only the options fix (a parameter's
range, a repeat count, how many dice) are bounded while playing: tried here with the largest
number an option may hold.
"""

from __future__ import annotations

import pytest

from . import scenarios as sc
from .contract import (
    CORPUS, FAST, HEAD, L, SLOW, TINY, assert_loads, assert_raised, assert_rule_error, line_no, names_limit, readable,
    run,
)

# ---- a board read by a rule -------------------------------------------------------------------------------

BOARD_READ = HEAD + """\
board: circles from 1 to {n}
  line 1, 2, 3
each player has at: number = 1
the game has nothing_in_the_way: list of numbers

phase game:
  repeat 3 times:
    for each player:
      player chooses hop

action hop(to: one of {where}):
  set your at to to
{extra}
"""

#: Every way a rule can read the circles of a board.
READS = {
    "a parameter's choices": dict(where="circles", extra=""),
    "a loop": dict(where="adjacent(your at)", extra="define far: count(circles)\n"),
    "a define": dict(where="adjacent(your at)", extra="define all_of_them: circles\n"),
    "a filter": dict(where="(circles where it > your at)", extra=""),
    "slide": dict(where="slide(your at, nothing_in_the_way)", extra=""),
    "a quantifier": dict(where="adjacent(your at)", extra="define any_big: any c in circles where c > 5\n"),
}


@pytest.mark.parametrize("how", READS)
def test_a_billion_circles_read_by_a_rule_is_refused_at_once(how):
    text = BOARD_READ.format(n=10**9, **READS[how])
    assert_rule_error(run(sc.load_text, text, timeout=FAST), lines=line_no(text, "circles from"), limit="MAX_CIRCLES")


@pytest.mark.parametrize("how", READS)
def test_a_thousand_circles_read_by_a_rule_play(how):
    out = run(sc.exercise_text, BOARD_READ.format(n=L["MAX_CIRCLES"], **READS[how]), timeout=SLOW)
    assert_loads(out)
    assert out.value["runtime_error"] is None, out


def test_the_corpus_board_of_a_billion_circles():
    path = CORPUS / "rules" / "billion-circles.fish"
    assert "circles" in path.read_text().split("line")[-1], "the corpus file reads `circles` in a rule"
    assert_rule_error(run(sc.load_path, str(path), timeout=FAST), lines=3, limit="MAX_CIRCLES")


def test_every_reading_of_circles_or_a_family_shares_one_tuple():
    """A file may name `circles` (or a family of a thousand zones) on every one of its lines: one
    tuple of numbers is built, not one per reading."""
    uses = "".join(f"define c{i}: count(circles) + count(piles)\n" for i in range(200))
    text = TINY + "board: circles from 1 to 1000\n  line 1, 2\nthe game has piles: zones from 1 to 1000\n" + uses
    out = run(sc.shared_tuples, text, timeout=SLOW)
    assert out.status == "ok", out
    assert out.value == {1000: 2}, out.value  # one tuple for the circles, one for the piles


# ---- faces -----------------------------------------------------------------------------------------------

DICE = TINY.replace("add 1 to your points", "roll all dice\n  add 1 to your points") + "dice: 3 with faces {faces}\n"


def _faces(k: int) -> str:
    return ", ".join(f"F{i}" for i in range(k))


def test_dice_of_the_most_faces_roll():
    out = run(sc.exercise_text, DICE.format(faces=_faces(L["MAX_FACES"])), timeout=SLOW)
    assert_loads(out)
    assert out.value["runtime_error"] is None and out.value["actions"] > 0, out


@pytest.mark.parametrize("k", [1, 60_000], ids=["one over", "sixty thousand"])
def test_dice_of_too_many_faces_are_refused(k):
    text = DICE.format(faces=_faces(L["MAX_FACES"] + k))
    assert_rule_error(run(sc.load_text, text, timeout=FAST), lines=line_no(text, "dice:"), limit="MAX_FACES")


# ---- the lines of a board -----------------------------------------------------------------------------------

LINES = HEAD + """\
board: circles from 1 to 1000
{lines}
each player has at: number = 1
the game has nothing_in_the_way: list of numbers

phase game:
  repeat 3 times:
    for each player:
      player chooses hop

action hop(to: one of slide(your at, nothing_in_the_way)):
  set your at to to
"""


def _line(first: int, k: int) -> str:
    return "  line " + ", ".join(str(first + i) for i in range(k))


def test_the_longest_lines_slide():
    k = L["MAX_LINE_CIRCLES"]
    count = L["MAX_BOARD_LINE_CIRCLES"] // k  # every line as long as a line may be, as many as the board takes
    lines = "\n".join(_line(1 + (i * 7) % (1000 - k), k) for i in range(count))
    out = run(sc.exercise_text, LINES.format(lines=lines), timeout=SLOW)
    assert_loads(out)
    assert out.value["runtime_error"] is None and out.value["actions"] > 0, out


def test_a_line_too_long_is_refused():
    text = LINES.format(lines=_line(1, 3) + "\n" + _line(1, L["MAX_LINE_CIRCLES"] + 1))
    assert_rule_error(run(sc.load_text, text, timeout=FAST), lines=5, limit="MAX_LINE_CIRCLES")


def test_lines_through_too_many_circles_in_all_are_refused():
    k = L["MAX_LINE_CIRCLES"]
    count = L["MAX_BOARD_LINE_CIRCLES"] // k
    lines = [_line(1, k)] * count + ["  line 1, 2"]
    text = LINES.format(lines="\n".join(lines))
    assert_rule_error(run(sc.load_text, text, timeout=FAST), lines=4 + count, limit="MAX_BOARD_LINE_CIRCLES")


def test_a_hundred_lines_through_every_circle_are_refused_at_once():
    """What was found: 100 lines of a thousand circles each (490 KB), and `slide`, made the engine
    work out 100 million runs of circles."""
    text = LINES.format(lines="\n".join([_line(1, 1000)] * 100))
    out = run(sc.load_text, text, timeout=FAST)
    assert_rule_error(out, lines=4, limit="MAX_LINE_CIRCLES")


# ---- zones in all ------------------------------------------------------------------------------------------

ZONES = TINY + "tokens chip: colour in red x 3\n{zones}"


def test_the_most_zones_in_all_play():
    per = L["MAX_ZONES"]
    zones = "".join(f"the game has piles{i}: zones from 1 to {per} of chip\n" for i in range(L["MAX_ALL_ZONES"] // per))
    out = run(sc.exercise_text, ZONES.format(zones=zones), timeout=SLOW)
    assert_loads(out)
    assert out.value["runtime_error"] is None, out


@pytest.mark.parametrize("extra", ["the game has one_more: zone of chip\n",
                                   "the game has more: zones from 1 to 2 of chip\n",
                                   "each player has hand: zone of chip\n"])
def test_one_zone_too_many_is_refused(extra):
    per = L["MAX_ZONES"]
    zones = "".join(f"the game has piles{i}: zones from 1 to {per} of chip\n" for i in range(L["MAX_ALL_ZONES"] // per))
    text = ZONES.format(zones=zones + extra)
    assert_rule_error(run(sc.load_text, text, timeout=FAST), lines=line_no(text, extra.strip()), limit="MAX_ALL_ZONES")


@pytest.mark.parametrize("players, refused", [(64, True), (4, False)])
def test_each_players_zones_count_once_for_every_seat(players, refused):
    """157 zones a player are 10,048 zones at 64 players (too many) but 628 at four."""
    k = L["MAX_ALL_ZONES"] // 64 + 1
    zones = "".join(f"each player has hand{i}: zone of chip\n" for i in range(k))
    text = ZONES.format(zones=zones).replace("players 2 to 4", f"players 2 to {players}")
    out = run(sc.load_text, text, timeout=FAST)
    if refused:
        assert_rule_error(out, lines=line_no(text, f"hand{k - 1}:"), limit="MAX_ALL_ZONES")
        assert "64" in out.message
    else:
        assert_loads(out)


def test_twelve_thousand_families_of_a_thousand_zones_are_refused_at_once():
    """What was found: twelve million zones (490 KB of declarations) ran the compiler out of memory."""
    zones = "".join(f"the game has z{i}: zones from 1 to 1000\n" for i in range(12_000))
    assert_rule_error(run(sc.load_text, TINY + zones, timeout=FAST), limit="MAX_ALL_ZONES")


# ---- variants -----------------------------------------------------------------------------------------------

VARIANTS = TINY + 'option rounds: number from 1 to 9 = 3, "rounds"\n{variants}'


def _variants(k: int) -> str:
    return "".join(f"variant v{i}:\n  replace option rounds: number from 1 to 9 = {i % 9 + 1}, \"rounds\"\n" for i in range(k))


def test_the_most_variants_are_each_checked(tmp_path):
    path = tmp_path / "many.fish"
    path.write_text(VARIANTS.format(variants=_variants(L["MAX_VARIANTS"])))
    out = run(sc.cli, ["check", str(path)], timeout=SLOW)
    assert out.status == "ok" and out.value["status"] == 0, out
    assert f"v{L['MAX_VARIANTS'] - 1}" in out.value["out"]


@pytest.mark.parametrize("k", [1, 3000], ids=["one over", "three thousand"])
def test_too_many_variants_are_refused_at_once(k, tmp_path):
    """What was found: 3,000 variants of four lines each over Fat Fish kept `fishrules check`
    busy for more than ten minutes."""
    text = VARIANTS.format(variants=_variants(L["MAX_VARIANTS"] + k))
    assert_rule_error(run(sc.load_text, text, timeout=FAST), lines=line_no(text, f"variant v{L['MAX_VARIANTS']}:"),
                      limit="MAX_VARIANTS")
    path = tmp_path / "many.fish"
    path.write_text(text)
    out = run(sc.cli, ["check", str(path)], timeout=FAST)
    assert out.status == "ok" and out.value["status"] == 1, out
    assert names_limit(out.value["err"], "MAX_VARIANTS"), out.value["err"]


def test_variants_in_a_file_that_extends_count_too(tmp_path):
    (tmp_path / "base.fish").write_text(TINY + 'option rounds: number from 1 to 9 = 3, "rounds"\n')
    text = 'extends "base"\ngame "More"\n' + _variants(L["MAX_VARIANTS"] + 1)
    out = run(sc.load_text, text, base_dir=str(tmp_path), timeout=FAST)
    assert_rule_error(out, lines=line_no(text, f"variant v{L['MAX_VARIANTS']}:"), limit="MAX_VARIANTS")


# ---- sizes the options fix: bounded while playing ------------------------------------------------------------

BIG = L["MAX_NUMBER"]
OPTION = HEAD + f'option n: number from 1 to {BIG} = {BIG}, "n"\n'
#: Each size an option can fix, at the largest number an option may hold.
BY_OPTION = {
    "a parameter's range": "each player has points: number\nphase game:\n  repeat 3 times:\n    for each player:\n"
                           "      player chooses pick\naction pick(a: a number from 1 to n):\n  add a to your points\n",
    "a repeat count": "each player has points: number\nphase game:\n  repeat n times:\n    for each player:\n"
                      "      player chooses poke\naction poke:\n  add 1 to your points\n",
    "a repeat in an action": "each player has points: number\nphase game:\n  repeat 3 times:\n    for each player:\n"
                             "      player chooses poke\naction poke:\n  repeat n times:\n    add 1 to your points\n",
    "dice": "dice: n with faces A, B\nphase game:\n  repeat 3 times:\n    for each player:\n      player chooses poke\n"
            "action poke:\n  roll all dice\n",
    "a draw": "cards c: v from 1 to 50\nthe game has deck: zone of c\neach player has hand: zone of c\n"
              "phase game:\n  move c to deck\n  repeat 3 times:\n    for each player:\n"
              "      player chooses take\naction take:\n  draw n from deck to your hand\n",
    "top": "cards c: v from 1 to 50\nthe game has deck: zone of c\neach player has hand: zone of c\n"
           "phase game:\n  move c to deck\n  repeat 3 times:\n    for each player:\n"
           "      player chooses take\naction take:\n  move top(n, deck) to your hand\n",
    "largest": "each player has rolls: list of numbers\nphase game:\n  repeat 3 times:\n    for each player:\n"
               "      player chooses keep\naction keep:\n  add 7 to your rolls\n  set your rolls to largest(n, your rolls)\n",
    "a list grown": "each player has rolls: list of numbers\nphase game:\n  repeat 3 times:\n    for each player:\n"
                    "      player chooses keep\naction keep:\n  repeat n times:\n    add 7 to your rolls\n",
}


@pytest.mark.parametrize("what", BY_OPTION)
def test_sizes_an_option_fixes_are_bounded_while_playing(what):
    text = OPTION + BY_OPTION[what]
    out = run(sc.exercise_text, text, timeout=SLOW)
    assert_loads(out)
    err = out.value["runtime_error"]
    if err is not None:  # refused by a limit of the game, with its line
        assert err["mro"] and "RuleError" in err["mro"], err
    played = run(sc.simulate_text, text, timeout=SLOW)
    assert played.status == "ok", played
    if played.value["error"] is not None:
        assert "RuleError" in played.value["error"]["mro"], played


@pytest.mark.parametrize("what", BY_OPTION)
def test_sizes_an_option_fixes_are_bounded_in_the_action_space_and_observation(what):
    """What the adapters number and lay out from the rules (every action a parameter's range may
    give, a zone of every card): built within its bound, or refused with an OptionError, at the
    largest number an option may hold (the default here: a game started with it may already go past a
    limit of the rules, a RuleError at the line)."""
    from fishrules.spaces import MAX_ACTION_IDS, MAX_OBSERVATION

    out = run(sc.spaces_of, OPTION + BY_OPTION[what], timeout=FAST)
    assert out.status == "ok", out  # not "memory" nor "timeout"
    for kind, bound in (("actions", MAX_ACTION_IDS), ("observation", MAX_OBSERVATION)):
        got = out.value[kind]
        if isinstance(got, dict):  # an OptionError, or the rules going past a limit at that option (at its line)
            assert "OptionError" in got["mro"] or ("RuleError" in got["mro"] and ":" in got["message"].split()[0]), got
            readable(got["message"])
        else:
            assert 0 <= got <= bound, (kind, got)
    if what == "a parameter's range":  # a number from 1 to 10**15: not numbered
        assert isinstance(out.value["actions"], dict) and "1,000,000,000,000,000" in out.value["actions"]["message"]


def test_observation_too_large_to_lay_out_is_refused():
    """Within every limit of the rules (9,601 zones, 10,000 kinds of card) an observation would be
    96 million floats at 64 players: refused before it is built."""
    zones = "".join(f"each player has hand{i}: zone of c\n" for i in range(150))
    text = HEAD.replace("2 to 4", "2 to 64") + "cards c: v from 1 to 10000\nthe game has deck: zone of c\n" + zones + \
        "phase game:\n  nothing\n"
    for players in (2, 64):
        out = run(sc.observation_size, text, players, timeout=FAST)
        assert_raised(out, "OptionError")
        assert "1,048,576" in out.message


# ---- what the game kernel lays out --------------------------------------------------------------------------

#: 9,601 zones, 10,000 cards: cards moved into two zone variables of 151 (the deck, each player's
#: third hand), 650,000 numbers of room in the kernel (a zone no card is moved into has none)
ZONES_BY_NEED = (HEAD.replace("2 to 4", "2 to 64") + "cards c: v from 1 to 10000\nthe game has deck: zone of c\n"
                 + "".join(f"each player has hand{i}: zone of c\n" for i in range(150))
                 + "each player has points: number\nphase game:\n  move c to deck\n  move deck to first(players)'s hand3\n"
                   "  repeat 2 times:\n    for each player:\n      player chooses poke\naction poke:\n  add 1 to your points\n"
                   "score \"p\": your points + count(your hand3)\n")

#: What a position of the kernel keeps room for, as big as the limits let it be: refused by
#: MAX_ZONE_ROOM when it is the zones' room for cards, else played by the engine's own machine.
ZONES_TIMES_CARDS = ZONES_BY_NEED.replace(
    "  repeat 2 times:\n", "  if count(deck) > 20000:\n"
    + "".join(f"    move deck to last(players)'s hand{i}\n" for i in range(150)) + "  repeat 2 times:\n")

KERNEL_BIG = {
    # four lists of each player, at 64 seats, each set to 10,000 numbers: 2.6 million numbers a position
    "lists at every seat": HEAD.replace("2 to 4", "2 to 64") + "cards c: v from 1 to 10000\nthe game has deck: zone of c\n"
    + "".join(f"each player has l{i}: list of numbers\n" for i in range(4))
    + "each player has points: number\nphase game:\n  move c to deck\n"
    + "".join(f"  set last(players)'s l{i} to v of deck\n" for i in range(4))
    + "  repeat 2 times:\n    for each player:\n      player chooses poke\naction poke:\n  add 1 to your points\n"
    "score \"p\": your points + count(your l0)\n",
    # sixty plain parameters: the kernel's Python nests sixty loops, cut as CPython compiles them
    "deep moves": HEAD + "each player has points: number\nphase game:\n  repeat 2 times:\n    for each player:\n"
    "      player chooses pick\naction pick(" + ", ".join(f"a{i}: a number from 1 to 1" for i in range(60)) + "):\n"
    "  add a59 to your points\n",
    # four thousand phases, each playing the next: megabytes of C, and a chain of calls 4,000 deep
    "a chain of phases": HEAD + "each player has points: number\nphase game:\n  play p0\n"
    + "".join(f"phase p{i}:\n  play p{i + 1}\n" for i in range(4000))
    + "phase p4000:\n  for each player:\n    player chooses poke\naction poke:\n  add 1 to your points\n",
}


#: zones cards are moved into, with room for `n` zones' of 10,000 cards: a family of them, or each
#: player's at 2 to `n` players
ROOM = {
    "a family": HEAD + "cards c: v from 1 to 10000\nthe game has piles: zones from 1 to {n} of c\n"
    "each player has points: number\nphase game:\n  move c to piles(1)\n  move top(1, piles(1)) to piles({n})\n"
    "  for each player:\n    player chooses poke\naction poke:\n  add 1 to your points\nscore \"p\": count(piles({n}))\n",
    "each player's": HEAD.replace("2 to 4", "2 to {n}") + "cards c: v from 1 to 10000\nthe game has deck: zone of c\n"
    "each player has hand: zone of c\nphase game:\n  move c to deck\n  move top(1, deck) to first(players)'s hand\n"
    "  for each player:\n    player chooses poke\naction poke:\n  move top(1, deck) to your hand\n"
    "score \"p\": count(your hand)\n",
}
ROOM_LIMIT = 1 << 20  # (fishrules.limits.MAX_ZONE_ROOM)


@pytest.mark.parametrize("where", ROOM)
def test_zones_with_room_for_too_many_cards_are_refused(where):
    """A position keeps room in every zone cards can be moved into for every card of its kind: a
    family of 105 such zones of 10,000 cards (or 104 seats' hands and a deck, past the most players
    anyway: 64 seats' hands and a deck are 650,000) would be 1,050,000 cards of room, past
    MAX_ZONE_ROOM, refused at the line of the zone that goes past it; 104 play on the kernel."""
    n = ROOM_LIMIT // 10_000
    if where == "a family":
        text = ROOM[where].format(n=n + 1)
        out = run(sc.load_text, text, timeout=FAST)
        assert_rule_error(out, lines=line_no(text, "piles:"))
        assert "1,048,576" in out.message and "room" in out.message, out.message
        out = run(sc.simulate_text, ROOM[where].format(n=n), 2, None, "auto", timeout=SLOW)
        assert out.status == "ok" and out.value["error"] is None and out.value["games"] == 2, out
        assert out.value["backend"] in ("native", "python"), out.value  # on the kernel
    else:  # 64 seats at most: room for 650,000 cards, and the kernel plays them
        out = run(sc.simulate_text, ROOM[where].format(n=64), 2, None, "auto", timeout=SLOW)
        assert out.status == "ok" and out.value["error"] is None and out.value["backend"] in ("native", "python"), out


def test_the_checker_counts_the_room_the_kernel_lays_out():
    """The room the checker counts is the room the kernel's layout keeps (so that no rules the
    checker passes are too large for the kernel by their zones)."""
    import fishrules
    from fishrules.kernel.layout import Layout
    from fishrules.limits import MAX_SUBSET

    for text, want in ((ROOM["a family"].format(n=104), 1_040_000), (ZONES_BY_NEED, 650_000)):
        layout = Layout(fishrules.loads(text, "room.fish").model, MAX_SUBSET)
        assert sum(cap for _, cap in layout.zones) == want <= ROOM_LIMIT


def test_a_position_too_large_for_the_kernel_says_where():
    """Past the kernel's room by its lists (which the language does not bound together): the
    kernel's refusal names the list that goes past it, at its line (for the error a game will
    raise once the engine's machine no longer plays such rules)."""
    import fishrules
    from fishrules.kernel.layout import Layout, TooLarge
    from fishrules.limits import MAX_SUBSET

    text = KERNEL_BIG["lists at every seat"]
    with pytest.raises(TooLarge) as got:
        Layout(fishrules.loads(text, "lists.fish").model, MAX_SUBSET)
    assert got.value.span.line == line_no(text, "l3:") and "`l3`" in str(got.value) and "64 seats" in str(got.value)


def test_the_zones_of_every_player_count_once_for_every_seat_in_the_room():
    text = ZONES_TIMES_CARDS  # the deck and hand0 of 64 seats: 650,000; with hand1, 1,290,000
    out = run(sc.load_text, text, timeout=FAST)
    assert_rule_error(out, lines=line_no(text, "hand1:"))
    assert "1,048,576" in out.message and "64 seats" in out.message, out.message


@pytest.mark.parametrize("what", KERNEL_BIG)
@pytest.mark.parametrize("backend", ["auto", "python"])
def test_rules_too_large_for_the_kernel_are_played_by_the_engine(what, backend):
    out = run(sc.simulate_text, KERNEL_BIG[what], 2, None, backend, timeout=SLOW)
    assert out.status == "ok", out  # not "memory": the harness allows 1.5 GiB
    if out.value["error"] is not None:
        assert "RuleError" in out.value["error"]["mro"], out
    else:
        assert out.value["games"] == 2
    if what == "a chain of phases":  # too much C to compile: the kernel runs as Python
        assert out.value["backend"] in ("python", "engine") and (out.value["why"] or backend == "python"), out.value
    elif what == "deep moves":  # on the kernel, native or its Python (tests/test_kernel_python_depth.py)
        assert out.value["backend"] in ("native", "python"), out.value
    else:
        assert out.value["backend"] == "engine" and out.value["why"], out.value


#: Moves wider than the 64 numbers the kernel once recorded (issue 32, step 5f): each action's
#: parameters at their offsets in a record as wide as the widest action's, the native kernel's
#: lists of moves bounded in bytes.  Each player holds a card, so that every game plays.
WIDE = (HEAD + "cards c: v from 1 to 8\nthe game has deck: zone of c\neach player has hand: zone of c\n"
        "each player has points: number\nphase game:\n  move c to deck\n  for each player:\n"
        "    move top(1, deck) to player's hand\n  repeat 2 times:\n    for each player:\n      player chooses pick\n"
        "action pick({params}):\n  add {last} to your points\nscore \"p\": your points\n")
WIDE_MOVES = {
    # sixty `some` parameters: a move of 1,022 numbers (sixty plain ones, "deep moves" above, nest as
    # deep in 62; a hundred take a minute of the C compiler's, a loop nested in a loop a parameter)
    "sixty some": WIDE.format(params=", ".join(f"a{i}: some your hand" for i in range(60)), last="count(a59)"),
    # four `some` parameters chosen together: 70 numbers a move, and 64 seats' moves kept in a frame
    "chosen together": WIDE.format(params=", ".join(f"a{i}: some your hand" for i in range(4)),
                                   last="count(a3)").replace("for each player:\n      player chooses pick",
                                                                 "each of players secretly chooses pick")
                                                        .replace("2 to 4", "2 to 64"),
}


@pytest.mark.parametrize("what", WIDE_MOVES)
@pytest.mark.parametrize("backend", ["auto", "python"])
def test_rules_of_wide_moves_play_on_the_kernel(what, backend):
    """Native code plays them (they were too large for the kernel), and so does the kernel's
    Python spelling (a loop a parameter, cut where CPython would compile no more)."""
    from fishrules.kernel import NativeError
    from fishrules.kernel.native import compiler

    out = run(sc.simulate_text, WIDE_MOVES[what], 2, None, backend, timeout=4 * SLOW)  # (a megabyte of C)
    assert out.status == "ok" and out.value["error"] is None and out.value["games"] == 2, out
    try:
        compiler()
        native = backend == "auto"
    except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
        native = False
    if native:
        assert out.value["backend"] == "native" and out.value["why"] is None, out.value
    else:
        assert out.value["backend"] == "python", out.value


@pytest.mark.parametrize("backend", ["auto", "python"])
def test_zones_no_card_is_moved_into_take_no_room_in_the_kernel(backend):
    """The rules of `ZONES_TIMES_CARDS` without the branch that could fill every hand: the kernel
    lays out room only in the zones the rules move or draw cards into, and plays them."""
    from fishrules.kernel import NativeError
    from fishrules.kernel.native import compiler

    out = run(sc.simulate_text, ZONES_BY_NEED, 2, None, backend, timeout=SLOW)
    assert out.status == "ok" and out.value["error"] is None and out.value["games"] == 2, out
    try:
        compiler()
        kernel = "native" if backend == "auto" else "python"
    except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
        kernel = "python"
    assert out.value["backend"] == kernel, out.value


@pytest.mark.parametrize("flag", ["--c", "--kernel-python"])
def test_explaining_the_kernel_of_rules_too_large_for_it_says_so(flag, tmp_path):
    path = tmp_path / "big.fish"
    path.write_text(KERNEL_BIG["lists at every seat"])
    out = run(sc.cli, ["explain", str(path), flag], timeout=SLOW)
    assert out.status == "ok" and out.value["status"] == 2, out
    assert "too large for the game kernel" in out.value["err"] and "Traceback" not in out.value["err"], out.value


@pytest.mark.parametrize("built", [False, True], ids=["first start", "after a simulation"])
@pytest.mark.parametrize("backend", ["auto", "native"])
def test_a_game_too_large_for_the_kernel_starts_on_the_engine(backend, built):
    """`Game.start` gives a state deciding on the kernel only when the kernel is native: rules too
    large for it give the engine's own State, which plays as the engine does, whether or not the
    kernel was asked for before, with backend auto (a simulation plays on the engine) and native (a
    simulation is refused: native insists, with an OptionError)."""
    out = run(sc.start_where, KERNEL_BIG["lists at every seat"], backend, built, timeout=SLOW)
    assert out.status == "ok", out
    assert out.value["state"] == "State" and out.value["same"] and out.value["moves"] > 0, out.value
    if backend == "auto":
        assert out.value.get("error") is None and out.value["backend"] == "engine", out.value
    else:
        err = out.value["error"]
        assert "OptionError" in err["mro"] and "too large for the game kernel" in err["message"], err


@pytest.mark.parametrize("backend", ["auto", "native"])
def test_a_game_the_kernel_holds_starts_on_it(backend):
    """The other side: the same shape of rules, small enough, decides on the native kernel once it is
    built (so the test above can fail)."""
    from fishrules.kernel import NativeError
    from fishrules.kernel.native import compiler

    try:
        compiler()
    except NativeError:  # pragma: no cover - every machine the suite runs on has a C compiler
        pytest.skip("no C compiler here")
    small = KERNEL_BIG["lists at every seat"].replace("from 1 to 10000", "from 1 to 10").replace("2 to 64", "2 to 4")
    out = run(sc.start_where, small, backend, True, timeout=SLOW)
    assert out.status == "ok", out
    assert out.value["state"] == "KState" and out.value["same"] and out.value["backend"] == "native", out.value


def test_simulating_with_backend_native_rules_too_large_for_the_kernel_says_so(tmp_path):
    path = tmp_path / "big.fish"
    path.write_text(KERNEL_BIG["lists at every seat"])
    for command in (["simulate", str(path), "--games", "2"], ["compare", str(path), str(path), "--games", "2"]):
        out = run(sc.cli, command + ["--backend", "native"], timeout=SLOW)
        assert out.status == "ok" and out.value["status"] == 2, out
        assert "too large for the game kernel" in out.value["err"], out.value
        assert not any(word in out.value["err"] for word in ("Traceback", "internal error")), out.value
        out = run(sc.cli, command + ["--backend", "auto"], timeout=SLOW)
        assert out.status == "ok" and out.value["status"] == 0, out
        if command[0] == "simulate":
            assert "played by the engine" in out.value["out"], out.value
