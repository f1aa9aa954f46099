"""The checker's core: the state a check builds up, its diagnostics, and the order of the work.

The checker is one class, `fishrules.checker._Checker`, put together from one mixin per concern:
this core, `declarations` (options, dice, cards, boards, variables, scores), `defines`,
`statements` (phases, actions and their statements), `expressions`, and `limits` (the static
bounds of `fishrules.limits`).
"""

from __future__ import annotations

from typing import Callable, Iterable, Optional, Union

from .. import model as m
from .. import nodes as n
from ..errors import MAX_HINTS as ERRORS_MAX_HINTS, Diagnostic, RuleError, Span, did_you_mean, follows_from
from ..bounds import zones_moved_into
from ..limits import MAX_ALL_ZONES, MAX_PLAYERS, MAX_ZONE_ROOM

ERR = m.Type("error")

#: name -> (what it takes, as a person would say it); the checker enforces these.
BUILTINS = {
    "count": "a collection or a list: how many things are in it",
    "sum": "a list of numbers: their total",
    "min": "numbers, or one list of numbers: the smallest (0 for an empty list)",
    "max": "numbers, or one list of numbers: the largest (0 for an empty list)",
    "largest": "(how many, a list of numbers): that many of the largest numbers",
    "smallest": "(how many, a list of numbers): that many of the smallest numbers",
    "abs": "a number: its size without a sign",
    "first": "a collection or a list: its first thing (nobody or nothing if it is empty)",
    "last": "a collection or a list: its last thing — the top card of a zone",
    "divide": "(a number, a number): the first divided by the second, rounded down",
    "top": "(how many, a zone or a list): that many from its end — the top cards of a zone",
    "distinct": "a list: each value once, in the order they first come",
    "adjacent": "a circle of the board: the circles joined to it by a line, next to it",
    "slide": "(a circle, the circles in the way): where a piece can go from it in a straight line without jumping",
}

_PARAM_TYPES = {"number": "number", "player": "player", "card": "card", "die": "die"}

_PLURAL = {"die": "dice", "player": "players"}
_DIRECTION_CHOICES = ("clockwise", "counterclockwise")
_DIE_ATTRS = {"face": m.FACE, "value": m.NUMBER, "number": m.NUMBER}


#: The most "did you mean" hints one check works out (errors.MAX_HINTS): past it, a name already
#: hinted keeps its hint and any other gets none.
MAX_HINTS = ERRORS_MAX_HINTS

#: The most names a hint lists when it lists what there is (`its attributes: …`).
MAX_LISTED = 12


def listed(names: Iterable[str], most: int = MAX_LISTED) -> str:
    """Names, comma-separated, at most `most` of them and then how many more there are."""
    names = list(dict.fromkeys(names))
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _domain_key(choices: Iterable[str]) -> str:
    return ",".join(sorted(choices))


class _Unit:
    """One block of code being checked: a phase, an action, a define, a score or the winners."""

    def __init__(self, kind: str, name: str, you: bool):
        self.kind = kind
        self.name = name
        self.n = 0
        self.you: Optional[int] = None
        if you:
            self.you = self.alloc()
        self.scopes: list[dict[str, m.Local]] = [{}]
        self.elems: list[m.Local] = []

    def alloc(self, k: int = 1) -> int:
        s = self.n
        self.n += k
        return s


