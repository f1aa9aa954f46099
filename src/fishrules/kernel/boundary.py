"""The API boundary: a kernel move as the engine's typed move (`fishrules.runtime.Move`), both ways.

Inside the kernel a move is a tuple of integers: the block that plays it (an action, or a
`when … is broken` handler), the actor, then the parameters (a `some` parameter a tuple, a symbol
its number in the program's table of words).  The engine speaks of a move as a `Move`: the
action by number, the actor, the values as the engine keeps them (a symbol its word), the rule it
breaks, whether it is chosen together with others.  `move` and `kernel_move` translate one into
the other with no text written or read; `text` writes a move's canonical text (for what is shown
by text: the search bots' answers, the tests), from the action's declared form.  They run once
per move that reaches the API, never inside a playout.
"""

from __future__ import annotations

from typing import Optional

from ..forms import forms_of
from ..runtime import Move
from .lower import KernelProgram

__all__ = ["Boundary"]


class Boundary:
    """Translation between the kernel's moves and the engine's typed moves, for one program."""

    def __init__(self, kp: KernelProgram):
        self.kp = kp
        self.words = kp.symbols
        self.word_number = {w: i for i, w in enumerate(kp.symbols)}
        names = list(kp.model.actions)
        number = {name: i for i, name in enumerate(names)}
        #: by action number: its form (how its text is written: fishrules.forms.ActionForm)
        self.programs = forms_of(kp.model).by_number
        # per action: for each parameter, whether its values are symbols
        symbolic: dict[str, tuple[bool, ...]] = {}
        for name, a in kp.model.actions.items():
            flags = []
            for p in a.params:
                t = p.type.element if p.kind == "some" else p.type
                flags.append(p.kind == "choice" or (t is not None and t.kind == "symbol"))
            symbolic[name] = tuple(flags)
        #: by action number: which parameters are `some` (their value is a tuple)
        self.some = [tuple(p.kind == "some" for p in a.params) for a in kp.model.actions.values()]
        #: block -> (action number, rule broken or None, which parameters are symbols)
        self.of_block = {b: (number[name], rule, symbolic[name]) for b, (name, rule) in kp.move_blocks.items()}
        #: (action number, rule broken or None) -> block
        self.block_of = {(number[name], rule): b for b, (name, rule) in kp.move_blocks.items()}

    def move(self, kmove: tuple, together: bool = False) -> Move:
        """The typed move of a kernel move (`together`: chosen at a simultaneous decision)."""
        number, rule, flags = self.of_block[kmove[0]]
        words = self.words
        values = []
        for v, sym in zip(kmove[2:2 + len(flags)], flags):
            if isinstance(v, (tuple, list)):
                values.append(tuple(words[x] for x in v) if sym else tuple(v))
            else:
                values.append(words[v] if sym and v is not None else v)
        return Move(number, kmove[1], tuple(values), rule, together)

    def kernel_move(self, move: Move) -> Optional[tuple]:
        """The kernel move of a typed move, as the kernel lists it; None if the kernel has none
        such (an action, a rule broken or a word its program does not know)."""
        block = self.block_of.get((move.action, move.breaks))
        if block is None:
            return None
        flags = self.of_block[block][2]
        if len(move.values) != len(flags):
            return None
        out: list = [block, move.actor]
        number = self.word_number
        for v, sym in zip(move.values, flags):
            if not sym or v is None:
                out.append(v)
            elif isinstance(v, tuple):
                got = tuple(number.get(x, -1) for x in v)
                if -1 in got:
                    return None
                out.append(got)
            else:
                k = number.get(v)
                if k is None:
                    return None
                out.append(k)
        return tuple(out)

    def partial_move(self, action: int, actor: int, values: tuple) -> tuple:
        """The kernel move of `action` (kept, not broken) by `actor` with the first values of its
        parameters (as the engine keeps them, each one the kernel gave), the rest nothing: what
        the kernel's domains and `why` read (kernel/machine.py)."""
        block = self.block_of[(action, None)]
        flags = self.of_block[block][2]
        number = self.word_number
        out: list = [block, actor]
        for k, (sym, some) in enumerate(zip(flags, self.some[action])):
            if k >= len(values):
                out.append(() if some else None)
            elif some:
                out.append(tuple(number[x] for x in values[k]) if sym else tuple(values[k]))
            else:
                v = values[k]
                out.append(number[v] if sym and v is not None else v)
        return tuple(out)

    def values_of(self, action: int, param: int, kvalues: list) -> list:
        """Values of parameter `param` of `action` as the kernel gives them (a domain), as the
        engine keeps them (a symbol its word)."""
        if not self.of_block[self.block_of[(action, None)]][2][param]:
            return kvalues
        words = self.words
        return [None if v is None else words[v] for v in kvalues]

    def text(self, kmove: tuple, together: bool = False) -> str:
        """A kernel move's canonical text (`p1: …` when chosen together), from its action's form."""
        move = self.move(kmove, together)
        text = self.programs[move.action].render(move.values)
        return f"p{move.actor}: {text}" if together else text
