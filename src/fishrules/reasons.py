"""Why an action is illegal, in words: the refusals both machines give, written once (and the
errors of a game that cannot go on as the rules say it: a decision at which no action is allowed,
an `unavailable` statement, a rule that goes wrong while it runs, and what was being done then).

Beside `fishrules.forms` (how a move is written and read), and like it free of any machine: each
function takes what a refusal is about (the text as given, who acts, which actions are offered at
the decision, who is still choosing) and gives the `IllegalAction` to raise.  The engine's
decisions (runtime/decisions.py) and the kernel's states (kernel/apistate.py) both raise these, so
a refusal reads the same whichever machine worked it out.
"""

from __future__ import annotations

from typing import Any, Optional

from .errors import Diagnostic, IllegalAction, OptionError, RuleError, short
from .limits import MAX_ACTION_TEXT, MAX_CHOICES, MAX_LIST_LENGTH, MAX_NUMBER, MAX_PHASE_DEPTH, MAX_SUBSET, WORK_BUDGET


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


def not_an_outcome(text: str) -> IllegalAction:
    """A text given where chance is to play that is none of its outcomes now.  The outcomes are not
    listed: a draw's would name hidden cards, and the message may be relayed to a player; whoever
    resolves chance asks `chance_outcomes()`.  A text written as an outcome (`draw …`,
    `die N rolls …`) is a misspelt or impossible outcome, anything else a player's move."""
    words = text.split(" ")
    if words[0] == "draw" or (len(words) > 3 and words[0] == "die" and words[2] == "rolls"):
        return IllegalAction(text, "not one of chance's possible outcomes now (state.chance_outcomes() lists them)")
    return IllegalAction(text, "chance is to play now, not a player (its outcomes: state.chance_outcomes())")


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


def listed(items: list, most: int = 10) -> str:
    """`possible: a, b, c`, at most `most` of them and how many more there are."""
    if not items:
        return "none is possible"
    shown = ", ".join(items[:most])
    more = len(items) - most
    return f"possible: {shown}" + (f" and {more} more" if more > 0 else "")


def read_action(text: str, actor: int, offered: list, forms: Any, domain: Any, legal: Any, check: Any,
                together: bool) -> tuple:
    """Read an action's text (`text`, spaces normalised, no chooser's name) as the rules allow it
    now: (its form, its values, its canonical text, the rule it breaks that the rules accept or
    None); raise the `IllegalAction` that says why not otherwise (naming the rule that forbids it,
    if one does).  What a message offers instead is taken from the player's own legal actions: it
    names nothing the player may not know, and says how many it leaves out.

    The machine is asked through three functions, so both machines read alike: `domain(form, i,
    values)` what parameter i may be given the earlier `values` (for `some`, the things chosen
    from, in their order); `legal(form)` the values of the actor's legal actions of that action;
    `check(form, values)` None if the move keeps every rule of its action, else (rule, span,
    accepted) of the first it breaks.  `offered`: the actions offered to `actor` now; `forms`:
    every action's form by name (fishrules.forms); `together`: a choice made at once with others."""
    refused = unknown_word(text, actor, offered, forms)
    if refused is not None:
        raise refused
    words = text.split()
    form = forms[words[0]]
    toks = words[1:]
    values: list = []
    for i, f in enumerate(form.params):
        if f.kind == "some":
            take, toks = toks, []
            if not take:
                raise needs(text, form.name, f)
            elements = list(domain(form, i, values))
            order = {v: i for i, v in enumerate(elements)}
            vals: list = []
            for t in take:
                found = next((v for v in elements if f.render_one(v) == t and v not in vals), None)
                if found is None:
                    if any(f.render_one(v) == t for v in elements):
                        raise IllegalAction(text, f"something is named twice in `{f.name}`")
                    raise IllegalAction(text, f"{t} is not one of the {f.things} to choose from now")
                vals.append(found)
            value: Any = tuple(sorted(vals, key=order.__getitem__))
        else:
            if not toks:
                raise needs(text, form.name, f)
            tok, toks = toks[0], toks[1:]
            dom = list(domain(form, i, values))
            value = next((v for v in dom if f.render(v) == tok), None)
            if value is None:
                if form.parse_token(i, tok) is None:
                    raise takes(text, f, short(tok))
                if together:
                    # The text names the chooser, but anybody may have sent it: a refusal
                    # here lists nothing a player may be keeping secret.
                    raise IllegalAction(text, f"{short(tok)} is not a possible `{f.name}` now "
                                              f"(ask legal_actions(p{actor}) for p{actor}'s choices)")
                given = tuple(values)
                possible = list(dict.fromkeys(f.render(v[i]) for v in legal(form) if v[:i] == given))
                raise IllegalAction(text, f"{short(tok)} is not a possible `{f.name}` now ({listed(possible)})")
        values.append(value)
    if toks:
        raise too_many(text, form.name, [f.name for f in form.params])
    canonical = form.render(tuple(values))
    broken = check(form, tuple(values))
    if broken is None:
        return form, tuple(values), canonical, None
    rule, span, accepted = broken
    if not accepted:
        raise IllegalAction(text, f'it breaks the rule "{rule}"', rule=rule, span=span)
    return form, tuple(values), canonical, rule


