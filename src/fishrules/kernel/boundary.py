"""The API boundary: a kernel move as the engine's action (its name, values, text).

Inside the kernel a move is a tuple of integers: the block that plays it (an action, or a
`when … is broken` handler), the actor, then the parameters (a `some` parameter a tuple).  The API
speaks of actions by name with typed values and canonical texts; these functions translate, once
per move that reaches the API, never inside a playout.
"""

from __future__ import annotations

from typing import Any, Optional

from .lower import KernelProgram

__all__ = ["Boundary"]


class Boundary:
    """Translation between the kernel's moves and the engine's actions, for one program."""

    def __init__(self, kp: KernelProgram, prog: Any):
        self.kp = kp
        self.prog = prog
        self.words = kp.symbols
        # per action: for each parameter, whether its values are symbols
        self.symbolic: dict[str, tuple[bool, ...]] = {}
        for name, a in kp.model.actions.items():
            flags = []
            for p in a.params:
                t = p.type.element if p.kind == "some" else p.type
                flags.append(p.kind == "choice" or (t is not None and t.kind == "symbol"))
            self.symbolic[name] = tuple(flags)

    def action_of(self, move: tuple) -> tuple[str, tuple, Optional[str]]:
        """(action name, values as the engine keeps them, the rule it breaks or None)."""
        name, rule = self.kp.move_blocks[move[0]]
        flags = self.symbolic[name]
        values = []
        for v, sym in zip(move[2:2 + len(flags)], flags):
            if isinstance(v, (tuple, list)):
                values.append(tuple(self.words[x] if sym else x for x in v))
            else:
                values.append(self.words[v] if sym and v is not None else v)
        return name, tuple(values), rule

    def text(self, move: tuple, together: bool = False) -> str:
        name, values, _ = self.action_of(move)
        ap = self.prog.actions[name]
        text = ap.render(values) if ap.params else name
        return f"p{move[1]}: {text}" if together else text

