"""Why an action is illegal, in words: the refusals both machines give, written once.

Beside `fishrules.forms` (how a move is written and read), and like it free of any machine: each
function takes what a refusal is about (the text as given, who acts, which actions are offered at
the decision, who is still choosing) and gives the `IllegalAction` to raise.  The engine's
decisions (runtime/decisions.py) and the kernel's states (kernel/apistate.py) both raise these, so
a refusal reads the same whichever machine worked it out.
"""

from __future__ import annotations

from typing import Any, Optional

from .errors import IllegalAction
from .limits import MAX_ACTION_TEXT


def too_long(text: str) -> IllegalAction:
    return IllegalAction(text[:40] + "…", f"an action text is at most {MAX_ACTION_TEXT:,} characters")


def not_an_action(thing: Any) -> IllegalAction:
    return IllegalAction(repr(thing)[:60], "an action is an Action or its text")


def game_over(text: str) -> IllegalAction:
    return IllegalAction(text, "the game is over")


def say_who(text: str, waiting: list) -> IllegalAction:
    """A text with no player's name at a decision several players make at once."""
    who = ", ".join(f"p{p}" for p in waiting)
    return IllegalAction(text, f"several players choose at once here: say who, as in 'p{waiting[0]}: …' "
                               f"(waiting for {who})")


def not_choosing(text: str, player: int, choosing: list, players: int, waiting: list) -> IllegalAction:
    """A choice for `player`, who is not among those still choosing (`waiting`) of the players
    choosing at once (`choosing`)."""
    if player in choosing:
        why = "has chosen already"
    elif 0 <= player < players:
        why = "is not choosing now"
    else:
        why = f"is not in this game (there are {players} players)"
    return IllegalAction(text, f"p{player} {why}; waiting for " + ", ".join(f"p{p}" for p in waiting))


def unknown_word(text: str, actor: int, offered: list, known: Any) -> Optional[IllegalAction]:
    """The refusal of a text whose first word is not one of the actions `offered` to `actor` now
    (`known`: every action of the rules), or None where it is."""
    words = text.split()
    who = f"p{actor}"
    choices = " or ".join(offered)
    if not words:
        return IllegalAction(text, f"no action given; {who} chooses {choices}")
    if words[0] in offered:
        return None
    if words[0] in known:
        return IllegalAction(text, f"`{words[0]}` is not offered now; {who} chooses {choices}")
    return IllegalAction(text, f"there is no action `{words[0]}`; {who} chooses {choices}")


def wrong_actor(text: str, player: Optional[int], cur: Any, chance: Any, together: Any) -> Optional[IllegalAction]:
    """An `Action` of another position offered to a state where `cur` acts (a seat, `chance` or
    `together`): the refusal if it is not for the one who acts, else None."""
    if cur == chance:
        if player is not None:
            return IllegalAction(text, f"this is p{player}'s action, but chance is to play now")
    elif cur == together:
        if player is None:
            return IllegalAction(text, "this is a chance outcome, but players are choosing now")
    elif player != cur:
        whose = "a chance outcome" if player is None else f"p{player}'s action"
        return IllegalAction(text, f"this is {whose}, but p{cur} is to act")
    return None


def other_game(text: str) -> IllegalAction:
    return IllegalAction(text, "this action belongs to another game")


def needs(text: str, action: str, param: Any) -> IllegalAction:
    """No token left for parameter `param` (its `ParamForm`) of `action`."""
    return IllegalAction(text, f"`{action}` needs {param.describe} for `{param.name}`")


def takes(text: str, param: Any, shown: str) -> IllegalAction:
    """A token that writes no value of parameter `param` at all (`shown`: the token, shortened)."""
    return IllegalAction(text, f"`{param.name}` takes {param.describe}, not {shown}")


def too_many(text: str, action: str, params: list) -> IllegalAction:
    """Words left after every parameter of `action` (named in `params`) has its value."""
    return IllegalAction(text, f"too many words: `{action}` takes {', '.join(params) or 'nothing more'}")
