"""The checker, deals: a set-up that deals more cards than there are, found before anything is played.

A house rule that allows more players (`replace players 2 to 10`) checks as correct, and yet at
10 players the deck runs out and the last player never gets a card.  Here the start of the game is
played on paper, for every player count the rules allow: from `phase game` on, through the phases
it plays, every statement whose effect on how many cards each zone holds is certain — cards put in
a zone, moved from zone to zone, drawn; loops over the players or a known number of times; `if`s
whose condition is known (the number of players, options at their defaults, values set so far).
The paper game stops at the first thing it cannot know for certain (a player's choice, a loop until
something happens, cards picked by a condition), so it never warns about what it cannot see.

A draw that asks a zone for more cards than it holds at that point is the warning `short-deal`, at
the draw, for the most players the rules allow (the count a house rule changes), saying who gets
fewer cards and up to how many players the deal fits.  What the paper game cannot see, `simulate`
and `compare` count as they play (games that drew from an empty zone).
"""

from __future__ import annotations

from typing import Optional

from .. import model as m

#: Statements played on paper per player count before giving up (a long set-up is no deal).
_BUDGET = 20_000
#: Phases playing phases, on paper.
_DEPTH = 32


class _Unknown(Exception):
    """A value the paper game cannot know."""


class _Stop(Exception):
    """The paper game can go no further for certain."""


class _End(Exception):
    def __init__(self, phase: str):
        self.phase = phase


