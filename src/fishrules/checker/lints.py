"""Lints: warnings about rules that run, but probably not as their writer meant.

A warning never stops the rules from loading.  Each has a code, and a line can silence the
warnings about it with a comment: `# fishrules: ignore` (all of them) or
`# fishrules: ignore[unused-define, where-and]` (those codes).  The lints:

- `unused-define`: a define of the file checked that nothing uses;
- `where-and`: `any p in … where A and B` where B says nothing about `p` — `where` takes everything
  after it, so B is part of the condition, not a second condition beside the quantifier;
- `empty-range`: an action parameter `a number from A to B` with A above B: the action is never legal;
- `unreachable`: a phase never played, an action never offered (see `statements.check_reachable`);
- `short-deal`: at the most players the rules allow, the set-up deals more cards than a zone holds
  (see `fishrules.checker.deals`);
- `broken-together`: an action with a `when … is broken` handler chosen at a simultaneous choice
  (`each of … secretly chooses`), where a choice that breaks a rule is refused, never accepted: the
  handler never runs there;
- `same-replace`: an overlay that replaces a rule, define, phase or action with an identical copy
  (see `fishrules.variants`; restating an option or a count is a way of documenting it).
"""

from __future__ import annotations

import functools
import re

from .. import model as m
from .. import nodes as n
from ..errors import Span
from ..walk import walk

#: `# fishrules: ignore` or `# fishrules: ignore[code, code]` on a line silences its warnings.
IGNORE = re.compile(r"#.*\bfishrules:\s*ignore(?:\[([\w\s,-]*)\])?")


@functools.lru_cache(maxsize=64)
def _may_silence(text: str) -> bool:
    return "fishrules:" in text  # (a text's hash is kept by the text: this is looked up once)


def silenced(span: Span | None, code: str | None) -> bool:
    """Whether the line of `span` asks for the warning `code` not to be given."""
    if span is None or not _may_silence(span.source.text):
        return False
    found = IGNORE.search(span.source.line(span.line))
    if found is None:
        return False
    codes = found.group(1)
    return codes is None or (code is not None and code in {c.strip() for c in codes.split(",")})


def names_used(items) -> set[str]:
    """Every name an expression of `items` reads (a name, `your X`, `P's X`, `X of P`, `X(…)`)."""
    used: set[str] = set()
    for x in walk(items):
        if isinstance(x, (n.Name, n.Your)):
            used.add(x.name)
        elif isinstance(x, (n.Possessive, n.AttrOf)):
            used.add(x.name)
        elif isinstance(x, n.Call):
            used.add(x.func)
    return used


class Lints:
    def lint(self) -> None:
        """The warnings about the whole rules (the others are given where they are found)."""
        own = self.source.name if self.source is not None else None
        used = names_used(self.items)
        for name, d in self.define_nodes.items():
            if name in used or d.span is None or (own is not None and d.span.file != own):
                continue
            self.warn(d.span, f"define `{name}` is never used",
                      "use it, or remove it (`# fishrules: ignore[unused-define]` keeps it quietly)", code="unused-define")

    def lint_quantifier(self, e: n.Quantified, elem: m.Type) -> None:
        """`any p in xs where A and B`: B belongs to the `where`, even when it is not about `p`."""
        cond = e.condition
        if not (isinstance(cond, n.BinOp) and cond.op in ("and", "or")):
            return
        about = {e.var, *self.elem_attr_names(elem)}
        for x in cond.right.walk():
            if isinstance(x, n.It) or (isinstance(x, n.Name) and x.name in about):
                return
        self.warn(cond.right.span or e.span,
                  f"this `{cond.op}` is part of the condition of `{e.quantifier} {e.var} …where`, yet it is not about `{e.var}`",
                  f"`where` takes everything after it; to go on after the `{e.quantifier}`, put it in brackets: "
                  f"`({e.quantifier} {e.var} in … where …) {cond.op} …`", code="where-and")

    def lint_broken_together(self, action: str, span: Span | None) -> None:
        """A violation is accepted only at a player's own decision, where the handler runs at once
        instead of the action's effects; at a choice made together the effects wait for everybody
        and a choice that breaks a rule is refused (`reasons`), so such a handler never runs there."""
        body = self.action_nodes[action].body  # (a handler may be inside a `rule "…":` block of the head)
        handlers = [s for s in body for s in (s.body if isinstance(s, n.RuleBlock) else (s,)) if isinstance(s, n.WhenBroken)]
        if handlers:
            self.warn(span, f'action `{action}` accepts "{handlers[0].rule}" broken, but not when chosen together:'
                      " here a choice that breaks it is refused",
                      "let each player choose it in turn (`P chooses …`) for the handler to run, or keep the refusal with"
                      " `# fishrules: ignore[broken-together]`", code="broken-together")

    def lint_range(self, prm: n.Param, lo: m.Expr, hi: m.Expr) -> None:
        if isinstance(lo, m.Const) and isinstance(hi, m.Const) and isinstance(lo.value, int) and isinstance(hi.value, int):
            if lo.value > hi.value:
                self.warn(prm.span, f"`{prm.name}` is a number from {lo.value} to {hi.value}: there is no such number, "
                          "so the action is never legal", "write the smaller number first", code="empty-range")
