"""Stage 4: typed model -> runnable program, by writing Python source.

Like jinja2's compiler, this writes one Python module per ruleset and runs it once: a function per
define, score term and the winners (`expressions`), a function per phase and action that runs its
statements (`blocks`), and small functions for what the runtime asks about an action (a rule's
condition, where a parameter's choices come from).  What a parameter may be and what legality
reads are worked out in `actions`; the pieces the runtime sees are in `program`; what may be
written into the source is decided by `source`.

Whatever the checker accepts compiles: the rules may nest and repeat things further than CPython
reads in one expression or one function (200 nested brackets, 100 levels of indentation, 20 nested
loops, `elif` chains and sums of about 3,000 links), so the writers cut what they write into pieces
within those limits — see `expressions.HOIST_DEPTH`, the chains of `blocks`, and
`actions.LOOPS_PER_FUNCTION`.  Code cut at every place it can be plays exactly like code cut only
where it must (tests/test_generated_source.py).

The phase/step state machine stays the runtime's (`fishrules.runtime`): where a game stands is a
stack of frames `[block, pc, locals]`, plain data.  Only how predicates, effects and expressions run
changed: from trees of closures to compiled Python.
"""

from __future__ import annotations

from .. import model as m
from ..analysis import number_blocks, pushdown, rule_numbers
from . import actions as act
from .blocks import BlockWriter
from .expressions import ExprWriter
from .program import (
    CHANCE, HELPERS, MAX_SEATS, MEMO_LIMIT, MEMO_MIN_HITS, MEMO_TRIAL, OVER_BUDGET, SIMULTANEOUS, ActionProgram, ChoosePause, DrawPause, Fail,
    Located, Program, RollPause, SimulPause, Unplayable, charge, roll_faces,
)
from .source import Source, where

__all__ = ["compile_model", "Program", "ActionProgram", "Fail", "Located", "Unplayable", "CHANCE", "SIMULTANEOUS",
           "ChoosePause", "SimulPause", "RollPause", "DrawPause", "MEMO_LIMIT", "MEMO_TRIAL", "MEMO_MIN_HITS", "MAX_SEATS", "OVER_BUDGET", "charge",
           "roll_faces", "source_of"]


def compile_model(model: m.Model) -> Program:
    return _Compiler(model).run()


def source_of(model: m.Model) -> str:
    """The Python source a ruleset compiles to, with a header naming the globals it is given
    (`fishrules explain --python`)."""
    c = _Compiler(model)
    c.run()
    return c.src.listing()


