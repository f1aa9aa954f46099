"""Stage 3: resolved syntax tree -> typed model (`fishrules.model`).

Resolves every name (with "did you mean" hints), checks types and arities, checks that every phase
and action can be reached from `phase game`, and numbers the variables.  Every problem found is
collected; `check` raises one `RuleError` holding all of them, sorted by position.
"""

from __future__ import annotations

from typing import Iterable, Optional

from . import model as m
from . import nodes as n
from .errors import Diagnostic, RuleError, Span, did_you_mean

__all__ = ["check", "BUILTINS"]

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


class _Checker:
    def __init__(self, items: list, variants: tuple[str, ...] = (), source_names: tuple[str, ...] = ()):
        self.items = items
        self.variants = variants
        self.source_names = source_names
        self.diags: list[Diagnostic] = []
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

    # ---- diagnostics --------------------------------------------------------------------------

    def error(self, span: Span | None, msg: str, hint: str | None = None) -> None:
        self.diags.append(Diagnostic(span, msg, hint))

    def warn(self, span: Span | None, msg: str, hint: str | None = None) -> None:
        self.diags.append(Diagnostic(span, msg, hint, severity="warning"))

    def bad(self, span) -> m.Const:
        return m.Const(None, ERR, span=span)

    # ---- entry ---------------------------------------------------------------------------------

    def run(self) -> m.Model:
        for it in self.items:
            self.collect(it)
        top = next((Span(i.span.source, 1, 1, 1, 1) for i in self.items if getattr(i, "span", None)), None)
        self.top = top
        if self.title is None:
            self.error(top, "the rules have no title", 'start the file with a line such as `game "My game"`')
        if self.players is None:
            self.error(top, "the rules do not say how many may play", "add a line such as `players 2 to 4`")
        elif self.players.low < 1 or self.players.high < self.players.low:
            self.error(self.players.span, f"`players {self.players.low} to {self.players.high}` is not a range of player counts")
        elif self.players.high > 64:
            self.error(self.players.span, "at most 64 players are supported")

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
        n_game_slots = slot
        for v in self.pending_seen_by:
            u = _Unit("visibility", v.name, you=False)
            e = self.expr(v.seen_by, u)
            self.expect(e, "player", v.seen_by, "who sees it")
            old = self.gvars[v.name]
            self.gvars[v.name] = m.Variable(old.name, old.scope, old.type, old.initial, "seen by", old.slot, old.choices, e, span=old.span)

        for name in self.define_nodes:
            self.define(name, None)
        scores = tuple(self.check_score(s) for s in self.score_nodes)
        winners, wn = self.check_winners()
        phases = {name: self.check_phase(p) for name, p in self.phase_nodes.items()}
        actions = {name: self.check_action(a) for name, a in self.action_nodes.items()}
        self.check_reachable()

        errors = [d for d in self.diags if d.severity == "error"]
        if errors:
            raise RuleError(self.diags)
        return m.Model(
            title=self.title.title,
            min_players=self.players.low,
            max_players=self.players.high,
            options=tuple(self.options.values()),
            dice=dice,
            game_vars=tuple(self.gvars.values()),
            player_vars=tuple(self.pvars.values()),
            defines=dict(self.defines),
            phases=phases,
            actions=actions,
            scores=scores,
            winners=winners,
            winners_nlocals=wn,
            symbols=dict(self.symbols),
            n_game_slots=n_game_slots,
            variants=self.variants,
            card_sets=tuple(self.card_sets.values()),
            board=self.check_board(),
            cards=tuple(self.cards),
            source_names=self.source_names,
            warnings=tuple(d for d in self.diags if d.severity == "warning"),
        )

    def collect(self, it) -> None:
        if isinstance(it, n.GameDecl):
            self.title = it
        elif isinstance(it, n.PlayersDecl):
            self.players = it
        elif isinstance(it, n.OptionDecl):
            self.option_nodes.append(it)
        elif isinstance(it, n.DiceDecl):
            self.dice_node = it
        elif isinstance(it, n.CardsDecl):
            self.cards_nodes.append(it)
        elif isinstance(it, n.BoardDecl):
            self.board_node = it
        elif isinstance(it, n.VarDecl):
            self.var_nodes.append(it)
        elif isinstance(it, n.Define):
            self.define_nodes[it.name] = it
        elif isinstance(it, n.Phase):
            self.phase_nodes[it.name] = it
        elif isinstance(it, n.Action):
            self.action_nodes[it.name] = it
        elif isinstance(it, n.Score):
            self.score_nodes.append(it)
        elif isinstance(it, n.Winners):
            self.winners_node = it
        else:  # pragma: no cover - the resolver removes every other kind of item
            self.error(getattr(it, "span", None), f"unexpected {type(it).__name__} after resolving overlays")

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

    def elem_attr_names(self, t: m.Type) -> list[str]:
        if t.kind == "player":
            return list(self.pvars) + [d for d in self.define_nodes if self.is_per_player(d)] + ["score", "seat"]
        if t.kind == "die":
            return list(_DIE_ATTRS)
        if t.kind == "card":
            return list(dict.fromkeys(a for cs in self.card_sets.values() for a, _ in cs.attrs))
        return []

    # ---- declarations ---------------------------------------------------------------------------

    def const_value(self, e: n.Expr, t: m.Type, what: str, choices: tuple[str, ...] = ()):
        """Evaluates a constant (an option default).  Returns None after reporting a problem."""
        if isinstance(e, n.Negate) and isinstance(e.operand, n.Number):
            v = -e.operand.value
            e2 = e.operand
        elif isinstance(e, n.Number):
            v = e.value
            e2 = e
        elif isinstance(e, n.Boolean):
            v = e.value
            e2 = e
        elif isinstance(e, n.Name) and t.kind == "symbol":
            if e.name not in choices:
                self.error(e.span, f"`{e.name}` is not one of the choices of {what}", did_you_mean(e.name, choices))
                return None
            return e.name
        else:
            self.error(getattr(e, "span", None), f"the default of {what} must be written out, such as a number or one of its choices")
            return None
        if t.kind == "number" and (isinstance(v, bool) or not isinstance(v, int)):
            self.error(e2.span, f"the default of {what} must be a number")
            return None
        if t.kind == "bool" and not isinstance(v, bool):
            self.error(e2.span, f"the default of {what} must be yes or no")
            return None
        return v

    def type_of_spec(self, spec: n.TypeSpec, owner: str) -> tuple[m.Type, tuple[str, ...]]:
        if isinstance(spec, n.NumberType):
            return m.NUMBER, ()
        if isinstance(spec, n.BoolType):
            return m.BOOL, ()
        if isinstance(spec, n.PlayerType):
            return m.PLAYER, ()
        if isinstance(spec, n.ListType):
            return m.LIST, ()
        if isinstance(spec, n.ZoneType):
            if spec.of is not None and spec.of not in self.card_sets:
                self.error(spec.span, f"there are no cards `{spec.of}`", did_you_mean(spec.of, self.card_sets))
                return m.zone_type(None), ()
            return m.zone_type(spec.of), ()
        if isinstance(spec, n.EnumType):
            seen = set()
            for c in spec.choices:
                if c in seen:
                    self.error(spec.span, f"`{c}` is listed twice among the choices of {owner}")
                seen.add(c)
            key = _domain_key(spec.choices)
            self.add_domain(key, spec.choices)
            return m.symbol_type(key), tuple(spec.choices)
        raise AssertionError(spec)  # pragma: no cover

    def static_int(self, e: Optional[n.Expr]) -> Optional[int]:
        if isinstance(e, n.Number):
            return e.value
        if isinstance(e, n.Negate) and isinstance(e.operand, n.Number):
            return -e.operand.value
        return None

    def check_option(self, o: n.OptionDecl, slot: int) -> Optional[m.Option]:
        if o.name in self.options:
            self.error(o.span, f"option `{o.name}` is declared twice")
            return None
        if isinstance(o.type, (n.PlayerType, n.ListType)):
            self.error(o.type.span, "an option is a number, yes or no, or one of a few choices")
            return None
        t, choices = self.type_of_spec(o.type, f"option `{o.name}`")
        default = self.const_value(o.default, t, f"option `{o.name}`", choices)
        low = high = None
        if isinstance(o.type, n.NumberType) and o.type.low is not None:
            low, high = self.static_int(o.type.low), self.static_int(o.type.high)
            if low is None or high is None:
                self.error(o.type.span, "the range of an option must be written with plain numbers")
            elif low > high:
                self.error(o.type.span, f"the range {low} to {high} is empty")
            elif isinstance(default, int) and not (low <= default <= high):
                self.error(o.default.span, f"the default {default} of option `{o.name}` is outside its range {low} to {high}")
        if default is None:
            return None
        return m.Option(o.name, t, default, low, high, choices, o.doc, slot, span=o.span)

    def check_dice(self) -> Optional[m.Dice]:
        d = self.dice_node
        if d is None:
            return None
        faces = []
        labels = set()
        for f in d.faces:
            label = f"{f.name} {f.value}" if f.value else f.name
            if label in labels:
                pass  # a repeated face simply makes it likelier
            labels.add(label)
            faces.append(m.FaceInfo(f.name, f.value, label))
            if f.name not in self.face_kinds:
                self.face_kinds.append(f.name)
        self.symbols["face"] = tuple(self.face_kinds)
        for k in self.face_kinds:
            self.symbol_domains.setdefault(k, []).append("face")
        u = _Unit("dice", "dice", you=False)
        count = self.expr(d.count, u)
        self.expect(count, "number", d.count, "the number of dice")
        self.only_options(d.count, "the number of dice")
        if len(d.faces) < 1:
            self.error(d.span, "dice need at least one face")
        return m.Dice(count, tuple(faces), span=d.span)

    def check_cards(self, c: n.CardsDecl) -> None:
        if c.name in self.card_sets:
            self.error(c.span, f"cards `{c.name}` are declared twice")
            return
        attrs = []
        names = set()
        for a in c.attrs:
            if a.name in names:
                self.error(a.span, f"attribute `{a.name}` is given twice")
            names.add(a.name)
            kinds = {type(v) for v, _ in a.values}
            if len(kinds) > 1:
                self.error(a.span, f"the values of `{a.name}` must be all numbers or all names")
                return
            if kinds == {int}:
                t = m.NUMBER
            else:
                choices = tuple(dict.fromkeys(v for v, _ in a.values))
                key = _domain_key(choices)
                self.add_domain(key, choices)
                t = m.symbol_type(key)
            prev = self.card_attrs.get(a.name)
            if prev is not None and prev != t:
                self.error(a.span, f"`{a.name}` is {prev} for other cards; an attribute has one type for every card")
            self.card_attrs[a.name] = t
            for _, k in a.values:
                if k < 1:
                    self.error(a.span, f"`x {k}`: each value needs at least one card")
            attrs.append((a.name, t))
        first = len(self.cards)
        combos = [()]
        for a in c.attrs:
            combos = [prev + ((a.name, v),) for prev in combos for v, k in a.values for _ in range(k)]
        if len(self.cards) + len(combos) > 5000:
            self.error(c.span, "more than 5000 cards in all")
            return
        numeric = all(isinstance(v, int) for combo in combos[:1] for _, v in combo)
        for combo in combos:
            label = "-".join(str(v) for _, v in combo)
            if numeric:
                label = f"{c.name}-{label}"
            self.cards.append(m.CardInfo(c.name, combo, label))
        self.card_sets[c.name] = m.CardSet(c.name, tuple(attrs), first, len(combos), span=c.span)

    def check_board(self) -> Optional[m.Board]:
        b = self.board_node
        if b is None:
            return None
        if b.high < b.low or b.high - b.low >= 1000:
            self.error(b.span, f"`circles from {b.low} to {b.high}` must number 1 to 1000 circles")
            return None
        for line in b.lines:
            bad = [x for x in line if not (b.low <= x <= b.high)]
            if bad:
                self.error(b.span, f"line {', '.join(map(str, line))} names circle {bad[0]}, but the circles are {b.low} to {b.high}")
            if len(set(line)) != len(line):
                self.error(b.span, f"line {', '.join(map(str, line))} passes through a circle twice")
        return m.Board(b.low, b.high, b.lines, span=b.span)

    def only_options(self, e: n.Expr, what: str) -> None:
        """`what` is computed when the game starts, so it may use numbers and options only."""
        bad = [x for x in _walk(e) if isinstance(x, n.Name) and x.name not in self.options]
        bad += [x for x in _walk(e) if isinstance(x, (n.Your, n.Possessive, n.Call, n.You))]
        if bad:
            self.error(bad[0].span, f"{what} is fixed when the game starts: use numbers and options only")

    def check_var(self, v: n.VarDecl, slot: int) -> Optional[m.Variable]:
        if v.name in self.gvars or v.name in self.pvars or v.name in self.options:
            self.error(v.span, f"`{v.name}` is declared twice")
            return None
        if isinstance(v.type, n.ZonesType):
            lo, hi = self.static_int(v.type.low), self.static_int(v.type.high)
            if lo is None or hi is None:
                self.error(v.type.span, "a family of zones is numbered with plain numbers, as in `zones from 1 to 3`")
                return None
            if hi < lo or hi - lo >= 1000:
                self.error(v.type.span, f"`zones from {lo} to {hi}` must number 1 to 1000 zones")
                return None
            if v.scope != "game":
                self.error(v.span, "a family of zones belongs to the game; give each player a single zone")
                return None
            if v.initial is not None:
                self.error(v.initial.span, "zones start empty; put cards in them with `move`")
            if v.type.of is not None and v.type.of not in self.card_sets:
                self.error(v.type.span, f"there are no cards `{v.type.of}`", did_you_mean(v.type.of, self.card_sets))
            t = m.zone_type(v.type.of if v.type.of in self.card_sets else None)
            if v.visibility == "secret":
                self.error(v.span, "a game-wide value has no owner to keep a secret for")
            if v.seen_by is not None:
                self.error(v.seen_by.span, "`seen by` is for single zones")
            return m.Variable(v.name, v.scope, t, m.Const((), t, span=v.span), v.visibility, slot, (),
                              family=(lo, hi - lo + 1), span=v.span)
        t, choices = self.type_of_spec(v.type, f"`{v.name}`")
        u = _Unit("init", v.name, you=False)
        if t.kind == "zone" and v.initial is not None:
            self.error(v.initial.span, "a zone starts empty; put cards in it with `move`")
        if v.initial is None or t.kind == "zone":
            default = {"number": 0, "bool": False, "player": None, "list": (), "zone": ()}.get(t.kind)
            if t.kind == "symbol":
                default = choices[0]
            init = m.Const(default, t, span=v.span)
        else:
            init = self.expr(v.initial, u, expected=t)
            self.compatible(t, init, v.initial, f"the starting value of `{v.name}`")
            self.only_options(v.initial, f"the starting value of `{v.name}`")
        if isinstance(v.type, n.NumberType) and v.type.low is not None:
            self.warn(v.type.span, "a range on a variable is not enforced; only options check their range")
        vis = v.visibility
        if v.scope == "game" and vis == "secret":
            self.error(v.span, "a game-wide value has no owner to keep a secret for",
                       "write `hidden` to hide it from everybody, or `seen by PLAYER`")
        if v.seen_by is not None:
            if v.scope != "game":
                self.error(v.seen_by.span, "`seen by` is for game-wide values; a player's own value is `secret`")
            elif vis != "public":
                self.error(v.seen_by.span, f"a value cannot be both `{vis}` and `seen by` a player")
            else:
                self.pending_seen_by.append(v)
            vis = "seen by"
        return m.Variable(v.name, v.scope, t, init, vis, slot, choices, span=v.span)

    # ---- defines ---------------------------------------------------------------------------------

    def is_per_player(self, name: str, seen: Optional[set] = None) -> bool:
        if name in self.per_player_cache:
            return self.per_player_cache[name]
        d = self.define_nodes.get(name)
        if d is None or d.params:
            return False
        seen = seen if seen is not None else set()
        if name in seen:
            return False
        seen.add(name)
        result = False
        for x in _walk(d.expr):
            # `you`, `your X`, or the bare name of another define about one player
            if isinstance(x, (n.You, n.Your)) or (
                isinstance(x, n.Name) and x.name != name and x.name in self.define_nodes and self.is_per_player(x.name, seen)
            ):
                result = True
                break
        if result or len(seen) == 1:
            self.per_player_cache[name] = result
        return result

    def define(self, name: str, span: Span | None) -> Optional[m.DefineDecl]:
        if name in self.defines:
            return self.defines[name]
        d = self.define_nodes[name]
        if name in self.defining:
            self.error(span or d.span, f"`{name}` is defined in terms of itself", "a define cannot refer to itself, even through other defines")
            return None
        self.defining.add(name)
        per = self.is_per_player(name)
        u = _Unit("define", name, you=per)
        params = []
        for pname, tword in d.params:
            t = _PARAM_TYPES.get(tword)
            if t is None:
                self.error(d.span, f"`{pname}: {tword}`: a define's parameter is a number, player, card or die")
                t = "number"
            pt = {"number": m.NUMBER, "player": m.PLAYER, "card": m.card_type(None), "die": m.DIE}[t]
            slot = u.alloc()
            u.scopes[0][pname] = m.Local(slot, pt, pname)
            params.append((pname, pt))
        if d.params and any(isinstance(x, (n.You, n.Your)) for x in _walk(d.expr)):
            self.error(d.span, f"`{name}` has parameters, so it cannot also be about `you`", "pass the player as a parameter")
        e = self.expr(d.expr, u)
        self.defining.discard(name)
        decl = m.DefineDecl(name, per, e, u.n, e.type, span=d.span, params=tuple(params))
        self.defines[name] = decl
        return decl

    # ---- scores and winners ---------------------------------------------------------------------

    def check_score(self, s: n.Score) -> m.ScoreTerm:
        u = _Unit("score", s.name, you=True)
        e = self.expr(s.expr, u)
        self.expect(e, "number", s.expr, f'score "{s.name}"')
        return m.ScoreTerm(s.name, e, u.n, span=s.span)

    def check_winners(self) -> tuple[m.Expr, int]:
        u = _Unit("winners", "winners", you=False)
        if self.winners_node is None:
            slot = u.alloc()
            return m.Best(m.AllPlayers(), slot, m.ScoreOf(m.Local(slot, m.PLAYER)), True, m.PLAYERS), u.n
        e = self.expr(self.winners_node.expr, u)
        e = self.as_players(e, self.winners_node.expr, "the winners")
        return e, u.n

    def as_players(self, e: m.Expr, src: n.Expr, what: str) -> m.Expr:
        if e.type == ERR or e.type == m.PLAYERS:
            return e
        if e.type == m.PLAYER:
            return m.Singleton(e, span=src.span)
        self.error(src.span, f"{what} must be players or a player, not {e.type}")
        return self.bad(src.span)

    # ---- phases and actions ---------------------------------------------------------------------

    def check_phase(self, p: n.Phase) -> m.PhaseDecl:
        u = _Unit("phase", p.name, you=False)
        if p.param is not None:
            slot = u.alloc()
            u.scopes[0][p.param] = m.Local(slot, m.PLAYER, p.param)
        key = ("phase", p.name)
        self.calls[key] = set()
        self.current_key = key
        body = self.block(p.body, u)
        return m.PhaseDecl(p.name, p.param, body, u.n, span=p.span)

    def check_action(self, a: n.Action) -> m.ActionDecl:
        u = _Unit("action", a.name, you=True)
        key = ("action", a.name)
        self.calls[key] = set()
        self.current_key = key
        params = []
        for prm in a.params:
            if prm.name in u.scopes[0]:
                self.error(prm.span, f"parameter `{prm.name}` is named twice")
            slot = u.alloc()
            pt = prm.type
            if pt.kind == "choice":
                key = _domain_key(pt.choices)
                if len(set(pt.choices)) != len(pt.choices):
                    self.error(pt.span, "a choice is listed twice")
                self.add_domain(key, tuple(dict.fromkeys(pt.choices)))
                t = m.symbol_type(key)
                params.append(m.ParamDecl(prm.name, "choice", slot, t, secret=prm.secret, choices=tuple(pt.choices), span=prm.span))
            elif pt.kind == "number":
                lo = self.expr(pt.low, u)
                hi = self.expr(pt.high, u)
                self.expect(lo, "number", pt.low, "the low end")
                self.expect(hi, "number", pt.high, "the high end")
                params.append(m.ParamDecl(prm.name, "number", slot, m.NUMBER, None, lo, hi, secret=prm.secret, span=prm.span))
                t = m.NUMBER
            else:
                src = self.expr(pt.source, u)
                if src.type == ERR:
                    t = ERR
                elif src.type.is_collection:
                    t = m.Type("collection", element=src.type.element) if pt.kind == "some" else src.type.element
                elif src.type.kind == "list" and pt.kind == "one of":
                    t = src.type.element or m.NUMBER
                else:
                    what = "some" if pt.kind == "some" else "one of"
                    self.error(pt.source.span, f"`{what}` needs a collection to choose from, not {src.type}")
                    t = ERR
                params.append(m.ParamDecl(prm.name, pt.kind, slot, t, src, secret=prm.secret, span=prm.span))
            u.scopes[0][prm.name] = m.Local(slot, t, prm.name)
        requires = []
        body_stmts = list(a.body)
        head = []
        heady = (n.Require, n.WhenBroken)
        while body_stmts and (
            isinstance(body_stmts[0], heady)
            or (isinstance(body_stmts[0], n.RuleBlock) and all(isinstance(s, heady) for s in body_stmts[0].body))
        ):
            head.append(body_stmts.pop(0))
        broken = []
        for s in head:
            for r in [s] if isinstance(s, heady) else list(s.body):
                if isinstance(r, n.Require):
                    c = self.expr(r.condition, u)
                    self.expect(c, "bool", r.condition, f'rule "{r.name}"')
                    requires.append(m.RequireDecl(r.name, c, span=r.span))
                else:
                    broken.append(r)
        names = [r.name for r in requires]
        handlers = []
        for w in broken:
            if w.rule not in names:
                self.error(w.span, f'action `{a.name}` has no rule "{w.rule}"', did_you_mean(w.rule, names))
                continue
            cond = None
            if w.condition is not None:
                cond = self.expr(w.condition, u)
                self.expect(cond, "bool", w.condition, "the condition of `when … is broken`")
            handlers.append(m.BrokenDecl(w.rule, cond, self.block(w.body, u), span=w.span))
        for s in body_stmts:
            if isinstance(s, n.WhenBroken):
                self.error(s.span, "`when … is broken` belongs with the action's rules, before its effects")
        body = self.block(tuple(s for s in body_stmts if not isinstance(s, n.WhenBroken)), u)
        return m.ActionDecl(a.name, tuple(params), tuple(requires), body, u.n, span=a.span, broken=tuple(handlers))

    def check_reachable(self) -> None:
        if "game" not in self.phase_nodes:
            self.error(self.top, "the rules have no `phase game`", "the game starts by playing `phase game`: add one")
            return
        seen = set()
        todo = [("phase", "game")]
        while todo:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            todo.extend(self.calls.get(k, ()))
        # Unreachable rules are dead, not wrong (an overlay that replaces a phase may leave some of
        # the base behind): they are reported as warnings, which `fishrules check` prints.
        for name, p in self.phase_nodes.items():
            if ("phase", name) not in seen:
                self.warn(p.span, f"phase `{name}` is never played", "play it from another phase (`play " + name + "`), or remove it")
        for name, a in self.action_nodes.items():
            if ("action", name) not in seen:
                self.warn(a.span, f"action `{name}` is never offered", f"offer it with `PLAYER chooses {name}`, or remove it")

    # ---- statements -----------------------------------------------------------------------------

    def block(self, stmts: tuple, u: _Unit) -> tuple:
        out = []
        for s in stmts:
            r = self.stmt(s, u)
            if r is not None:
                out.append(r)
        return tuple(out)

    def scoped_block(self, stmts: tuple, u: _Unit, bindings: dict) -> tuple:
        u.scopes.append(bindings)
        try:
            return self.block(stmts, u)
        finally:
            u.scopes.pop()

    def stmt(self, s: n.Stmt, u: _Unit) -> Optional[m.Stmt]:
        sp = s.span
        if isinstance(s, n.Set):
            target = self.lvalue(s.target, u)
            value = self.expr(s.value, u, expected=target.type if target is not None else None)
            if target is not None and target.type.kind == "zone":
                self.error(sp, f"{self.describe_target(s.target)} is a zone: put cards in it with `move`")
                return None
            if target is not None:
                self.compatible(target.type, value, s.value, self.describe_target(s.target))
                return m.Assign(target, value, span=sp)
            return None
        if isinstance(s, (n.AddTo, n.SubtractFrom, n.RemoveFrom)):
            target = self.lvalue(s.target, u)
            value = self.expr(s.value, u)
            if target is None or value.type == ERR or target.type == ERR:
                return None
            tk, vk = target.type.kind, value.type.kind
            what = self.describe_target(s.target)
            if isinstance(s, n.AddTo):
                if tk == "number" and vk == "number":
                    return m.Change("increase", target, value, span=sp)
                if tk == "list" and vk == "number":
                    return m.Change("append", target, value, span=sp)
                if tk == "list" and vk == "list":
                    return m.Change("extend", target, value, span=sp)
                self.error(sp, f"cannot add {value.type} to {what}, which is {target.type}")
                return None
            if isinstance(s, n.SubtractFrom):
                if tk == "number" and vk == "number":
                    return m.Change("decrease", target, value, span=sp)
                self.error(sp, f"cannot subtract {value.type} from {what}, which is {target.type}", "`subtract` works on numbers; use `remove X from LIST` for lists")
                return None
            if tk == "list" and vk == "number":
                return m.Change("remove", target, value, span=sp)
            self.error(sp, f"cannot remove {value.type} from {what}, which is {target.type}", "`remove` takes a number out of a list of numbers")
            return None
        if isinstance(s, n.Clear):
            target = self.lvalue(s.target, u)
            if target is None:
                return None
            if target.type.kind != "list":
                self.error(sp, f"`clear` empties a list, but {self.describe_target(s.target)} is {target.type}", "use `set … to 0` for a number")
                return None
            return m.Change("clear", target, None, span=sp)
        if isinstance(s, n.Move):
            cards = self.expr(s.cards, u)
            self.expect_cards(cards, s.cards, "what `move` moves")
            target = self.zone_lvalue(s.zone, u)
            if target is None:
                return None
            return m.MoveCards(cards, target, s.facing, span=sp)
        if isinstance(s, n.Draw):
            count = self.expr(s.count, u) if s.count is not None else m.Const(1, m.NUMBER, span=sp)
            if s.count is not None:
                self.expect(count, "number", s.count, "how many cards to draw")
            source = self.zone_lvalue(s.source, u)
            target = self.zone_lvalue(s.target, u)
            if source is None or target is None:
                return None
            return m.DrawCards(count, source, target, s.facing, u.alloc(3), span=sp)
        if isinstance(s, n.Shuffle):
            z = self.zone_lvalue(s.zone, u)
            return m.ShuffleZone(z, span=sp) if z is not None else None
        if isinstance(s, n.Reveal):
            cards = self.expr(s.cards, u)
            self.expect_cards(cards, s.cards, "what `reveal` shows")
            return m.RevealCards(cards, span=sp)
        if isinstance(s, n.Roll):
            d = self.expr(s.dice, u)
            if d.type not in (m.DIE, m.DICE, ERR):
                self.error(s.dice.span, f"only dice can be rolled, not {d.type}")
            return m.RollDice(d, u.alloc(2), span=sp)
        if isinstance(s, n.Play):
            p = self.phase_nodes.get(s.phase)
            if p is None:
                hint = did_you_mean(s.phase, self.phase_nodes)
                if s.phase in self.action_nodes:
                    hint = f"`{s.phase}` is an action: offer it with `PLAYER chooses {s.phase}`"
                self.error(sp, f"there is no phase `{s.phase}`", hint)
                return None
            self.calls[self.current_key].add(("phase", s.phase))
            arg = None
            if p.param is not None and s.argument is None:
                self.error(sp, f"phase `{s.phase}` is played for a player: write `play {s.phase} for PLAYER`")
            elif p.param is None and s.argument is not None:
                self.error(s.argument.span, f"phase `{s.phase}` is not played for a player", f"write `play {s.phase}`")
            elif s.argument is not None:
                arg = self.expr(s.argument, u)
                self.expect(arg, "player", s.argument, f"the player of phase `{s.phase}`")
            return m.CallPhase(s.phase, arg, span=sp)
        if isinstance(s, n.PlayAgain):
            return m.Restart(span=sp)
        if isinstance(s, n.End):
            if s.name != "game" and s.name not in self.phase_nodes:
                self.error(sp, f"there is no phase `{s.name}` to end", did_you_mean(s.name, list(self.phase_nodes) + ["game"]))
                return None
            return m.EndPhase(s.name, span=sp)
        if isinstance(s, n.Chooses):
            who = self.expr(s.chooser, u)
            self.expect(who, "player", s.chooser, "the one who chooses")
            ok = True
            for name, asp in zip(s.actions, s.action_spans or [sp] * len(s.actions)):
                if name not in self.action_nodes:
                    hint = did_you_mean(name, self.action_nodes)
                    if name in self.phase_nodes:
                        hint = f"`{name}` is a phase: write `play {name}`"
                    self.error(asp, f"there is no action `{name}`", hint)
                    ok = False
                else:
                    self.calls[self.current_key].add(("action", name))
            if len(set(s.actions)) != len(s.actions):
                self.error(sp, "an action is offered twice in the same choice")
            if not ok:
                return None
            return m.Choose(who, tuple(s.actions), u.alloc(), span=sp)
        if isinstance(s, n.ChoosesTogether):
            who = self.expr(s.choosers, u)
            if who.type == m.PLAYER:
                who = m.Singleton(who, span=who.span)
            if who.type not in (m.PLAYERS, ERR):
                self.error(s.choosers.span, f"those who choose together must be players, not {who.type}")
            ok = True
            for name, asp in zip(s.actions, s.action_spans or [sp] * len(s.actions)):
                if name not in self.action_nodes:
                    self.error(asp, f"there is no action `{name}`", did_you_mean(name, self.action_nodes))
                    ok = False
                else:
                    self.calls[self.current_key].add(("action", name))
            if not ok:
                return None
            return m.ChooseTogether(who, tuple(s.actions), u.alloc(2), span=sp)
        if isinstance(s, n.Nothing):
            return m.NoOp(span=sp)
        if isinstance(s, n.Unavailable):
            return m.Refuse(s.message, span=sp)
        if isinstance(s, n.WhenBroken):
            self.error(sp, "`when … is broken` is only for the rules of an action")
            return None
        if isinstance(s, n.Require):
            where = "an action" if u.kind == "action" else f"{u.kind} `{u.name}`"
            self.error(sp, f"`require` must come first in an action, before anything happens (found in {where})",
                       "move it to the top of the action; phases decide with `if`")
            return None
        if isinstance(s, n.If):
            branches = []
            for cond, body in s.branches:
                c = self.expr(cond, u)
                self.expect(c, "bool", cond, "the condition of `if`")
                branches.append((c, self.scoped_block(body, u, {})))
            return m.IfStmt(tuple(branches), self.scoped_block(s.otherwise, u, {}), span=sp)
        if isinstance(s, n.Repeat):
            e = None
            slot = -1
            if s.kind == "times":
                e = self.expr(s.expr, u)
                self.expect(e, "number", s.expr, "the number of repeats")
                slot = u.alloc()
            elif s.kind in ("while", "until"):
                e = self.expr(s.expr, u)
                self.expect(e, "bool", s.expr, f"the condition of `repeat {s.kind}`")
            body = self.scoped_block(s.body, u, {})
            return m.RepeatStmt(s.kind, e, slot, body, span=sp)
        if isinstance(s, n.ForEach):
            if s.source is None:
                plural = _PLURAL.get(s.var)
                if plural is None:
                    self.error(sp, f"say what to go through: `for each {s.var} in …`")
                    return None
                coll = self.expr(n.Name(plural, span=sp), u)
            else:
                coll = self.expr(s.source, u)
            if coll.type == ERR:
                elem = ERR
            elif coll.type.is_collection:
                elem = coll.type.element
            elif coll.type.kind == "list":
                elem = coll.type.element or m.NUMBER
            else:
                self.error(s.source.span if s.source else sp, f"`for each` goes through a collection or a list, not {coll.type}")
                elem = ERR
            var_slot = u.alloc()
            list_slot = u.alloc(2)
            body = self.scoped_block(s.body, u, {s.var: m.Local(var_slot, elem, s.var)})
            return m.ForEachStmt(var_slot, coll, list_slot, body, span=sp)
        if isinstance(s, n.RuleBlock):
            return m.RuleStmt(s.name, self.scoped_block(s.body, u, {}), span=sp)
        raise AssertionError(s)  # pragma: no cover

    def expect_cards(self, e: m.Expr, src: n.Expr, what: str) -> None:
        t = e.type
        if t == ERR or t.kind == "card" or (t.is_collection and t.element.kind == "card"):
            return
        self.error(src.span, f"{what} must be a card or cards, not {t}")

    def zone_lvalue(self, e: n.Expr, u: _Unit) -> Optional[m.Expr]:
        """A zone cards can be put in: a zone variable, the game's or a player's."""
        if isinstance(e, n.Call) and e.func in self.gvars and self.gvars[e.func].family:
            r = self.zone_at(e, u)
            return r if r.type != ERR else None
        if isinstance(e, n.Name) and e.name in self.gvars and self.gvars[e.name].family:
            self.error(e.span, f"`{e.name}` is a family of zones: name one, as in `{e.name}({self.gvars[e.name].family[0]})`")
            return None
        if isinstance(e, n.Name) and e.name in self.gvars:
            v = self.gvars[e.name]
            if v.type.kind != "zone":
                self.error(e.span, f"`{e.name}` is {v.type}, not a zone of cards")
                return None
            return m.GameVar(v.slot, v.type, v.name, span=e.span)
        if isinstance(e, (n.Your, n.Possessive)):
            r = self.expr(e, u)
            if r.type == ERR:
                return None
            if isinstance(r, m.PlayerVar) and r.type.kind == "zone":
                return r
            self.error(e.span, f"`{e.name}` is {r.type}, not a zone of cards")
            return None
        if isinstance(e, n.Name) and e.name in self.pvars:
            self.error(e.span, f"`{e.name}` belongs to each player", f"write `your {e.name}` or `PLAYER's {e.name}`")
            return None
        zones = [v for v, var in list(self.gvars.items()) if var.type.kind == "zone"]
        zones += [v for v, var in self.pvars.items() if var.type.kind == "zone"]
        name = getattr(e, "name", None)
        self.error(e.span, "cards go into a zone, such as `discard` or `your hand`",
                   did_you_mean(name, zones) if isinstance(name, str) else None)
        return None

    def describe_target(self, e: n.Expr) -> str:
        if isinstance(e, n.Name):
            return f"`{e.name}`"
        if isinstance(e, n.Your):
            return f"`your {e.name}`"
        if isinstance(e, n.Possessive):
            return f"`{e.name}`"
        return "that"

    def lvalue(self, e: n.Expr, u: _Unit) -> Optional[m.Expr]:
        if isinstance(e, n.Name):
            if e.name in self.gvars:
                v = self.gvars[e.name]
                if v.family:
                    self.error(e.span, f"`{e.name}` is a family of zones: put cards in them with `move`")
                    return None
                return m.GameVar(v.slot, v.type, v.name, span=e.span)
            if e.name in self.options:
                self.error(e.span, f"`{e.name}` is an option: it is chosen when the game starts and cannot change")
                return None
            if e.name in self.pvars:
                self.error(e.span, f"`{e.name}` belongs to each player", f"write `your {e.name}` or `PLAYER's {e.name}`")
                return None
            for sc in reversed(u.scopes):
                if e.name in sc:
                    self.error(e.span, f"`{e.name}` names a player or a thing here and cannot be changed")
                    return None
            self.error(e.span, f"there is no variable `{e.name}`", did_you_mean(e.name, list(self.gvars) + list(self.pvars)))
            return None
        if isinstance(e, (n.Your, n.Possessive)):
            r = self.expr(e, u)
            if isinstance(r, m.PlayerVar):
                return r
            if r.type != ERR:
                self.error(e.span, f"`{e.name}` cannot be changed: only variables declared with `each player has` can")
            return None
        self.error(e.span, "only a variable can be changed here")
        return None

    # ---- expressions ----------------------------------------------------------------------------

    def expect(self, e: m.Expr, kind: str, src: n.Expr, what: str) -> bool:
        if e.type == ERR or e.type.kind == kind:
            return True
        want = {"number": "a number", "bool": "yes or no (a condition)", "player": "a player"}.get(kind, kind)
        self.error(getattr(src, "span", None), f"{what} must be {want}, not {e.type}")
        return False

    def compatible(self, t: m.Type, e: m.Expr, src: n.Expr, what: str) -> bool:
        if e.type == ERR or t == ERR or e.type == t:
            return True
        self.error(getattr(src, "span", None), f"{what} is {t}; this is {e.type}")
        return False

    def expr(self, e: n.Expr, u: _Unit, expected: Optional[m.Type] = None) -> m.Expr:
        try:
            return self._expr(e, u, expected)
        except RecursionError:
            self.error(getattr(e, "span", None), "this expression is nested too deeply")
            return self.bad(getattr(e, "span", None))

    def _expr(self, e: n.Expr, u: _Unit, expected: Optional[m.Type] = None) -> m.Expr:
        sp = e.span
        if isinstance(e, n.Number):
            return m.Const(e.value, m.NUMBER, span=sp)
        if isinstance(e, n.Boolean):
            return m.Const(e.value, m.BOOL, span=sp)
        if isinstance(e, n.Text):
            return m.Const(e.value, m.TEXT, span=sp)
        if isinstance(e, n.Nobody):
            return m.Const(None, m.PLAYER, span=sp)
        if isinstance(e, n.You):
            if u.you is None:
                self.error(sp, "`you` only means something in an action, a score, or a define about a player",
                           "in a phase, name the player, as in `roller`")
                return self.bad(sp)
            return m.Local(u.you, m.PLAYER, "you", span=sp)
        if isinstance(e, n.It):
            if not u.elems:
                self.error(sp, "`it` only means something inside `where`, `every`, `any`, `no` or `with the highest`")
                return self.bad(sp)
            el = u.elems[-1]
            return m.Local(el.slot, el.type, "it", span=sp)
        if isinstance(e, n.Name):
            return self.name(e, u, expected)
        if isinstance(e, n.Your):
            if u.you is None:
                self.error(sp, f"`your {e.name}`: there is no `you` here",
                           f"`your` means the player an action, score or define is about; in a phase write `PLAYER's {e.name}`")
                return self.bad(sp)
            return self.player_attr(e.name, m.Local(u.you, m.PLAYER, "you"), sp)
        if isinstance(e, (n.Possessive, n.AttrOf)):
            target_src = e.owner if isinstance(e, n.Possessive) else e.target
            target = self.expr(target_src, u)
            return self.attr(e.name, target, sp, u)
        if isinstance(e, n.Beside):
            p = self.expr(e.player, u)
            self.expect(p, "player", e.player, "`left of`/`right of`")
            return m.Beside(p, e.offset, span=sp)
        if isinstance(e, n.Call):
            return self.call(e, u)
        if isinstance(e, n.BinOp):
            return self.binop(e, u)
        if isinstance(e, n.Not):
            x = self.expr(e.operand, u)
            self.expect(x, "bool", e.operand, "what `not` applies to")
            return m.Not(x, span=sp)
        if isinstance(e, n.Negate):
            x = self.expr(e.operand, u)
            self.expect(x, "number", e.operand, "what `-` applies to")
            return m.Negate(x, span=sp)
        if isinstance(e, n.IfExpr):
            t = self.expr(e.test, u)
            self.expect(t, "bool", e.test, "the condition of `if`")
            a = self.expr(e.then, u, expected)
            b = self.expr(e.otherwise, u, expected if expected else a.type)
            if ERR in (a.type, b.type):
                return m.IfExpr(t, a, b, ERR, span=sp)
            if a.type != b.type:
                if {a.type, b.type} == {m.PLAYER, m.PLAYERS}:
                    a = m.Singleton(a, span=a.span) if a.type == m.PLAYER else a
                    b = m.Singleton(b, span=b.span) if b.type == m.PLAYER else b
                else:
                    self.error(sp, f"the two sides of this `if … then … otherwise …` differ: {a.type} and {b.type}")
                    return m.IfExpr(t, a, b, ERR, span=sp)
            return m.IfExpr(t, a, b, a.type, span=sp)
        if isinstance(e, n.Shows):
            d = self.expr(e.thing, u)
            self.expect(d, "die", e.thing, "what `shows` applies to")
            self.face(e.face, sp)
            return m.DieShows(d, e.face, span=sp)
        if isinstance(e, n.Quantified):
            if e.source is not None:
                coll = self.expr(e.source, u)
            else:
                plural = _PLURAL.get(e.var)
                if plural is None:
                    self.error(sp, f"say what to look through: `{e.quantifier} {e.var} in …`")
                    return self.bad(sp)
                coll = self.expr(n.Name(plural, span=sp), u)
            elem = self.elem_type(coll, e.source or e, f"`{e.quantifier}`")
            slot = u.alloc()
            el = m.Local(slot, elem, e.var)
            u.scopes.append({e.var: el})
            u.elems.append(el)
            try:
                if e.face is not None:
                    if elem not in (m.DIE, ERR):
                        self.error(sp, f"only dice show faces; these are {coll.type}")
                    self.face(e.face, sp)
                    cond = m.DieShows(el, e.face)
                else:
                    cond = self.expr(e.condition, u)
                    self.expect(cond, "bool", e.condition, "the condition")
            finally:
                u.scopes.pop()
                u.elems.pop()
            return m.Quantified(e.quantifier, coll, slot, cond, span=sp)
        if isinstance(e, n.Showing):
            coll = self.expr(e.collection, u)
            elem = self.elem_type(coll, e.collection, "`showing`")
            if elem not in (m.DIE, ERR):
                self.error(e.collection.span, f"only dice show faces; this is {coll.type}")
            self.face(e.face, sp)
            slot = u.alloc()
            return m.Filter(coll, slot, m.DieShows(m.Local(slot, m.DIE), e.face), coll.type, span=sp)
        if isinstance(e, n.Where):
            coll, slot, cond = self.each_element(e.collection, e.condition, u, "`where`")
            self.expect(cond, "bool", e.condition, "the condition of `where`")
            return m.Filter(coll, slot, cond, _as_coll(coll.type), span=sp)
        if isinstance(e, n.WithBest):
            coll, slot, key = self.each_element(e.collection, e.key, u, "`with the highest`")
            self.expect(key, "number", e.key, "what is compared")
            if coll.type == m.LIST:
                self.error(sp, "`with the highest` picks among things; for numbers use `max(…)`")
                return self.bad(sp)
            return m.Best(coll, slot, key, e.highest, _as_coll(coll.type), span=sp)
        if isinstance(e, n.OtherThan):
            coll = self.expr(e.collection, u)
            elem = self.elem_type(coll, e.collection, "`other than`")
            x = self.expr(e.excluded, u)
            if x.type != ERR and elem != ERR and x.type != elem and x.type != coll.type:
                self.error(e.excluded.span, f"`other than` leaves out {elem}, not {x.type}")
            return m.Exclude(coll, x, _as_coll(coll.type), span=sp)
        if isinstance(e, n.StartingWith):
            coll = self.expr(e.collection, u)
            if coll.type not in (m.PLAYERS, ERR):
                self.error(e.collection.span, f"only players have a turn order to start from; this is {coll.type}")
            f = self.expr(e.first, u)
            self.expect(f, "player", e.first, "the first player")
            return m.Rotate(coll, f, coll.type, span=sp)
        if isinstance(e, n.Going):
            coll = self.expr(e.collection, u)
            if coll.type not in (m.PLAYERS, ERR):
                self.error(e.collection.span, f"only players go round the table; this is {coll.type}")
            dkey = _domain_key(_DIRECTION_CHOICES)
            d = self.expr(e.direction, u, expected=m.symbol_type(dkey))
            if d.type != ERR and d.type != m.symbol_type(dkey):
                self.error(e.direction.span, f"`going` takes clockwise or counterclockwise, not {d.type}")
            return m.Direction(coll, d, coll.type, span=sp)
        raise AssertionError(e)  # pragma: no cover

    def each_element(self, coll_src: n.Expr, body_src: n.Expr, u: _Unit, what: str):
        """Check `body_src` once per element of `coll_src` (bound as `it`, its values named bare):
        (the collection, the element's slot, the body)."""
        coll = self.expr(coll_src, u)
        elem = self.elem_type(coll, coll_src, what)
        slot = u.alloc()
        u.elems.append(m.Local(slot, elem, "it"))
        try:
            body = self.expr(body_src, u)
        finally:
            u.elems.pop()
        return coll, slot, body

    def elem_type(self, coll: m.Expr, src, what: str) -> m.Type:
        if coll.type == ERR:
            return ERR
        if coll.type.is_collection:
            return coll.type.element
        if coll.type.kind == "list":
            return coll.type.element or m.NUMBER
        self.error(getattr(src, "span", None), f"{what} needs a collection, not {coll.type}")
        return ERR

    def face(self, name: str, span) -> None:
        if self.dice_node is None:
            self.error(span, "the rules have no dice", "declare them, as in `dice: 2 with faces 1, 2, 3, 4, 5, 6`")
        elif name not in self.face_kinds:
            self.error(span, f"no die has a face `{name}`", did_you_mean(name, self.face_kinds))

    def name(self, e: n.Name, u: _Unit, expected: Optional[m.Type]) -> m.Expr:
        nm, sp = e.name, e.span
        for sc in reversed(u.scopes):
            if nm in sc:
                loc = sc[nm]
                return m.Local(loc.slot, loc.type, nm, span=sp)
        for el in reversed(u.elems):
            r = self.elem_attr(nm, m.Local(el.slot, el.type, "it"), el.type, sp)
            if r is not None:
                return r
        if expected is not None and expected.kind == "symbol" and nm in self.symbols.get(expected.domain, ()):
            return m.Const(nm, expected, span=sp)
        if nm in self.gvars:
            v = self.gvars[nm]
            if v.family:
                # a family's bare name is its numbers: `for each r in rows`, `one of rows`
                lo, count = v.family
                return m.Const(tuple(range(lo, lo + count)), m.LIST, span=sp)
            return m.GameVar(v.slot, v.type, nm, span=sp)
        if nm in self.options:
            o = self.options[nm]
            return m.GameVar(o.slot, o.type, nm, span=sp)
        if nm in self.define_nodes and self.define_nodes[nm].params:
            ps = ", ".join(p for p, _ in self.define_nodes[nm].params)
            self.error(sp, f"`{nm}` takes {ps}: write `{nm}({ps})`")
            return self.bad(sp)
        if nm == "circles" and self.board_node is not None and nm not in self.gvars:
            return m.Const(tuple(range(self.board_node.low, self.board_node.high + 1)), m.LIST, span=sp)
        if nm in self.define_nodes:
            if self.is_per_player(nm):
                if u.you is not None:
                    # inside a rule about one player, another fact about a player means theirs
                    d = self.define(nm, sp)
                    if d is None:
                        return self.bad(sp)
                    return m.DefineRef(nm, m.Local(u.you, m.PLAYER, "you"), d.type, span=sp)
                self.error(sp, f"`{nm}` is worked out for one player at a time", f"write `your {nm}` or `PLAYER's {nm}`")
                return self.bad(sp)
            d = self.define(nm, sp)
            if d is None:
                return self.bad(sp)
            return m.DefineRef(nm, None, d.type, span=sp)
        if nm == "players":
            return m.AllPlayers(span=sp)
        if nm == "dice":
            if self.dice_node is None:
                self.error(sp, "the rules have no dice", "declare them, as in `dice: 2 with faces 1, 2, 3, 4, 5, 6`")
                return self.bad(sp)
            return m.AllDice(span=sp)
        if nm == "winners":
            return m.WinnersRef(span=sp)
        if nm in self.card_sets:
            return m.AllCards(nm, m.cards_type(nm), span=sp)
        if nm in self.symbol_domains:
            return m.Const(nm, m.symbol_type(self.symbol_domains[nm][0]), span=sp)
        if nm in self.pvars or nm == "score":
            self.error(sp, f"`{nm}` belongs to each player", f"write `your {nm}` or `PLAYER's {nm}`")
            return self.bad(sp)
        if nm in self.action_nodes or nm in self.phase_nodes:
            kind = "an action" if nm in self.action_nodes else "a phase"
            self.error(sp, f"`{nm}` is {kind}, not a value")
            return self.bad(sp)
        hint = did_you_mean(nm, self.all_names(u))
        if hint is None and u.elems and u.elems[-1].type == m.NUMBER and nm in _DIE_ATTRS:
            hint = "this filters numbers, which have no attributes; filter the things first, as in `value of (dice where …)`"
        self.error(sp, f"unknown name `{nm}`", hint)
        return self.bad(sp)

    def elem_attr(self, nm: str, el: m.Local, t: m.Type, sp) -> Optional[m.Expr]:
        if t.kind == "player":
            if nm in self.pvars or nm in ("score", "seat") or (nm in self.define_nodes and self.is_per_player(nm)):
                return self.player_attr(nm, el, sp)
        elif t.kind == "die":
            if nm in _DIE_ATTRS:
                return m.DieAttr(el, nm, _DIE_ATTRS[nm], span=sp)
        elif t.kind == "card":
            sets = [t.domain] if t.domain else list(self.card_sets)
            if any(a == nm for s_ in sets for a, _ in self.card_sets[s_].attrs):
                return self.card_attr(nm, el, sp)
        return None

    def attr(self, nm: str, target: m.Expr, sp, u: _Unit) -> m.Expr:
        t = target.type
        if t == ERR:
            return self.bad(sp)
        if t == m.PLAYER:
            return self.player_attr(nm, target, sp)
        if t == m.DIE:
            if nm not in _DIE_ATTRS:
                self.error(sp, f"a die has no `{nm}`", did_you_mean(nm, _DIE_ATTRS) or "a die has a face, a value and a number")
                return self.bad(sp)
            return m.DieAttr(target, nm, _DIE_ATTRS[nm], span=sp)
        if t.kind == "card":
            return self.card_attr(nm, target, sp)
        if t.is_collection:
            slot = u.alloc()
            el = m.Local(slot, t.element)
            inner = self.attr(nm, el, sp, u)
            if inner.type == ERR:
                return inner
            if inner.type.kind == "symbol":
                return m.Project(target, slot, inner, m.Type("list", element=inner.type), span=sp)
            if inner.type != m.NUMBER:
                self.error(sp, f"`{nm} of …` over many things gives a list of numbers, but `{nm}` is {inner.type}",
                           "to compare one thing's attribute, take one thing first, as in `" + nm + " of first(…)`")
                return self.bad(sp)
            return m.Project(target, slot, inner, span=sp)
        self.error(sp, f"{t} has no `{nm}`")
        return self.bad(sp)

    def card_attr(self, nm: str, c: m.Expr, sp) -> m.Expr:
        sets = [c.type.domain] if c.type.domain else list(self.card_sets)
        types = {t for s_ in sets for a, t in self.card_sets[s_].attrs if a == nm}
        if not types:
            cands = [a for s_ in sets for a, _ in self.card_sets[s_].attrs]
            what = f"a {c.type.domain} card" if c.type.domain else "a card"
            self.error(sp, f"{what} has no `{nm}`", did_you_mean(nm, cands) or ("its attributes: " + ", ".join(dict.fromkeys(cands))))
            return self.bad(sp)
        return m.CardAttr(c, nm, types.pop(), span=sp)

    def player_attr(self, nm: str, p: m.Expr, sp) -> m.Expr:
        if nm in self.pvars:
            v = self.pvars[nm]
            return m.PlayerVar(p, v.slot, v.type, nm, span=sp)
        if nm == "score":
            return m.ScoreOf(p, span=sp)
        if nm == "seat":
            return m.Seat(p, span=sp)
        if nm in self.define_nodes:
            if not self.is_per_player(nm):
                self.error(sp, f"`{nm}` is the same for every player", f"write just `{nm}`")
                return self.bad(sp)
            d = self.define(nm, sp)
            if d is None:
                return self.bad(sp)
            return m.DefineRef(nm, p, d.type, span=sp)
        cands = list(self.pvars) + ["score", "seat"] + [d for d in self.define_nodes if self.is_per_player(d)]
        self.error(sp, f"a player has no `{nm}`", did_you_mean(nm, cands))
        return self.bad(sp)

    def zone_at(self, e: n.Call, u: _Unit) -> m.Expr:
        v = self.gvars[e.func]
        if len(e.args) != 1:
            self.error(e.span, f"one zone of `{e.func}` is named by one number, as in `{e.func}({v.family[0]})`")
            return self.bad(e.span)
        i = self.expr(e.args[0], u)
        self.expect(i, "number", e.args[0], f"the number of a zone of `{e.func}`")
        lo, count = v.family
        return m.ZoneAt(v.slot, lo, count, i, e.func, v.type, span=e.span)

    def call(self, e: n.Call, u: _Unit) -> m.Expr:
        f, sp = e.func, e.span
        if f in self.gvars and self.gvars[f].family:
            return self.zone_at(e, u)
        if f in self.define_nodes and self.define_nodes[f].params:
            d = self.define(f, sp)
            args = [self.expr(a, u) for a in e.args]
            if d is None:
                return self.bad(sp)
            if len(args) != len(d.params):
                self.error(sp, f"`{f}` takes {len(d.params)}, not {len(args)}: " + ", ".join(p for p, _ in d.params))
                return self.bad(sp)
            for a, src, (pname, pt) in zip(args, e.args, d.params):
                if a.type != ERR and a.type.kind != pt.kind:
                    self.error(src.span, f"`{pname}` of `{f}` is {pt}, not {a.type}")
            return m.DefineRef(f, None, d.type, span=sp, args=tuple(args))
        if f not in BUILTINS:
            hint = did_you_mean(f, BUILTINS) or ("the functions are " + ", ".join(BUILTINS))
            self.error(sp, f"unknown function `{f}`", hint)
            for a in e.args:
                self.expr(a, u)
            return self.bad(sp)
        args = [self.expr(a, u) for a in e.args]
        if any(a.type == ERR for a in args):
            return self.bad(sp)
        kinds = [a.type.kind for a in args]

        def arity(k: int) -> bool:
            if len(args) != k:
                self.error(sp, f"`{f}` takes {k} {'thing' if k == 1 else 'things'}, not {len(args)}", f"`{f}` takes {BUILTINS[f]}")
                return False
            return True

        if f in ("first", "last"):
            if not arity(1):
                return self.bad(sp)
            t = args[0].type
            if t.is_collection:
                return m.Builtin(f, tuple(args), t.element, span=sp)
            if t.kind == "list":
                return m.Builtin(f, tuple(args), t.element or m.NUMBER, span=sp)
            self.error(e.args[0].span, f"`{f}` takes a collection or a list, not {t}")
            return self.bad(sp)
        if f == "top":
            if not arity(2):
                return self.bad(sp)
            t = args[1].type
            if kinds[0] != "number" or not (t.is_collection or t.kind == "list"):
                self.error(sp, "`top` takes how many and a zone, collection or list, as in `top(2, deck)`")
                return self.bad(sp)
            rt = m.Type("collection", element=t.element) if t.is_collection else t
            return m.Builtin(f, tuple(args), rt, span=sp)
        if f == "distinct":
            if not arity(1):
                return self.bad(sp)
            if kinds[0] != "list":
                self.error(sp, "`distinct` takes a list, as in `distinct(colour of taken)`")
                return self.bad(sp)
            return m.Builtin(f, tuple(args), args[0].type, span=sp)
        if f in ("adjacent", "slide"):
            if self.board_node is None:
                self.error(sp, f"`{f}` needs a board", "declare one: `board: circles from 1 to 9` with its lines below")
                return self.bad(sp)
            if not arity(1 if f == "adjacent" else 2):
                return self.bad(sp)
            if kinds[0] != "number" or (f == "slide" and args[1].type != m.LIST):
                self.error(sp, f"`{f}` takes {BUILTINS[f]}")
                return self.bad(sp)
            return m.Builtin(f, tuple(args), m.LIST, span=sp)
        if f == "divide":
            if not arity(2):
                return self.bad(sp)
            if kinds != ["number", "number"]:
                self.error(sp, "`divide` takes two numbers")
                return self.bad(sp)
            return m.Builtin(f, tuple(args), m.NUMBER, span=sp)
        if f == "count":
            if not arity(1):
                return self.bad(sp)
            if kinds[0] not in ("collection", "list", "zone"):
                self.error(e.args[0].span, f"`count` counts a collection or a list, not {args[0].type}")
                return self.bad(sp)
            return m.Builtin(f, tuple(args), m.NUMBER, span=sp)
        if f in ("sum", "abs"):
            if not arity(1):
                return self.bad(sp)
            want = "list" if f == "sum" else "number"
            if kinds[0] != want or (f == "sum" and args[0].type != m.LIST):
                hint = "take a number from each first, as in `sum(value of dice)`" if kinds[0] == "collection" else None
                self.error(e.args[0].span, f"`{f}` takes {m.LIST if f == 'sum' else m.NUMBER}, not {args[0].type}", hint)
                return self.bad(sp)
            return m.Builtin(f, tuple(args), m.NUMBER, span=sp)
        if f in ("min", "max"):
            if len(args) == 0:
                self.error(sp, f"`{f}` needs something to compare")
                return self.bad(sp)
            if len(args) == 1:
                if args[0].type != m.LIST:
                    self.error(e.args[0].span, f"`{f}` of one thing takes a list of numbers, not {args[0].type}")
                    return self.bad(sp)
            else:
                for a, src in zip(args, e.args):
                    if a.type != m.NUMBER:
                        self.error(src.span, f"`{f}` compares numbers, not {a.type}")
                        return self.bad(sp)
            return m.Builtin(f, tuple(args), m.NUMBER, span=sp)
        if f in ("largest", "smallest"):
            if not arity(2):
                return self.bad(sp)
            if kinds[0] != "number" or args[1].type != m.LIST:
                self.error(sp, f"`{f}` takes how many and a list of numbers, as in `{f}(3, value of dice)`")
                return self.bad(sp)
            return m.Builtin(f, tuple(args), m.LIST, span=sp)
        raise AssertionError(f)  # pragma: no cover

    def binop(self, e: n.BinOp, u: _Unit) -> m.Expr:
        op, sp = e.op, e.span
        if op in ("and", "or"):
            a, b = self.expr(e.left, u), self.expr(e.right, u)
            self.expect(a, "bool", e.left, f"each side of `{op}`")
            self.expect(b, "bool", e.right, f"each side of `{op}`")
            return m.BinOp(op, a, b, m.BOOL, span=sp)
        if op in ("+", "-", "*"):
            a, b = self.expr(e.left, u), self.expr(e.right, u)
            ok = self.expect(a, "number", e.left, f"each side of `{op}`") & self.expect(b, "number", e.right, f"each side of `{op}`")
            return m.BinOp(op, a, b, m.NUMBER if ok else ERR, span=sp)
        if op in ("<", "<=", ">", ">="):
            a, b = self.expr(e.left, u), self.expr(e.right, u)
            self.expect(a, "number", e.left, f"each side of `{op}`")
            self.expect(b, "number", e.right, f"each side of `{op}`")
            return m.BinOp(op, a, b, m.BOOL, span=sp)
        if op in ("=", "!=", "is", "is not"):
            # Check the side that is not a bare symbol first, so the symbol is read in its domain.
            left_first = not (isinstance(e.left, n.Name) and e.left.name in self.symbol_domains)
            if left_first:
                a = self.expr(e.left, u)
                b = self.expr(e.right, u, expected=a.type)
            else:
                b = self.expr(e.right, u)
                a = self.expr(e.left, u, expected=b.type)
            mop = "=" if op in ("=", "is") else "!="
            if ERR not in (a.type, b.type) and a.type != b.type:
                hint = None
                if a.type.kind == "symbol" or b.type.kind == "symbol":
                    sym = a if a.type.kind == "symbol" else b
                    other = b if sym is a else a
                    if other.type.kind == "symbol":
                        hint = "the choices are " + ", ".join(self.symbols.get(other.type.domain, ()))
                self.error(sp, f"cannot compare {a.type} with {b.type}", hint)
            return m.BinOp(mop, a, b, m.BOOL, span=sp)
        if op in ("in", "not in"):
            b = self.expr(e.right, u)
            elem = self.elem_type(b, e.right, f"`{op}`")
            a = self.expr(e.left, u, expected=elem if elem != ERR else None)
            if ERR not in (a.type, elem) and a.type != elem:
                self.error(sp, f"{b.type} cannot hold {a.type}")
            return m.BinOp("in" if op == "in" else "notin", a, b, m.BOOL, span=sp)
        raise AssertionError(op)  # pragma: no cover


def _as_coll(t: m.Type) -> m.Type:
    """A filtered zone is no longer a zone (cards cannot be moved into it): just cards."""
    if t.kind == "zone":
        return m.Type("collection", element=t.element)
    return t


def _walk(e):
    """Every syntax node below (and including) an expression."""
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        yield x
        if isinstance(x, (n.Number, n.Text, n.Boolean, n.Nobody, n.You, n.It, n.Name, n.Your)):
            continue
        for field in attrs_fields(x):
            v = getattr(x, field)
            if isinstance(v, tuple):
                stack.extend(i for i in v if isinstance(i, n.Expr))
            elif isinstance(v, n.Expr):
                stack.append(v)


def attrs_fields(x) -> list[str]:
    import attrs

    return [f.name for f in attrs.fields(type(x)) if f.name != "span"]


def check(items: list, variants: tuple[str, ...] = (), source_names: tuple[str, ...] = ()) -> m.Model:
    """Check the items of a resolved rule set; raise `RuleError` with every problem found."""
    return _Checker(items, variants, source_names).run()