def broken_together(text: str) -> IllegalAction:
    """`text`, chosen at a choice made together, breaks a rule whose handler would accept it
    elsewhere: accepted only at a player's own decision (the checker's `broken-together` lint)."""
    return IllegalAction(text, "a broken rule cannot be accepted at a simultaneous choice")


def stuck(span: Any, actor: int, names: str, where: str) -> RuleError:
    """`actor` must choose one of the actions `names` (written `a or b`) at the decision written
    at `span`, while playing `where` (`phase X`, or `the game`), and none of them is allowed."""
    return RuleError(Diagnostic(span, f"p{actor} must choose {names} here, but none of them is allowed: the game is stuck",
                                f"while playing {where}; the rules must leave a player who must act "
                                "at least one choice (or not ask them)"))


def unavailable(title: str, message: str) -> OptionError:
    """The rules titled `title` reached `unavailable "message"`: they cannot be played as asked."""
    return OptionError(f"{title}: {message}")


# ---- a rule that goes wrong while the game runs: what it says, and what was being done ----------
# The engine raises these (compiler/program.py's `Fail`s, runtime/machine.py's `_fault`); the
# kernel words its faults with them (kernel/faults.py).

NOBODY = "a rule used `nobody` where a player is needed"
NESTED = "the rules are nested too deeply to work out"
MEMORY = "the rules ran out of memory"
DIVIDE = "divide by zero"
SEAT_OF_NOBODY = "a rule asked for the seat of nobody"
ZONE_OF_NOBODY = "a rule used a zone of nobody"
CHANGED_NOBODY = "a rule changed something of nobody"
NOBODY_CHOOSES = "nobody is there to choose"
NUMBER_TOO_LARGE = f"a number grew past {MAX_NUMBER:,}, the largest the rules may use"
LIST_TOO_LONG = f"a list grew past {MAX_LIST_LENGTH:,} entries, the longest the rules may keep"
TOO_DEEP = f"phases are nested more than {MAX_PHASE_DEPTH} deep: the rules recurse without end"
OVER_BUDGET = (f"the rules did more than {WORK_BUDGET:,} steps of work without waiting for anybody: "
               "an endless loop, or a rule that looks at far too many things")


def no_such_zone(name: str, i: Any, low: int, count: int) -> str:
    return f"there is no `{name}({i})`: they are numbered {low} to {low + count - 1}"


def not_in_list(v: Any) -> str:
    return f"{v} is not in the list to remove it from"


def phase_for_nobody(phase: str) -> str:
    return f"phase `{phase}` is played for nobody"


def end_not_played(phase: str) -> str:
    return f"`end {phase}`: phase `{phase}` is not being played now"


def too_many_numbers(name: str, n: int) -> str:
    return f"`{name}` could be any of {n:,} numbers; one decision offers at most {MAX_CHOICES:,}"


def too_many_subsets(n: int) -> str:
    return f"choosing some of {n} things has too many ways (at most {MAX_SUBSET} things)"


def too_many_choices(action: str) -> str:
    return f"`{action}` offers more than {MAX_CHOICES:,} choices at once"


def while_playing(block: Optional[str]) -> str:
    """The context of a fault while a block (a phase, an action: its engine name) runs."""
    return f"while playing {block}" if block is not None else "while playing"


def while_listing(actor: int, where: str) -> str:
    """... while the legal actions of `actor` are listed, in `where` (`phase X`, or `the game`)."""
    return f"while listing what p{actor} may do in {where}"


def while_reading(text: str) -> str:
    """... while an action's text (or the text of a typed move) is read."""
    return f"while reading {text!r}"


WHILE_SCORES = "while working out the scores"
WHILE_WINNERS = "while working out the winners"
WHILE_SETTING_UP = "while setting up the game"
