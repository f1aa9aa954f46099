"""The checker, limits: what a checked model may ask of the engine, bounded before anything runs.

Sizes that are known from the rule file alone (how many cards, circles, zones, how many ways an
action can be chosen) are refused here; sizes that depend on the game's position are bounded by the
runtime (see `fishrules.limits`).  Evaluation depth matters because expressions and defines run as
nested Python calls: a chain of defines each using the previous one must end in a `RuleError`, never
in Python's RecursionError.
"""

from __future__ import annotations

from .. import model as m
from ..analysis import reference
from ..limits import MAX_CHOICES, MAX_DEFINE_DEPTH, MAX_EVALUATION_DEPTH
from ..walk import find_all, walk


class Limits:
    def check_evaluation_depth(self, scores: tuple, winners: m.Expr) -> None:
        """Defines, scores and winners refer to each other; work out, without recursion, how deep a
        chain of them goes and how deep an evaluation nests once they are written out in place, and
        refuse a cycle through the score or the winners (a define's own cycles are reported when it
        is checked)."""
        bodies: dict = {("define", name): [d.expr] for name, d in self.defines.items()}
        bodies[("score", "")] = [t.expr for t in scores]
        bodies[("winners", "")] = [winners] if winners is not None else []
        spans = {("define", name): d.span for name, d in self.defines.items()}
        spans[("score", "")] = scores[0].span if scores else self.top
        spans[("winners", "")] = self.winners_node.span if self.winners_node is not None else self.top

        refs: dict = {}  # (in the order a stack's walk comes to them, which the errors below rest on)
        for key, exprs in bodies.items():
            found = [k for x in walk(exprs, last_first=True) if (k := reference(x)) is not None and k in bodies]
            refs[key] = list(dict.fromkeys(found))

        depth: dict = {}  # how deep an evaluation of the key nests, its references written out
        chain: dict = {}  # how many defines deep its longest chain of references goes
        state: dict = {}
        for root in bodies:
            if root in state:
                continue
            state[root] = 1
            stack = [(root, iter(refs[root]))]
            while stack:
                key, it = stack[-1]
                nxt = None
                for r in it:
                    if state.get(r) == 1:
                        if key[0] != "define" or r[0] != "define":
                            what = "the score" if "score" in (key[0], r[0]) else "the winners"
                            self.error(spans[key], f"{what} depends on itself here: working it out would never end",
                                       "a score cannot depend on the winners, nor the winners on themselves")
                        continue
                    if r not in state:
                        nxt = r
                        break
                if nxt is not None:
                    state[nxt] = 1
                    stack.append((nxt, iter(refs[nxt])))
                    continue
                stack.pop()
                state[key] = 2
                depth[key] = max((self._expanded_depth(e, depth) for e in bodies[key]), default=0)
                chain[key] = 1 + max((chain.get(r, 0) for r in refs[key]), default=0)
                if key[0] == "define" and chain[key] > MAX_DEFINE_DEPTH:
                    self.error(spans[key], f"`{key[1]}` builds on defines more than {MAX_DEFINE_DEPTH} deep",
                               "a define may use a define that uses another… at most "
                               f"{MAX_DEFINE_DEPTH} deep (see the limits in the language reference)")
                    chain[key] = 0  # reported once, not again for every define built on it
                elif depth[key] > MAX_EVALUATION_DEPTH:
                    self.error(spans[key], f"working this out nests more than {MAX_EVALUATION_DEPTH} deep, "
                               "counting the defines it uses", "flatten the defines it is built on")
                    depth[key] = 0
        self.evaluation_depths = depth

    def check_statement_depths(self, phases: dict, actions: dict) -> None:
        depth = getattr(self, "evaluation_depths", {})
        for decl in list(phases.values()) + list(actions.values()):
            # every expression the statements hold (of several too deep, the first a stack's walk
            # comes to is named)
            stmts = (*decl.body, *getattr(decl, "requires", ()), *getattr(decl, "broken", ()))
            for e in find_all(stmts, m.Expr, stop_at=m.Expr, last_first=True):
                if self._expanded_depth(e, depth) > MAX_EVALUATION_DEPTH:
                    self.error(e.span or decl.span, f"working this out nests more than {MAX_EVALUATION_DEPTH} deep, "
                               "counting the defines it uses", "flatten the defines it is built on")
                    return

    @staticmethod
    def _expanded_depth(e: m.Expr, known: dict) -> int:
        best = 0
        stack = [(e, 1)]
        while stack:
            x, d = stack.pop()
            k = reference(x)
            if k is not None:
                d += known.get(k, 0)
            if d > best:
                best = d
            stack.extend((c, d + 1) for c in x.iter_child_nodes())
        return best

    def check_choice_counts(self, actions: dict) -> None:
        """An action whose parameters can be chosen in more than MAX_CHOICES ways is refused when
        the number of ways is known from the rules alone; the runtime bounds the others."""
        for a in actions.values():
            total = 1
            for p in a.params:
                size = _static_size(p)
                if size is None:
                    total = None
                    continue
                if size > MAX_CHOICES:
                    self.error(p.span, f"`{p.name}` can be chosen in {size:,} ways; one decision offers at most {MAX_CHOICES:,}",
                               "narrow the range of the number")
                    total = None
                    break
                if total is not None:
                    total *= size
            if total is not None and total > MAX_CHOICES:
                self.error(a.span, f"action `{a.name}` can be chosen in {total:,} ways; one decision offers at most {MAX_CHOICES:,}",
                           "split it into several choices, one after the other")


def _static_int(e):
    if isinstance(e, m.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, m.Negate) and isinstance(e.operand, m.Const) and isinstance(e.operand.value, int):
        return -e.operand.value
    return None


def _static_size(p: m.ParamDecl):
    if p.kind == "choice":
        return len(p.choices)
    if p.kind == "number":
        lo, hi = _static_int(p.low), _static_int(p.high)
        if lo is None or hi is None:
            return None
        return max(0, hi - lo + 1)
    return None