class _Paper:
    """The start of one game at `players` players, played on paper (cards counted, not named)."""

    def __init__(self, checker, players: int, phases: dict):
        self.c = checker
        self.n = players
        self.phases = phases
        self.zones: dict = {}  # zone key -> {card set: how many}
        self.values: dict = {}  # ("g", slot) / ("p", slot, player) -> a known value
        self.steps = 0
        self.players_loop: list[int] = []  # the players bound by the `for each` loops over players
        self.short: list[tuple] = []  # (draw statement, asked, had, player or None)
        for v in checker.gvars.values():
            if v.type.kind not in ("zone",) and not v.family:
                try:
                    self.values[("g", v.slot)] = self.value(v.initial, {})
                except _Unknown:
                    pass
        for v in checker.pvars.values():
            if v.type.kind != "zone":
                for p in range(players):
                    try:
                        self.values[("p", v.slot, p)] = self.value(v.initial, {})
                    except _Unknown:
                        pass

    # ---- values --------------------------------------------------------------------------------

    def value(self, e, local: dict, depth: int = 0):
        """The value of the expression `e`, if the paper game knows it for certain (else `_Unknown`).
        Dispatch is by node kind (`visit_<Node>`); a kind with no method is not known."""
        if depth > 60:
            raise _Unknown
        visit = getattr(self, "visit_" + type(e).__name__, None)
        if visit is None or not isinstance(e, m.Expr):
            raise _Unknown
        return visit(e, local, depth)

    def visit_Const(self, e: m.Const, local: dict, depth: int):
        return e.value

    def visit_Local(self, e: m.Local, local: dict, depth: int):
        if e.slot in local and local[e.slot] is not _UNKNOWN:
            return local[e.slot]
        raise _Unknown

    def visit_GameVar(self, e: m.GameVar, local: dict, depth: int):
        opt = self.c.option_slots().get(e.slot)
        if opt is not None:
            return opt.default
        key = ("g", e.slot)
        if key in self.values:
            return self.values[key]
        raise _Unknown

    def visit_PlayerVar(self, e: m.PlayerVar, local: dict, depth: int):
        p = self.value(e.player, local, depth + 1)
        key = ("p", e.slot, p)
        if key in self.values:
            return self.values[key]
        raise _Unknown

    def visit_DefineRef(self, e: m.DefineRef, local: dict, depth: int):
        d = self.c.defines.get(e.name)
        if d is None or d.per_player or d.params:
            raise _Unknown
        return self.value(d.expr, {}, depth + 1)

    def visit_Not(self, e: m.Not, local: dict, depth: int):
        return not self.value(e.operand, local, depth + 1)

    def visit_Negate(self, e: m.Negate, local: dict, depth: int):
        return -self.value(e.operand, local, depth + 1)

    def visit_IfExpr(self, e: m.IfExpr, local: dict, depth: int):
        branch = e.then if self.value(e.test, local, depth + 1) else e.otherwise
        return self.value(branch, local, depth + 1)

    def visit_Beside(self, e: m.Beside, local: dict, depth: int):
        p = self.value(e.player, local, depth + 1)
        if p is None:
            raise _Unknown
        return (p + e.offset) % self.n

    def visit_AllPlayers(self, e: m.AllPlayers, local: dict, depth: int):
        return tuple(range(self.n))

    def visit_BinOp(self, e: m.BinOp, local: dict, depth: int):
        op = e.op
        if op == "and":
            return bool(self.value(e.left, local, depth + 1)) and bool(self.value(e.right, local, depth + 1))
        if op == "or":
            return bool(self.value(e.left, local, depth + 1)) or bool(self.value(e.right, local, depth + 1))
        a, b = self.value(e.left, local, depth + 1), self.value(e.right, local, depth + 1)
        if op in ("+", "-", "*") and (not isinstance(a, int) or not isinstance(b, int)):
            raise _Unknown
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "=": lambda: a == b,
               "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b,
               ">=": lambda: a >= b}
        if op not in ops:
            raise _Unknown
        try:
            return ops[op]()
        except TypeError:
            raise _Unknown from None

    def visit_Builtin(self, e: m.Builtin, local: dict, depth: int):
        f, args = e.func, e.args
        if f == "count" and len(args) == 1:
            a = args[0]
            if isinstance(a, m.AllPlayers):
                return self.n
            if a.type.kind == "zone":
                return sum(self.zone(self.zone_key(a, local)).values())
            raise _Unknown
        if f in ("first", "last") and len(args) == 1 and isinstance(args[0], m.AllPlayers):
            return 0 if f == "first" else self.n - 1
        vals = [self.value(a, local, depth + 1) for a in args]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
            raise _Unknown
        if f == "divide" and len(vals) == 2 and vals[1]:
            return vals[0] // vals[1]
        if f == "min" and vals:
            return min(vals)
        if f == "max" and vals:
            return max(vals)
        if f == "abs" and len(vals) == 1:
            return abs(vals[0])
        raise _Unknown

    # ---- zones ---------------------------------------------------------------------------------

    def zone_key(self, e, local: dict) -> tuple:
        if isinstance(e, m.GameVar) and e.type.kind == "zone":
            return ("g", e.slot)
        if isinstance(e, m.PlayerVar) and e.type.kind == "zone":
            return ("p", e.slot, self.value(e.player, local))
        if isinstance(e, m.ZoneAt):
            i = self.value(e.index, local)
            if not isinstance(i, int) or not (e.low <= i < e.low + e.count):
                raise _Unknown
            return ("g", e.base + i - e.low)
        raise _Unknown

    def zone(self, key: tuple) -> dict:
        return self.zones.setdefault(key, {})

    def zone_name(self, e) -> str:
        return getattr(e, "name", "") or "the zone"

    # ---- statements ----------------------------------------------------------------------------

    def block(self, stmts, local: dict, depth: int) -> None:
        for s in stmts:
            self.steps += 1
            if self.steps > _BUDGET:
                raise _Stop
            self.stmt(s, local, depth)

    def stmt(self, s, local: dict, depth: int) -> None:
        try:
            self._stmt(s, local, depth)
        except _Unknown:
            raise _Stop from None

    def _stmt(self, s, local: dict, depth: int) -> None:
        """Play the statement `s` on paper (dispatch by node kind, `visit_<Node>`): a kind with no
        method (a choice, `play again`, `unavailable`) ends the paper game there."""
        visit = getattr(self, "visit_" + type(s).__name__, None)
        if visit is None or not isinstance(s, m.Stmt):
            raise _Stop
        visit(s, local, depth)

    def _nothing(self, s, local: dict, depth: int) -> None:
        """A statement that changes no count of cards."""

    visit_ShuffleZone = visit_RevealCards = visit_RollDice = visit_NoOp = _nothing

    def visit_RuleStmt(self, s: m.RuleStmt, local: dict, depth: int) -> None:
        self.block(s.body, local, depth)

    def visit_Assign(self, s: m.Assign, local: dict, depth: int) -> None:
        self.assign(s.target, local, lambda old: self.value(s.value, local))

    def visit_Change(self, s: m.Change, local: dict, depth: int) -> None:
        if s.op in ("increase", "decrease"):
            sign = 1 if s.op == "increase" else -1
            self.assign(s.target, local, lambda old: old + sign * self.value(s.value, local))
        else:
            self.assign(s.target, local, None)

    def visit_MoveCards(self, s: m.MoveCards, local: dict, depth: int) -> None:
        self.move(s, local)

    def visit_DrawCards(self, s: m.DrawCards, local: dict, depth: int) -> None:
        self.draw(s, local)

    def visit_IfStmt(self, s: m.IfStmt, local: dict, depth: int) -> None:
        for cond, body in s.branches:
            if self.value(cond, local):
                self.block(body, local, depth)
                return
        self.block(s.otherwise, local, depth)

    def visit_RepeatStmt(self, s: m.RepeatStmt, local: dict, depth: int) -> None:
        if s.kind != "times":
            raise _Stop
        times = self.value(s.expr, local)
        if not isinstance(times, int):
            raise _Stop
        for _ in range(max(0, times)):
            self.block(s.body, local, depth)

    def visit_ForEachStmt(self, s: m.ForEachStmt, local: dict, depth: int) -> None:
        items = self.value(s.collection, local) if not isinstance(s.collection, m.Rotate) else self.rotate(s.collection, local)
        if not isinstance(items, tuple):
            raise _Stop
        over_players = s.collection.type == m.PLAYERS
        for x in items:
            inner = dict(local)
            inner[s.var_slot] = x
            if over_players:
                self.players_loop.append(x)
            try:
                self.block(s.body, inner, depth)
            finally:
                if over_players:
                    self.players_loop.pop()

    def visit_CallPhase(self, s: m.CallPhase, local: dict, depth: int) -> None:
        phase = self.phases.get(s.phase)
        if phase is None or depth >= _DEPTH:
            raise _Stop
        inner: dict = {}
        if s.argument is not None:
            try:
                inner[0] = self.value(s.argument, local)
            except _Unknown:
                inner[0] = _UNKNOWN
        try:
            self.block(phase.body, inner, depth + 1)
        except _End as end:
            if end.phase != s.phase:
                raise

    def visit_EndPhase(self, s: m.EndPhase, local: dict, depth: int) -> None:
        if s.phase == "game":
            raise _Stop
        raise _End(s.phase)

    def rotate(self, e: m.Rotate, local: dict) -> tuple:
        items = self.value(e.collection, local)
        first = self.value(e.first, local)
        if not isinstance(items, tuple) or first not in items:
            raise _Unknown
        i = items.index(first)
        return items[i:] + items[:i]

    def assign(self, target, local: dict, new) -> None:
        if isinstance(target, m.GameVar):
            key: tuple = ("g", target.slot)
        elif isinstance(target, m.PlayerVar):
            try:
                key = ("p", target.slot, self.value(target.player, local))
            except _Unknown:
                # somebody's value changed: nobody's is known any more
                for k in [k for k in self.values if k[0] == "p" and k[1] == target.slot]:
                    del self.values[k]
                return
        else:
            return
        try:
            if new is None:
                raise _Unknown
            self.values[key] = new(self.values.get(key))
        except (_Unknown, TypeError):
            self.values.pop(key, None)

    def move(self, s: m.MoveCards, local: dict) -> None:
        to = self.zone_key(s.target, local)
        cards = s.cards
        if isinstance(cards, m.AllCards):
            cs = cards.card_set
            total = self.c.card_sets[cs].count
            for key, held in self.zones.items():
                held.pop(cs, None)
            self.zone(to)[cs] = total
            return
        key = self.zone_key(cards, local)  # a whole zone: every card of it
        if key == to:
            return
        src = self.zone(key)
        dest = self.zone(to)
        for cs, k in src.items():
            dest[cs] = dest.get(cs, 0) + k
        src.clear()

    def draw(self, s: m.DrawCards, local: dict) -> None:
        asked = self.value(s.count, local)
        if not isinstance(asked, int) or isinstance(asked, bool):
            raise _Stop
        src = self.zone(self.zone_key(s.source, local))
        dest = self.zone(self.zone_key(s.target, local))
        had = sum(src.values())
        if asked > had:
            self.short.append((s, asked, had, self.players_loop[-1] if self.players_loop else None))
        left = max(0, min(asked, had))
        for cs in sorted(src, key=lambda x: -src[x]):
            take = min(left, src[cs])
            src[cs] -= take
            dest[cs] = dest.get(cs, 0) + take
            left -= take
        for cs in [cs for cs, k in src.items() if k == 0]:
            del src[cs]


