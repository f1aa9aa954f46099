"""The checker, declarations: options, dice, cards, boards, variables and their visibility, scores
and winners."""

from __future__ import annotations

from typing import Optional

from .. import model as m
from .. import nodes as n
from ..limits import (
    MAX_BOARD_LINE_CIRCLES, MAX_CARDS, MAX_CIRCLES, MAX_DICE, MAX_FACES, MAX_LINE_CIRCLES, MAX_ZONES,
)
from .core import (
    ERR,
    _domain_key,
    _Unit,
)


class Declarations:
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
                self.error(e.span, f"`{e.name}` is not one of the choices of {what}", self.suggest(e.name, choices))
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
                self.error(spec.span, f"there are no cards `{spec.of}`", self.suggest(spec.of, self.card_sets, "cards"))
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
        if len(d.faces) > MAX_FACES:
            self.error(d.span, f"dice of {len(d.faces):,} faces: a die has at most {MAX_FACES:,} faces",
                       "see the limits in the language reference")
        for f in d.faces[:MAX_FACES]:
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
        if isinstance(count, m.Const) and isinstance(count.value, int) and not (0 <= count.value <= MAX_DICE):
            self.error(d.count.span, f"{count.value:,} dice: a game rolls 0 to {MAX_DICE:,} dice")
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
        # Counted before a single card is built: `x 1000000000` is refused at once.
        count = 1
        for a in c.attrs:
            count *= sum(max(k, 0) for _, k in a.values)
        if len(self.cards) + count > MAX_CARDS:
            self.error(c.span, f"more than {MAX_CARDS:,} cards in all", "see the limits in the language reference")
            return
        combos = [()]
        for a in c.attrs:
            combos = [prev + ((a.name, v),) for prev in combos for v, k in a.values for _ in range(k)]
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
        if b.high < b.low or b.high - b.low >= MAX_CIRCLES:
            self.error(b.span, f"`circles from {b.low} to {b.high}` must number 1 to {MAX_CIRCLES:,} circles")
            return None
        on_lines = 0
        for i, line in enumerate(b.lines):
            where = b.line_spans[i] if i < len(b.line_spans) else b.span
            on_lines += len(line)
            if on_lines > MAX_BOARD_LINE_CIRCLES:
                self.error(where, f"the lines of the board pass through more than {MAX_BOARD_LINE_CIRCLES:,} circles in all "
                           "(a circle counted once for every line through it)", "see the limits in the language reference")
                return None
            if len(line) > MAX_LINE_CIRCLES:
                self.error(where, f"a line passes through {len(line):,} circles; a line passes through at most "
                           f"{MAX_LINE_CIRCLES:,}", "split it into shorter lines")
                continue
            bad = [x for x in line if not (b.low <= x <= b.high)]
            if bad:
                self.error(where, f"line {', '.join(map(str, line))} names circle {bad[0]}, but the circles are {b.low} to {b.high}")
            if len(set(line)) != len(line):
                self.error(where, f"line {', '.join(map(str, line))} passes through a circle twice")
        # one tuple, shared by every rule that reads `circles`
        self.circles = m.Const(tuple(range(b.low, b.high + 1)), m.LIST, span=b.span)
        return m.Board(b.low, b.high, b.lines, span=b.span)

    def only_options(self, e: n.Expr, what: str) -> None:
        """`what` is computed when the game starts, so it may use numbers, choices and options only."""
        # (of several, the one named is the first a stack's walk comes to: see `fishrules.walk`)
        bad = [x for x in e.find_all(n.Name, last_first=True) if x.name not in self.options and x.name not in self.symbol_domains]
        bad += list(e.find_all((n.Your, n.Possessive, n.Call, n.You), last_first=True))
        if bad:
            self.error(bad[0].span, f"{what} is fixed when the game starts: use numbers, choices and options only")

    def check_var(self, v: n.VarDecl, slot: int) -> Optional[m.Variable]:
        if v.name in self.gvars or v.name in self.pvars or v.name in self.options:
            self.error(v.span, f"`{v.name}` is declared twice")
            return None
        if isinstance(v.type, n.ZonesType):
            lo, hi = self.static_int(v.type.low), self.static_int(v.type.high)
            if lo is None or hi is None:
                self.error(v.type.span, "a family of zones is numbered with plain numbers, as in `zones from 1 to 3`")
                return None
            if hi < lo or hi - lo >= MAX_ZONES:
                self.error(v.type.span, f"`zones from {lo} to {hi}` must number 1 to {MAX_ZONES:,} zones")
                return None
            if v.scope != "game":
                self.error(v.span, "a family of zones belongs to the game; give each player a single zone")
                return None
            if v.initial is not None:
                self.error(v.initial.span, "zones start empty; put cards in them with `move`")
            if v.type.of is not None and v.type.of not in self.card_sets:
                self.error(v.type.span, f"there are no cards `{v.type.of}`", self.suggest(v.type.of, self.card_sets, "cards"))
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
            # A choice with no starting value has none until a rule sets one (as a player is
            # `nobody`): a view shows null, not a choice nobody made.
            default = {"number": 0, "bool": False, "player": None, "list": (), "zone": ()}.get(t.kind)
            init = m.Const(default, t, span=v.span)
        else:
            init = self.expr(v.initial, u, expected=t)
            self.compatible(t, init, v.initial, f"the starting value of `{v.name}`")
            self.only_options(v.initial, f"the starting value of `{v.name}`")
        if isinstance(v.type, n.NumberType) and v.type.low is not None:
            self.warn(v.type.span, "a range on a variable is not enforced; only options check their range")
        vis = v.visibility
        if v.seen_by is not None and vis == "internal":
            self.error(v.seen_by.span, "an `internal` value is in nobody's view, so nobody can be said to see it")
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