class _Compiler:
    def __init__(self, model: m.Model):
        self.model = model
        self.prog = Program(model)
        name = model.source_names[0] if model.source_names else "rules"
        self.src = Source(f"<fishrules compiled {where(model.span).split(' line')[0] or name}>")
        for helper, fn in HELPERS.items():
            self.src.give(helper, fn)
        self.ex = ExprWriter(self.src, self.prog, model)

    def lam(self, e: m.Expr, comment: str = "") -> str:
        return self.ex.lambda_(e, {}, comment)

    def run(self) -> Program:
        prog, model, src, ex = self.prog, self.model, self.src, self.ex
        src.add(f"# Compiled by fishrules from the checked rules of {ascii(model.title)}.\n")
        ex.defines()
        prog.stale_g = [ex.stale_after(("g", k)) for k in range(model.n_game_slots)]
        prog.stale_p = [ex.stale_after(("p", k)) for k in range(len(model.player_vars))]
        ex.scores_and_winners()
        dice_count = self.lam(model.dice.count, "the number of dice") if model.dice is not None else None
        game_inits = []
        for v in model.game_vars:
            fn = self.lam(v.initial, f"starting value, {where(v.span)}")
            for i in range(v.family[1] if v.family else 1):
                game_inits.append((v.slot + i, fn))
        player_inits = [self.lam(v.initial, f"starting value, {where(v.span)}") for v in model.player_vars]
        seen_by = {v.name: self.lam(v.seen_by, f"who sees it, {where(v.span)}")
                   for v in list(model.game_vars) + list(model.player_vars) if v.visibility == "seen by"}

        # blocks: numbers first, so that any block can play any phase
        blocks = number_blocks(model)
        prog.block_names, prog.block_is_phase, prog.block_nlocals = \
            list(blocks.names), list(blocks.is_phase), list(blocks.nlocals)
        prog.phase_block = dict(blocks.phase)
        prog.rules = rule_numbers(model)
        handler_blocks = blocks.handler
        for name, a in model.actions.items():
            prog.actions[name] = ActionProgram(name, blocks.action[name], a.nlocals, [], [], a.span,
                                               prog.forms.actions[name])
        block_fns = {}
        for name, ph in model.phases.items():
            bid = prog.phase_block[name]
            block_fns[bid] = self.block(bid, ph.body, ph.span, f"phase, {where(ph.span)}")
        plans = {}
        for name, a in model.actions.items():
            ap = prog.actions[name]
            block_fns[ap.block] = self.block(ap.block, a.body, a.span, f"action, {where(a.span)}")
            for b in a.broken:
                hb = handler_blocks[(name, b.rule)]
                block_fns[hb] = self.block(hb, b.body, b.span, f"rule {ascii(b.rule)} broken, {where(b.span)}")
            pushed = pushdown(a)
            plans[name] = {
                "enumerate": act.write_enumerator(src, ex, a, pushed, where(a.span)),
                "params": [(p,
                            self.lam(p.source, f"choices of a parameter, {where(p.span)}") if p.source is not None else None,
                            self.lam(p.low) if p.low is not None else None,
                            self.lam(p.high) if p.high is not None else None,
                            [(k, self.lam(c, f"a rule as a filter, {where(p.span)}"), want) for k, c, want in pushed.get(p.slot, ())])
                           for p in a.params],
                "requires": [(r.name, r.span, self.lam(r.condition, f"rule {ascii(r.name)}, {where(r.span)}"), id(r) in pushed["done"])
                             for r in a.requires],
                "broken": [(b.rule, self.lam(b.condition) if b.condition is not None else None) for b in a.broken],
            }

        ns = src.compile()

        prog.defines = {name: ns[fn] for name, fn in ex.define_fn.items()}
        prog.score = ns[ex.score_fn]
        prog.score_terms = [ns[fn] for fn in ex.score_term_fns]
        prog.winners = ns[ex.winners_fn]
        prog.dice_count = ns[dice_count] if dice_count else None
        prog.game_inits = [(slot, ns[fn]) for slot, fn in game_inits]
        prog.player_inits = [ns[fn] for fn in player_inits]
        prog.blocks = [ns[block_fns[bid]] for bid in range(len(prog.block_names))]
        self.visibility({name: ns[fn] for name, fn in seen_by.items()})
        for name, plan in plans.items():
            ap = prog.actions[name]
            ap.params = [act.param(prog, form, p, ns.get(s_), ns.get(lo), ns.get(hi), [(k, ns[c], w) for k, c, w in f])
                         for form, (p, s_, lo, hi, f) in zip(ap.form.params, plan["params"])]
            ap.requires = [(rname, span, ns[fn]) for rname, span, fn, _ in plan["requires"]]
            ap.checks = [ns[fn] for _, _, fn, done in plan["requires"] if not done]
            ap.enumerate = ns[plan["enumerate"]]
            for rule, cond in plan["broken"]:
                ap.broken[rule] = (ns[cond] if cond else None, handler_blocks[(name, rule)])
        for info in prog.pauses.values():
            if isinstance(info, ChoosePause):  # simultaneous choices too
                info.key = act.legality_key(prog, model, [model.actions[ap.name] for ap in info.actions])
        prog.source = src.text()
        return prog

    # ---- pieces ----------------------------------------------------------------------------------

    def block(self, bid: int, body: tuple, span, comment: str) -> str:
        writer = BlockWriter(self.src, self.ex, self.prog, self.model, bid, self.noted)
        return writer.write(self.src.mint("b"), body, span, f"block {bid}: {comment}")

    def noted(self, target) -> bool:
        """Whether a change of the variable is an event players may see (not the rules' own
        `internal` bookkeeping)."""
        var = self.model.game_vars if isinstance(target, m.GameVar) else self.model.player_vars
        v = next(x for x in var if x.slot == target.slot or (x.family and x.slot <= target.slot < x.slot + x.family[1]))
        return v.visibility != "internal"

    def visibility(self, seen_by: dict) -> None:
        prog, model = self.prog, self.model

        def vis(v):
            if v.visibility == "public":
                return lambda s, viewer, owner: True
            if v.visibility == "secret":
                return lambda s, viewer, owner: viewer is not None and viewer == owner
            if v.visibility == "seen by":
                who = seen_by[v.name]
                return lambda s, viewer, owner: viewer is not None and viewer == who(s, ())
            return lambda s, viewer, owner: False

        def aud(v):
            """aud(state, owner): who sees the variable now (None: everybody)."""
            if v.visibility == "public":
                return lambda s, owner: None
            if v.visibility == "secret":
                return lambda s, owner: (owner,)
            if v.visibility == "seen by":
                who = seen_by[v.name]

                def a(s, owner):
                    p = who(s, ())
                    return () if p is None else (p,)

                return a
            return lambda s, owner: ()

        for v in model.game_vars:
            see, hear = vis(v), aud(v)
            for i in range(v.family[1] if v.family else 1):
                prog.game_vis[v.slot + i] = see
                prog.game_audience[v.slot + i] = hear
        for o in model.options:
            prog.game_vis[o.slot] = lambda s, viewer, owner: True
        for v in model.player_vars:
            prog.player_vis[v.slot] = vis(v)
            prog.player_audience[v.slot] = aud(v)