_UNKNOWN = object()


class Deals:
    def option_slots(self) -> dict:
        found = getattr(self, "_option_slots", None)
        if found is None:
            found = self._option_slots = {o.slot: o for o in self.options.values()}
        return found

    def paper_deal(self, players: int, phases: dict) -> list[tuple]:
        """The draws that ask for more cards than their zone holds, at the start of a game of
        `players` players, as far as it can be played on paper."""
        paper = _Paper(self, players, phases)
        game = phases.get("game")
        if game is None:
            return []
        try:
            paper.block(game.body, {}, 0)
        except (_Stop, _End, RecursionError):
            pass
        return paper.short

    def lint_deals(self, phases: dict) -> None:
        """The `short-deal` warning: at the most players the rules allow, a draw of the set-up asks
        for more cards than its zone holds."""
        if self.players is None or not self.cards_nodes:
            return
        low, high = self.players.low, self.players.high
        short_at = self.paper_deal(high, phases)
        if not short_at:
            return
        s, asked, had, player = short_at[0]
        fits = [k for k in range(low, high) if not self.paper_deal(k, phases)]
        zone = getattr(s.source, "name", "") or "the zone"
        if player is not None:
            after = [p for (st, _, h, p) in short_at if st is s and p is not None]
            fewer = [f"p{p} gets {h}" if h else f"p{p} gets none" for (st, _, h, p) in short_at if st is s and p is not None]
            who = "; ".join(fewer[:2]) + (f" … p{after[-1]} gets none" if len(fewer) > 2 else "")
            msg = (f"with {high} players the cards run out during this deal: `{zone}` has {had} left when "
                   f"p{player} should get {asked} ({who})")
        else:
            msg = f"with {high} players the cards run out during this deal: `{zone}` has {had} left of the {asked} it should give"
        if fits:
            most = max(fits)
            hint = (f"the set-up fits {low} to {most} players: allow at most {most} (`players {low} to {most}`), "
                    "or deal fewer cards")
        else:
            hint = "the set-up fits no player count the rules allow: deal fewer cards, or add cards"
        self.warn(s.span, msg, hint, code="short-deal")