class Core:
    def __init__(self, items: list, variants: tuple[str, ...] = (), source_names: tuple[str, ...] = (), source=None,
                 lost: frozenset = frozenset()):
        self.items = items
        self.lost = lost
        self.quieted = False  # an error left unsaid, since it follows from a line that could not be read
        self.source = source  # the file checked, for problems of the whole file (line 1)
        self.variants = variants
        self.source_names = source_names
        self.diags: list[Diagnostic] = []
        self.hints_left = MAX_HINTS
        self.hints: dict[tuple, Optional[str]] = {}  # (what, name) -> its hint, worked out once
        self.title = None
        self.players = None
        self.option_nodes: list[n.OptionDecl] = []
        self.dice_node: Optional[n.DiceDecl] = None
        self.cards_nodes: list[n.CardsDecl] = []
        self.board_node: Optional[n.BoardDecl] = None
        self.card_sets: dict[str, m.CardSet] = {}
        self.cards: list[m.CardInfo] = []
        self.card_attrs: dict[str, m.Type] = {}  # attribute -> type, over every set
        self.var_nodes: list[n.VarDecl] = []
        self.define_nodes: dict[str, n.Define] = {}
        self.phase_nodes: dict[str, n.Phase] = {}
        self.action_nodes: dict[str, n.Action] = {}
        self.score_nodes: list[n.Score] = []
        self.winners_node: Optional[n.Winners] = None
        self.presentation_nodes: list[n.Presentation] = []
        # results
        self.options: dict[str, m.Option] = {}
        self.gvars: dict[str, m.Variable] = {}
        self.pvars: dict[str, m.Variable] = {}
        self.defines: dict[str, m.DefineDecl] = {}
        self.defining: set[str] = set()
        self.per_player_cache: dict[str, bool] = {}
        self.symbols: dict[str, tuple[str, ...]] = {}
        self.symbol_domains: dict[str, list[str]] = {}
        self.face_kinds: list[str] = []
        self.calls: dict[str, set[str]] = {}  # phase/action key -> called phase/action keys
        self.pending_seen_by: list = []
        self.circles: Optional[m.Const] = None  # the board's circles, once the board is checked
        self.family_numbers: dict[str, tuple] = {}  # a family of zones -> its numbers
        self.board_model: Optional[m.Board] = None

    # ---- diagnostics --------------------------------------------------------------------------

    def error(self, span: Span | None, msg: str, hint: str | None = None) -> None:
        if self.lost and follows_from(msg, self.lost):
            self.quieted = True  # it names something on a line the parser could not read, reported already
            return
        self.diags.append(Diagnostic(span, msg, hint))

    def warn(self, span: Span | None, msg: str, hint: str | None = None, code: str | None = None) -> None:
        from .lints import silenced

        if silenced(span, code):
            return
        self.diags.append(Diagnostic(span, msg, hint, severity="warning", code=code))

    def suggest(self, name: str, candidates: Union[Iterable[str], Callable[[], Iterable[str]]],
                what: Optional[str] = None) -> Optional[str]:
        """`did_you_mean` of `name` among `candidates` (or a function giving them, called only
        when a hint is worked out), for the first `MAX_HINTS` names of a check; `what` names the
        kind of `candidates` when they are the same wherever it is asked, so that a name hinted
        once keeps its hint wherever it is used again."""
        key = (what, name)
        if what is not None and key in self.hints:
            return self.hints[key]
        if self.hints_left <= 0:
            return None
        self.hints_left -= 1
        hint = did_you_mean(name, candidates() if callable(candidates) else candidates)
        if what is not None:
            self.hints[key] = hint
        return hint

    def bad(self, span) -> m.Const:
        return m.Const(None, ERR, span=span)

    # ---- entry ---------------------------------------------------------------------------------

    def run(self) -> m.Model:
        """Check the whole rule set, in an order where everything is checked after what it uses;
        the model, or `RuleError` holding every problem found."""
        for it in self.items:
            self.collect(it)
        self.order_defines()
        self.check_header()
        dice, n_game_slots = self.check_values()
        # Each define is checked after the defines it uses, so checking never recurses deeply.
        for name in self.define_order:
            self.define(name, None)
        scores = tuple(self.check_score(s) for s in self.score_nodes)
        winners, wn = self.check_winners()
        phases = {name: self.check_phase(p) for name, p in self.phase_nodes.items()}
        actions = {name: self.check_action(a) for name, a in self.action_nodes.items()}
        self.check_reachable()
        self.check_evaluation_depth(scores, winners)
        self.check_statement_depths(phases, actions)
        self.check_choice_counts(actions)
        from .presentation import check_presentation  # how a table words things (checker/presentation.py)

        presentation = check_presentation(self)
        board = self.board_model  # checked with the declarations, before any rule
        if not self.quieted and not any(d.severity == "error" for d in self.diags):
            self.lint()  # (with errors to fix first, "never used" may only mean "not checked")
            self.lint_deals(phases)

        errors = [d for d in self.diags if d.severity == "error"]
        if errors or self.quieted:
            raise RuleError(self.diags)
        model = m.Model(
            title=self.title.title,
            min_players=self.players.low,
            max_players=self.players.high,
            options=tuple(self.options.values()),
            dice=dice,
            game_vars=tuple(self.gvars.values()),
            player_vars=tuple(self.pvars.values()),
            defines={k: d for k, d in self.defines.items() if k not in self.named_numbers()},
            phases=phases,
            actions=actions,
            scores=scores,
            winners=winners,
            winners_nlocals=wn,
            symbols=dict(self.symbols),
            n_game_slots=n_game_slots,
            variants=self.variants,
            card_sets=tuple(self.card_sets.values()),
            board=board,
            cards=tuple(self.cards),
            source_names=self.source_names,
            warnings=tuple(d for d in self.diags if d.severity == "warning"),
            span=self.top,
            presentation=presentation,
        )
        if not self.check_zone_room(model):
            raise RuleError(self.diags)
        return model

    def check_header(self) -> None:
        """The title and the number of players (their absence reported at line 1: `self.top`)."""
        top = next((Span(i.span.source, 1, 1, 1, 1) for i in self.items if getattr(i, "span", None)), None)
        if top is None and self.source is not None:  # an empty file: its problems are at line 1
            top = Span(self.source, 1, 1, 1, 1)
        self.top = top
        if self.title is None:
            self.error(top, "the rules have no title", 'start the file with a line such as `game "My game"`')
        if self.players is None:
            self.error(top, "the rules do not say how many may play", "add a line such as `players 2 to 4`")
        elif self.players.low < 1 or self.players.high < self.players.low:
            self.error(self.players.span, f"`players {self.players.low} to {self.players.high}` is not a range of player counts")
        elif self.players.high > MAX_PLAYERS:
            self.error(self.players.span, f"at most {MAX_PLAYERS} players are supported")

    def check_values(self) -> tuple[Optional[m.Dice], int]:
        """Options, dice, cards and variables, numbered into the game's slots and the players':
        (the dice, how many slots the game has)."""
        self.add_domain("face", ())  # filled by dice
        self.add_domain(_domain_key(_DIRECTION_CHOICES), _DIRECTION_CHOICES)
        slot = 0
        for o in self.option_nodes:
            opt = self.check_option(o, slot)
            if opt is not None:
                self.options[o.name] = opt
                slot += 1
        dice = self.check_dice()
        for c in self.cards_nodes:
            self.check_cards(c)
        # Before any rule reads `circles`: a board too large is refused before it is built.
        self.board_model = self.check_board()
        for v in self.var_nodes:
            if v.scope == "game":
                var = self.check_var(v, slot)
                if var is not None:
                    self.gvars[v.name] = var
                    slot += var.family[1] if var.family else 1
        pslot = 0
        for v in self.var_nodes:
            if v.scope == "player":
                var = self.check_var(v, pslot)
                if var is not None:
                    self.pvars[v.name] = var
                    pslot += 1
        self.check_zone_count()
        for v in self.pending_seen_by:
            u = _Unit("visibility", v.name, you=False)
            e = self.expr(v.seen_by, u)
            self.expect(e, "player", v.seen_by, "who sees it")
            old = self.gvars[v.name]
            self.gvars[v.name] = m.Variable(old.name, old.scope, old.type, old.initial, "seen by", old.slot, old.choices, e, span=old.span)
        return dice, slot

    def check_zone_count(self) -> None:
        """Every zone is room in every position: the game's zones, its families' and each player's
        (once for every seat) are counted together, before a position is built."""
        seats = self.players.high if self.players is not None and 1 <= self.players.high <= MAX_PLAYERS else 1
        total = 0
        for v in self.var_nodes:
            var = (self.gvars if v.scope == "game" else self.pvars).get(v.name)
            if var is None or var.type.kind != "zone" or var.span is not v.span:
                continue
            total += var.family[1] if var.family else seats if v.scope == "player" else 1
            if total > MAX_ALL_ZONES:
                each = f" ({seats} seats, a zone for each)" if v.scope == "player" else ""
                self.error(v.span, f"the game has more than {MAX_ALL_ZONES:,} zones in all here{each}",
                           "a game's zones, every zone of its families and each player's zones once for every seat "
                           "count together (see the limits in the language reference)")
                return

    def check_zone_room(self, model: m.Model) -> bool:
        """Every zone cards can be moved or drawn into keeps room for every card of its kind in a
        position (how else many could be there: `bounds.zones_moved_into`, the kernel's layout);
        that room, counted in the order the zones are declared, within MAX_ZONE_ROOM.  Whether it is
        (else an error at the zone that goes past it)."""
        into = zones_moved_into(model)
        sizes = {c.name: c.count for c in model.card_sets}
        total = 0
        zones = [(v, "g") for v in model.game_vars] + [(v, "p") for v in model.player_vars]
        for v, scope in sorted(zones, key=lambda z: (z[0].span.line, z[0].span.column) if z[0].span else (0, 0)):
            if v.type.kind != "zone" or (into is not None and (scope, v.slot) not in into):
                continue
            dom = v.type.element.domain if v.type.element is not None else None
            count = (v.family[1] if v.family else 1) if scope == "g" else model.max_players
            total += count * (len(model.cards) if dom is None else sizes.get(dom, len(model.cards)))
            if total > MAX_ZONE_ROOM:
                each = f" ({model.max_players} seats, a zone for each)" if scope == "p" else ""
                self.error(v.span, f"the zones cards are moved into have room for more than {MAX_ZONE_ROOM:,} cards "
                                   f"in all here{each}",
                           "every zone that cards are moved or drawn into keeps room for every card of its kind, "
                           "once for every zone of a family and every seat (see the limits in the language reference)")
                return False
        return True

    def collect(self, it: n.Item) -> None:
        """File the item `it` where the checking of its kind looks for it.  Dispatch is by node kind
        (`collect_<Node>`, as `visit_<Node>` for statements and expressions)."""
        collect = getattr(self, "collect_" + type(it).__name__, None)
        if collect is None:  # pragma: no cover - the resolver removes every other kind of item
            self.error(getattr(it, "span", None), f"unexpected {type(it).__name__} after resolving overlays")
            return
        collect(it)

    def collect_GameDecl(self, it: n.GameDecl) -> None:
        self.title = it

    def collect_PlayersDecl(self, it: n.PlayersDecl) -> None:
        self.players = it

    def collect_OptionDecl(self, it: n.OptionDecl) -> None:
        self.option_nodes.append(it)

    def collect_DiceDecl(self, it: n.DiceDecl) -> None:
        self.dice_node = it

    def collect_CardsDecl(self, it: n.CardsDecl) -> None:
        self.cards_nodes.append(it)

    def collect_BoardDecl(self, it: n.BoardDecl) -> None:
        self.board_node = it

    def collect_VarDecl(self, it: n.VarDecl) -> None:
        self.var_nodes.append(it)

    def collect_Define(self, it: n.Define) -> None:
        self.define_nodes[it.name] = it

    def collect_Phase(self, it: n.Phase) -> None:
        self.phase_nodes[it.name] = it

    def collect_Action(self, it: n.Action) -> None:
        self.action_nodes[it.name] = it

    def collect_Score(self, it: n.Score) -> None:
        self.score_nodes.append(it)

    def collect_Winners(self, it: n.Winners) -> None:
        self.winners_node = it

    def collect_Presentation(self, it: n.Presentation) -> None:
        self.presentation_nodes.append(it)

    # ---- names and symbols ----------------------------------------------------------------------

    def add_domain(self, key: str, choices: tuple[str, ...]) -> None:
        if key in self.symbols:
            return
        self.symbols[key] = tuple(choices)
        for c in choices:
            self.symbol_domains.setdefault(c, []).append(key)

    def all_names(self, u: Optional[_Unit]) -> list[str]:
        names = list(self.gvars) + list(self.options) + list(self.defines) + list(self.define_nodes)
        names += list(self.symbol_domains) + ["players", "winners"] + (["dice"] if self.dice_node else [])
        names += list(self.card_sets)
        if u is not None:
            for sc in u.scopes:
                names += list(sc)
            if u.elems:
                names += self.elem_attr_names(u.elems[-1].type)
        return names

    def zone_names(self) -> list[str]:
        """The zones of the game and of each player (not the families: their zones have numbers)."""
        return [v for v, var in self.gvars.items() if var.type.kind == "zone"] + \
            [v for v, var in self.pvars.items() if var.type.kind == "zone"]

    def elem_attr_names(self, t: m.Type) -> list[str]:
        if t.kind == "player":
            return list(self.pvars) + [d for d in self.define_nodes if self.is_per_player(d)] + ["score", "seat"]
        if t.kind == "die":
            return list(_DIE_ATTRS)
        if t.kind == "card":
            return list(dict.fromkeys(a for cs in self.card_sets.values() for a, _ in cs.attrs))
        return []


def _as_coll(t: m.Type) -> m.Type:
    """A filtered zone is no longer a zone (cards cannot be moved into it): just cards."""
    if t.kind == "zone":
        return m.Type("collection", element=t.element)
    return t
