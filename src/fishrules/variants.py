"""Stage 2: overlays.  Parsed files -> one flat list of declarations.

A file that `extends` another is an overlay: it may add declarations, `replace` or `remove` named
ones (options, dice, variables, defines, phases, actions, scores, winners, and `rule "…"` blocks
inside phases and actions), and `add rule` blocks before or after a named rule or at the start or
end of a phase or action.  A `variant NAME:` block inside a file is an overlay applied only when that
variant is asked for.  Naming something that does not exist is an error with a "did you mean".

Files are found here too, and since rule files come from strangers, `extends` is confined: a name
is a file in the extending file's own folder (or below it), else a bundled ruleset; never an
absolute path, `..`, the current directory, a symlink leading out of the folder, or anything but
a regular `.fish` file (see docs/security.md).  The bundled variants of a ruleset are the files
named `NAME-VARIANT.fish` beside it and its own `variant` blocks.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
from pathlib import Path
from typing import Optional

import attrs

from . import nodes as n
from .errors import MAX_HINT_SCANNED, MAX_HINTS, Diagnostic, RuleError, Source, Span, did_you_mean, follows_from
from .limits import MAX_EXTENDS_DEPTH, MAX_EXTENDS_NAME, MAX_SOURCE_BYTES, MAX_VARIANTS
from .syntax import parse_partial

__all__ = ["Resolved", "resolve_file", "resolve_text", "rulesets_dir", "bundled_names", "find_ruleset",
           "find_extended", "read_rules", "overlay_steps"]

#: One folder or file name in `extends "…"`: letters, digits, `_`, `-` and `.`, not starting with a dot.
_SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def rulesets_dir() -> Path:
    """Where the bundled rulesets are: inside the installed package, or the repository's rulesets/."""
    env = os.environ.get("FISHRULES_RULESETS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent
    packaged = here / "rulesets"
    if packaged.is_dir():
        return packaged
    return here.parent.parent / "rulesets"


def bundled_names() -> list[str]:
    d = rulesets_dir()
    if not d.is_dir():
        return []
    return sorted(p.stem for p in d.glob("*.fish"))


def find_ruleset(ref: str) -> Optional[Path]:
    """What `fishrules.load(ref)` reads: a bundled ruleset if `ref` is the name of one, otherwise
    the file `ref` (or `ref.fish`) as the caller named it; None if there is no such file.  The caller
    chose the path; the confinement rule applies to the `extends` inside it."""
    if ref in bundled_names():
        return rulesets_dir() / f"{ref}.fish"
    if not ref or "\x00" in ref:
        return None
    p = Path(ref)
    for c in (p, p.with_name(p.name + ".fish")) if p.name and not ref.endswith(".fish") else (p,):
        try:
            if c.exists():
                return c
        except (OSError, ValueError):
            return None
    return None


def find_extended(target: str, base_dir: Optional[Path]) -> tuple[Optional[Path], Optional[str]]:
    """Where `extends "target"` leads: (the file, None), or (None, why it is refused).

    A name is a `/`-separated relative path of plain names; `NAME` means `NAME.fish`.  It is looked
    for in `base_dir` (the extending file's folder) or below it, and must stay inside it once
    symlinks are followed; failing that, a bundled ruleset of that name.  No base_dir: bundled only."""
    if not target:
        return None, "an empty name"
    if len(target) > MAX_EXTENDS_NAME:
        return None, f"a name longer than {MAX_EXTENDS_NAME} characters"
    parts = target.split("/")
    if target.startswith("/") or any(not _SEGMENT.fullmatch(seg) or seg in (".", "..") for seg in parts):
        return None, ("only a file beside this one (or in a folder below it) or a bundled ruleset can be "
                      "extended: no absolute paths, no `..`, plain names of letters, digits, `_`, `-` and `.`")
    filename = target if target.endswith(".fish") else target + ".fish"
    if base_dir is not None:
        cand = base_dir / filename
        try:
            present = os.path.lexists(cand)
        except (OSError, ValueError):  # pragma: no cover - a name _SEGMENT lets through cannot fail here
            present = False
        if present:
            try:
                real = Path(os.path.realpath(cand))
                root = Path(os.path.realpath(base_dir))
            except (OSError, ValueError):  # pragma: no cover
                return None, "a path that cannot be followed"
            if root != real and root not in real.parents:
                return None, "a file that leads outside this file's folder (through a symlink)"
            return real, None
    stem = target[:-5] if target.endswith(".fish") else target
    if "/" not in stem and stem in bundled_names():
        return rulesets_dir() / f"{stem}.fish", None
    return None, None


def _display_name(path: Path) -> str:
    """How messages and `explain` name a rule file: its path relative to the current folder; a
    bundled ruleset outside the current folder by its name.  Never the machine's absolute path
    (a message may be pasted into an issue, a log may travel), but on Windows across drives."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # pragma: no cover - another drive on Windows
        return str(path)
    if rel.startswith(".."):
        try:
            if path.suffix == ".fish" and path.parent.resolve() == rulesets_dir().resolve():
                return path.stem
        except (OSError, ValueError):  # pragma: no cover
            pass
    return rel


@attrs.frozen(slots=True)
class Resolved:
    """The effective rules: every declaration after overlays, in order."""

    items: tuple
    variants: tuple[str, ...]
    variant: Optional[str]
    files: tuple[str, ...]
    path: Optional[Path] = None
    source: Optional[Source] = None  # the text of the file asked for (overlays' bases are in `items`)
    #: Syntax errors of the files (the items hold what could be read): the checker still runs on
    #: the items, and whoever checks them reports these with the checker's own errors.
    syntax_errors: tuple = ()
    #: Names declared on lines that could not be read: errors about them only follow from those.
    lost: frozenset = frozenset()
    #: Warnings about the overlays (`extends` not first, a replacement identical to what it replaces).
    warnings: tuple = ()
    #: Where `extends` of rules read from a string look (`loads(..., base_dir=…)`); None: bundled only.
    base_dir: Optional[Path] = None
    #: The files `extends` read, in the order of `files`, each as (its name there and in spans,
    #: the file): a name in messages is no path (a bundled ruleset's is its bare name).
    bases: tuple[tuple[str, Path], ...] = ()


_KEYED = (n.OptionDecl, n.DiceDecl, n.CardsDecl, n.BoardDecl, n.VarDecl, n.Define, n.Phase, n.Action, n.Score, n.Winners)


def _key(it) -> tuple[str, str]:
    if isinstance(it, n.OptionDecl):
        return ("option", it.name)
    if isinstance(it, n.DiceDecl):
        return ("dice", "")
    if isinstance(it, n.CardsDecl):
        return ("cards", it.name)
    if isinstance(it, n.BoardDecl):
        return ("board", "")
    if isinstance(it, n.VarDecl):
        return ("variable", it.name)
    if isinstance(it, n.Define):
        return ("define", it.name)
    if isinstance(it, n.Phase):
        return ("phase", it.name)
    if isinstance(it, n.Action):
        return ("action", it.name)
    if isinstance(it, n.Score):
        return ("score", it.name)
    if isinstance(it, n.Winners):
        return ("winners", "")
    raise AssertionError(it)  # pragma: no cover


def _describe(key: tuple[str, str]) -> str:
    kind, name = key
    if kind == "dice":
        return "the dice"
    if kind == "board":
        return "the board"
    if kind == "winners":
        return "the winners"
    if kind == "score":
        return f'score "{name}"'
    return f"{kind} `{name}`"


def _replace_syntax(key: tuple[str, str]) -> str:
    kind, name = key
    if kind == "dice":
        return "replace dice: …"
    if kind == "board":
        return "replace board: …"
    if kind == "winners":
        return "replace winners: …"
    if kind == "score":
        return f'replace score "{name}": …'
    if kind == "variable":
        return "replace each player has … / replace the game has …"
    return f"replace {kind} {name} …"


class _Block:
    """A statement holding statements (a rule block, an `if`, a loop), while overlays are applied:
    `node` is the statement as parsed, `bodies` its bodies as lists that overlays change in place
    (one for a rule or a loop; one per branch of an `if`, and its `otherwise`)."""

    __slots__ = ("node", "bodies")

    def __init__(self, node, bodies: list):
        self.node = node
        self.bodies = bodies

    @property
    def rule(self):
        return self.node if type(self.node) is n.RuleBlock else None


_NESTING = (n.RuleBlock, n.If, n.Repeat, n.ForEach)


def _thaw(stmts) -> list:
    out = []
    for s in stmts:
        t = type(s)
        if t is n.If:
            out.append(_Block(s, [_thaw(b) for _, b in s.branches] + [_thaw(s.otherwise)]))
        elif t in _NESTING:
            out.append(_Block(s, [_thaw(s.body)]))
        else:
            out.append(s)
    return out


def _freeze(stmts: list) -> tuple:
    out = []
    for x in stmts:
        if type(x) is _Block:
            node, bodies = x.node, [_freeze(b) for b in x.bodies]
            if type(node) is n.If:
                node = attrs.evolve(node, branches=tuple((c, b) for (c, _), b in zip(node.branches, bodies)),
                                    otherwise=bodies[-1])
            else:
                node = attrs.evolve(node, body=bodies[0])
            out.append(node)
        else:
            out.append(x)
    return tuple(out)


class _Rules:
    """The declarations being built up, with where each came from.

    The bodies of phases and actions are kept as lists of `_Block`s while overlays apply, with an
    index of every rule block (its name -> the key of its phase or action, the list holding it, and
    its block), so that adding, replacing or removing a rule changes one list in place: an overlay
    of thousands of rules takes linear time."""

    def __init__(self, diags: list[Diagnostic]):
        self.diags = diags
        self.title: Optional[n.GameDecl] = None
        self.players: Optional[n.PlayersDecl] = None
        self.decls: dict[tuple[str, str], object] = {}
        self.bodies: dict[tuple[str, str], list] = {}  # phases and actions: their bodies, thawed
        self.variants: dict[str, n.Variant] = {}
        self.too_many_variants = False
        self.index: dict[str, tuple] = {}
        self.base: Optional[str] = None  # the name of the ruleset an overlay extends, for messages
        self.hints_given = 0  # hints of `absent` so far (bounded by MAX_HINTS)
        self.shown: list = []  # presentation blocks, the base's first: a later entry counts over an earlier

    def error(self, span, msg, hint=None):
        self.diags.append(Diagnostic(span, msg, hint))

    # ---- a name that is not there -------------------------------------------------------------

    def requires(self) -> dict[str, tuple]:
        """`require "NAME"` of every action: name -> (the action's key, the require)."""
        out: dict[str, tuple] = {}
        for key, body in self.bodies.items():
            todo = [body]
            while todo:
                for x in todo.pop():
                    if type(x) is _Block:
                        todo.extend(x.bodies)
                    elif isinstance(x, n.Require):
                        out.setdefault(x.name, (key, x))
        return out

    def absent(self, kind: str, name: str, verb: str) -> str:
        """The hint for an overlay naming a `kind` called `name` that the rules do not have: what
        `name` is, if it is something of another kind, and what an overlay can do with that; else
        the names of that kind there are, nearest first.  Past `MAX_HINTS` of them in one resolve,
        only what to write (each looks through the rules: thousands would cost thousands times
        the rules)."""
        base = self.base or "the rules it extends"
        self.hints_given += 1
        if self.hints_given > MAX_HINTS:
            return f"{base} has no {kind} of that name (hints are given for the first {MAX_HINTS} such names)"
        found = self._other_kind(kind, name)
        if found is not None:
            return found
        if kind == "rule":
            names = list(self.index)
            shown = [f'"{x}"' for x in _nearest(name, names)]
            what = "named rules"
        elif kind in ("dice", "board", "winners"):
            return f"{base} has no {kind}; to add {'them' if kind == 'dice' else 'one'}, write it without `replace`"
        else:
            names = [k[1] for k in self.decls if k[0] == kind]
            shown = [f"`{x}`" for x in _nearest(name, names)]
            what = {"variable": "values", "cards": "card sets"}.get(kind, kind + "s")
        adding = (f"; to add a new {kind} `{name}`, write it without `replace`"
                  if verb == "replace" and kind in ("define", "option", "phase", "action", "score", "cards", "variable") else "")
        if not names:
            return f"{base} has no {what}{adding}"
        more = f" and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
        close = did_you_mean(name, names)
        return (close + " " if close else "") + f"the {what} of {base}, nearest first: " + ", ".join(shown) + more + adding

    def _other_kind(self, kind: str, name: str) -> Optional[str]:
        """What `name` is, when the rules have it as something other than a `kind`, and what an
        overlay can do with it (None when it is nothing else)."""
        from .explain import unparse_item

        base = self.base or "the rules it extends"
        if kind != "rule" and name in self.index:
            block = self.index[name][2].rule
            return (f'"{name}" is a named rule (`rule "{name}":`, at {block.span}), not a {kind}: '
                    f'an overlay can `replace rule "{name}": …`, `remove rule "{name}"`, or add a rule before or after it')
        if kind == "rule":
            req = self.requires().get(name)
            if req is not None:
                key, node = req
                header = unparse_item(self.decls[key])[0] if key in self.decls else f"{key[0]} {key[1]}:"
                return (f'"{name}" is not a `rule` block but a `require` of {key[0]} `{key[1]}` (at {node.span}), so it cannot be '
                        f"replaced or removed on its own: replace the whole {key[0]}, `replace {header}`, with its lines "
                        f"(`fishrules explain {base}` prints them) and that `require` left out or changed")
        for (k, nm), d in self.decls.items():
            if nm != name or k == kind:
                continue
            header = unparse_item(d)[0].rstrip(":")
            where = f" (at {d.span})" if getattr(d, "span", None) is not None else ""
            what = {"variable": "a value the game has" if getattr(d, "scope", "") == "game" else "a value each player has",
                    "option": "an option", "define": "a define", "phase": "a phase", "action": "an action",
                    "score": "a score", "cards": "a set of cards"}.get(k, f"a {k}")
            can = {
                "option": f"an overlay replaces it whole, as `replace {header}` with the default changed; "
                          f"or set it for one game with `--option {name}=…`",
                "variable": f"an overlay replaces its declaration, as `replace {header}`, or changes it in a rule "
                            f"(`set {name} to …`); it is not a formula, so it is not a define",
                "define": f"an overlay can `replace define {name}: …` or `remove define {name}`",
                "phase": f"an overlay can `replace {header}:` with new lines, or `remove phase {name}`",
                "action": f"an overlay can `replace {header}:` with new lines, or `remove action {name}`",
                "score": f'an overlay can `replace score "{name}": …` or `remove score "{name}"`',
                "cards": f"an overlay can `replace {header}`",
            }.get(k, "")
            return f"`{name}` is not a {kind} but {what}, declared in {base}{where} as `{header}`; {can}"
        return None

    def rule_names(self) -> dict[str, tuple]:
        """rule name -> (key of its phase or action, the list holding it, its block)."""
        return self.index

    def _index_add(self, key, stmts: list) -> None:
        todo = [stmts]
        while todo:
            lst = todo.pop()
            for x in lst:
                if type(x) is _Block:
                    if x.rule is not None:
                        self.index.setdefault(x.rule.name, (key, lst, x))
                    todo.extend(x.bodies)

    def _index_drop(self, stmts: list) -> None:
        todo = [stmts]
        while todo:
            for x in todo.pop():
                if type(x) is _Block:
                    if x.rule is not None:
                        self.index.pop(x.rule.name, None)
                    todo.extend(x.bodies)

    def _set_body(self, key, body: tuple) -> None:
        if key in self.bodies:
            self._index_drop(self.bodies[key])
        self.bodies[key] = _thaw(body)
        self._index_add(key, self.bodies[key])

    def _place_of(self, name: str) -> tuple:
        """(key, the list holding the rule, its position in it)."""
        key, lst, block = self.index[name]
        return key, lst, next(i for i, x in enumerate(lst) if x is block)

    def apply(self, it, overlay: bool) -> None:
        if isinstance(it, n.GameDecl):
            self.title = it
        elif isinstance(it, n.PlayersDecl):
            self.players = it
        elif isinstance(it, n.Extends):
            pass  # handled by the caller
        elif isinstance(it, n.Variant):
            if it.name in self.variants:
                self.error(it.span, f"variant `{it.name}` is declared twice")
            elif len(self.variants) >= MAX_VARIANTS:
                if not self.too_many_variants:  # said once, at the first one too many
                    self.too_many_variants = True
                    self.error(it.span, f"more than {MAX_VARIANTS} variants: rules have at most {MAX_VARIANTS}",
                               "put some in a file of their own that `extends` these rules")
                return
            for inner in it.items:
                if isinstance(inner, n.Variant):
                    self.error(inner.span, "a variant cannot contain another variant")
            self.variants[it.name] = it
        elif isinstance(it, _KEYED):
            key = _key(it)
            if key in self.decls:
                prev = self.decls[key]
                where = f" (at {prev.span})" if getattr(prev, "span", None) else ""
                if overlay:
                    self.error(it.span, f"{_describe(key)} already exists{where}",
                               f"to change it, write `{_replace_syntax(key)}`")
                else:
                    self.error(it.span, f"{_describe(key)} is declared twice{where}")
                return
            if isinstance(it, (n.Phase, n.Action)):
                self.check_new_rules(it.body)
                self._set_body(key, it.body)
            self.decls[key] = it
        elif isinstance(it, n.Replace):
            self.replace(it)
        elif isinstance(it, n.Remove):
            self.remove(it)
        elif isinstance(it, n.AddRule):
            self.add_rule(it)
        elif isinstance(it, n.Presentation):
            self.shown.append(it)
        else:  # pragma: no cover
            self.error(getattr(it, "span", None), f"unexpected {type(it).__name__}")

    def check_new_rules(self, body, leaving: frozenset = frozenset()) -> bool:
        """Report the rules of `body` whose names are taken already (but for the rules in
        `leaving`, which the change removes); True if there is none."""
        ok, seen = True, {}
        for r in _rules_in(body):
            if r.name.startswith("\x00"):
                continue  # the stand-in for lines under a header that could not be read (see parser.hold)
            taken = self.index.get(r.name)
            prev = taken[2].rule if taken is not None and r.name not in leaving else seen.get(r.name)
            if prev is not None:
                self.error(r.span, f'rule "{r.name}" already exists (at {prev.span})',
                           "rule names must be unique, so that overlays can name them")
                ok = False
            else:
                seen[r.name] = r  # two rules of one name in the same phase or action
        return ok

    def replace(self, it: n.Replace) -> None:
        item = it.item
        if isinstance(item, n.PlayersDecl):
            self.players = item
            return
        if isinstance(item, n.RuleBlock):
            if item.name not in self.index:
                self.error(item.span, f'there is no rule "{item.name}" to replace', self.absent("rule", item.name, "replace"))
                return
            key, lst, i = self._place_of(item.name)
            old = lst[i]
            if _freeze([old])[0].body == item.body and not _silenced(item.span):
                self.diags.append(Diagnostic(item.span, f'this replaces rule "{item.name}" with the same thing',
                                             "remove the line, or change what it should change", "warning", "same-replace"))
            leaving = frozenset(r.name for r in _rules_in((old.node,)))
            if not self.check_new_rules(item.body, leaving):
                return
            self._index_drop([old])
            lst[i] = _thaw([n.RuleBlock(item.name, item.body, span=item.span)])[0]
            self._index_one(key, lst, lst[i])
            return
        key = _key(item)
        if key not in self.decls:
            self.error(item.span, f"there is no {_describe(key)} to replace", self.absent(key[0], key[1], "replace"))
            return
        if item == self.decls[key] and key[0] in ("define", "phase", "action") and not _silenced(item.span):
            self.diags.append(Diagnostic(item.span, f"this replaces {_describe(key)} with the same thing",
                                         "remove the line, or change what it should change", "warning", "same-replace"))
        if isinstance(item, (n.Phase, n.Action)):
            leaving = frozenset(r.name for r in _rules_in(self.decls[key].body))
            self.check_new_rules(item.body, leaving)
            self._set_body(key, item.body)
        self.decls[key] = item

    def _index_one(self, key, lst: list, block) -> None:
        """Index a block just put into `lst`, and the rules inside it."""
        if type(block) is not _Block:
            return
        if block.rule is not None:
            self.index.setdefault(block.rule.name, (key, lst, block))
        for b in block.bodies:
            self._index_add(key, b)

    def remove(self, it: n.Remove) -> None:
        if it.kind == "rule":
            if it.name not in self.index:
                self.error(it.span, f'there is no rule "{it.name}" to remove', self.absent("rule", it.name, "remove"))
                return
            _, lst, i = self._place_of(it.name)
            self._index_drop([lst[i]])
            del lst[i]
            return
        kind = {"phase": "phase", "action": "action", "define": "define", "option": "option", "score": "score"}[it.kind]
        key = (kind, it.name)
        if key not in self.decls:
            self.error(it.span, f"there is no {_describe(key)} to remove", self.absent(kind, it.name, "remove"))
            return
        if key in self.bodies:
            self._index_drop(self.bodies.pop(key))
        del self.decls[key]

    def add_rule(self, it: n.AddRule) -> None:
        new = it.rule
        if new.name in self.index:
            self.error(it.span, f'rule "{new.name}" already exists (at {self.index[new.name][2].rule.span})',
                       f'to change it, write `replace rule "{new.name}": …`')
            return
        if not self.check_new_rules(new.body):
            return
        block = _thaw([new])[0]
        if it.anchor_kind == "rule":
            if it.anchor not in self.index:
                self.error(it.span, f'there is no rule "{it.anchor}" to put a rule {it.where}', self.absent("rule", it.anchor, "anchor"))
                return
            key, lst, i = self._place_of(it.anchor)
            lst.insert(i if it.where == "before" else i + 1, block)
            self._index_one(key, lst, block)
            return
        key = (it.anchor_kind, it.anchor)
        if key not in self.decls:
            self.error(it.span, f"there is no {it.anchor_kind} `{it.anchor}`", self.absent(it.anchor_kind, it.anchor, "anchor"))
            return
        lst = self.bodies[key]
        lst.insert(0, block) if it.where == "start" else lst.append(block)
        self._index_one(key, lst, block)

    def items(self) -> list:
        out = []
        if self.title is not None:
            out.append(self.title)
        if self.players is not None:
            out.append(self.players)
        for key, d in self.decls.items():
            if key in self.bodies:
                d = attrs.evolve(d, body=_freeze(self.bodies[key]))
            out.append(d)
        return out + self.shown


_OPTION_EQUALS = re.compile(r"^\s*(?:replace\s+)?option\s+(\w+)\s*=\s*(.*?)\s*(?:#.*)?$")


def _option_whole(d: Diagnostic, rules: _Rules, source) -> Diagnostic:
    """`replace option rounds = 3` in an overlay: the hint writes the option out whole, as the base
    declares it, with the new default."""
    if d.code != "habit" or d.span is None or source is None or d.span.file != source.name:
        return d
    m = _OPTION_EQUALS.match(source.line(d.span.line))
    old = rules.decls.get(("option", m.group(1))) if m else None
    if old is None:
        return d
    from .explain import unparse_type

    value = m.group(2) or "…"
    doc = f', "{old.doc}"' if old.doc else ""
    whole = f"replace option {old.name}: {unparse_type(old.type)} = {value}{doc}"
    return Diagnostic(d.span, d.message, f"write it whole, as {rules.base} declares it, with your default: `{whole}`; "
                      f"for one game only, `--option {old.name}={value}`", d.severity, d.code)


def _nearest(name: str, names, most: int = 8) -> list[str]:
    """Up to `most` of `names`, the most like `name` first (then in the order they were declared),
    among the first MAX_HINT_SCANNED names (a hint's work is bounded: see errors.did_you_mean)."""
    import difflib

    order = {x: i for i, x in enumerate(itertools.islice(dict.fromkeys(names), MAX_HINT_SCANNED))}
    if len(name) > 40:
        return list(order)[:most]
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(name.lower())

    def likeness(x: str) -> tuple:
        matcher.set_seq1(x.lower()[:40])
        return (-matcher.ratio(), order[x])

    return sorted(order, key=likeness)[:most]


def _silenced(span) -> bool:
    """`# fishrules: ignore` (or `ignore[same-replace]`) on the line (see `fishrules.checker.lints`)."""
    if span is None or "fishrules:" not in span.source.text:
        return False
    m = re.search(r"#.*\bfishrules:\s*ignore(?:\[([\w\s,-]*)\])?", span.source.line(span.line))
    return m is not None and (m.group(1) is None or "same-replace" in m.group(1))


def _rules_in(body):
    for s in body:
        if isinstance(s, n.RuleBlock):
            yield s
            yield from _rules_in(s.body)
        elif isinstance(s, n.If):
            for _, b in s.branches:
                yield from _rules_in(b)
            yield from _rules_in(s.otherwise)
        elif isinstance(s, (n.Repeat, n.ForEach)):
            yield from _rules_in(s.body)


def read_rules(path: Path, shown: Optional[str] = None) -> str:
    """The text of a rule file, refused with a `RuleError` (that never quotes the file) if it is not
    a regular file, is larger than MAX_SOURCE_BYTES, or is not UTF-8 text."""
    shown = shown or _display_name(path)
    src = Source(shown, "")
    where = Span(src, 1, 1, 1, 1)
    try:
        # O_NONBLOCK: opening a fifo must not wait for a writer; it is refused just below.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except IsADirectoryError:
        raise RuleError(Diagnostic(where, "this is a folder, not a rule file")) from None
    except FileNotFoundError:
        raise RuleError(Diagnostic(where, "there is no such file")) from None
    except (OSError, ValueError) as exc:
        raise RuleError(Diagnostic(where, f"the file cannot be read ({getattr(exc, 'strerror', None) or 'not a usable path'})")) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise RuleError(Diagnostic(where, "this is a folder, not a rule file"))
        if not stat.S_ISREG(mode):
            raise RuleError(Diagnostic(where, "this is not a regular file, so it is not a rule file"))
        chunks, size = [], 0
        while size <= MAX_SOURCE_BYTES:
            chunk = os.read(fd, MAX_SOURCE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise RuleError(Diagnostic(where, f"the file cannot be read ({exc.strerror})")) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_SOURCE_BYTES:
        raise RuleError(Diagnostic(where, f"the rule file is larger than {MAX_SOURCE_BYTES // 1024} KiB"))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise RuleError(Diagnostic(where, "the file is not UTF-8 text, so it is not a rule file")) from None


def _build(module: n.Module, path: Optional[Path], diags: list, chain: tuple[str, ...], files: list,
           bases: Optional[list] = None) -> _Rules:
    extends = [it for it in module.items if isinstance(it, n.Extends)]
    if len(extends) > 1:
        diags.append(Diagnostic(extends[1].span, "a file can extend only one ruleset"))
    if extends:
        ext = extends[0]
        if module.items[0] is not ext:
            diags.append(Diagnostic(ext.span, "`extends` must be the first line of the file", None, "warning"))
        base_dir = path.parent if path is not None else None
        target, refused = find_extended(ext.target, base_dir)
        shown = ext.target if len(ext.target) <= 60 else ext.target[:57] + "…"
        if target is None:
            names = bundled_names()
            if refused:
                diags.append(Diagnostic(ext.span, f'cannot extend "{shown}": {refused}',
                                        "see the rule for `extends` in docs/security.md"))
            else:
                diags.append(Diagnostic(ext.span, f'cannot find the ruleset "{shown}" to extend',
                                        did_you_mean(ext.target, names) or ("the bundled rulesets are " + ", ".join(names))))
            rules = _Rules(diags)
        elif str(target.resolve()) in chain:
            diags.append(Diagnostic(ext.span, f'"{shown}" extends itself, through ' + " -> ".join(Path(c).name for c in chain)))
            rules = _Rules(diags)
        elif len(chain) >= MAX_EXTENDS_DEPTH:
            diags.append(Diagnostic(ext.span, f"files extend files more than {MAX_EXTENDS_DEPTH} deep here",
                                    "see the limits in the language reference"))
            rules = _Rules(diags)
        else:
            base = _parse(read_rules(target), _display_name(target), diags)
            rules = _build(base, target, diags, chain + (str(target.resolve()),), files, bases)
            if bases is not None:
                bases.append((_display_name(target), target))
        # the base's variants are not inherited: an overlay is its own game
        rules.variants = {}
        rules.base = shown
        overlay = True
    else:
        rules = _Rules(diags)
        overlay = False
    if path is not None:
        files.append(_display_name(path))
    if overlay and getattr(diags, "syntax", None):
        diags.syntax[:] = [_option_whole(d, rules, module.source) for d in diags.syntax]
    for it in module.items:
        if isinstance(it, n.Replace | n.Remove | n.AddRule) and not overlay:
            diags.append(Diagnostic(it.span, "`replace`, `remove` and `add rule` only make sense in a file that `extends` another,"
                                    " or inside a `variant` block"))
            continue
        rules.apply(it, overlay)
    return rules


def _finish(rules: _Rules, variant: Optional[str], diags: list, files: list, path: Optional[Path], source=None) -> Resolved:
    if variant is not None:
        v = rules.variants.get(variant) if isinstance(variant, str) else None
        if v is None:
            # a bundled sibling file NAME-VARIANT.fish is a variant too
            names = list(rules.variants)
            if path is not None and path.parent.resolve() == rulesets_dir().resolve():
                names += [p.stem[len(path.stem) + 1:] for p in sorted(path.parent.glob(f"{path.stem}-*.fish"))]
            diags.append(Diagnostic(None, f"there is no variant `{str(variant)[:60]}`",
                                    did_you_mean(variant, names) or (
                                        "the variants are " + ", ".join(names) if names else "this ruleset has no variants")))
        else:
            for it in v.items:
                if isinstance(it, n.Variant):
                    diags.append(Diagnostic(it.span, "a variant cannot contain another variant"))
                    continue
                rules.apply(it, overlay=True)
    syntax = tuple(getattr(diags, "syntax", ()))
    lost = frozenset(getattr(diags, "lost", ()))
    # the lints of overlays are about the file asked for, not about the rulesets it extends
    top = source.name if source is not None else None
    diags[:] = [d for d in diags if d.code != "same-replace" or (d.span is not None and d.span.file == top)]
    if lost:
        diags[:] = [d for d in diags if not follows_from(d.message, lost)]
    errors = [d for d in diags if d.severity == "error"]
    if errors:
        raise RuleError(list(syntax) + diags)
    return Resolved(tuple(rules.items()), tuple(rules.variants), variant, tuple(files), path, source,
                    syntax, lost, tuple(diags))


def overlay_steps(resolved: Resolved, most: Optional[int] = None) -> Optional[list[tuple[object, list]]]:
    """For rules whose file `extends` another: the declarations of the rules it extends (as
    `(None, items)`), then, after each item of the file (and of its variant, if one was asked for)
    is applied in turn, `(that item, the declarations then)`.  None for a file that extends
    nothing.  `fishrules.blame` finds with it which line of an overlay a problem of its base
    comes from.  With `most`, an overlay of more items than that gives only its two ends (the base,
    then `(None, the declarations at the end)`): each step copies every declaration, so all the
    steps of a long overlay cost the square of its length."""
    src = resolved.source
    if src is None:
        return None
    diags = _Diagnostics()
    module = _parse(src.text, src.name, diags)
    if not any(isinstance(it, n.Extends) for it in module.items):
        return None
    if resolved.path is not None:
        path: Optional[Path] = resolved.path
        chain: tuple[str, ...] = (str(resolved.path.resolve()),)
    else:
        path = (resolved.base_dir / src.name) if resolved.base_dir is not None else None
        chain = ()
    ext = next(it for it in module.items if isinstance(it, n.Extends))
    rules = _build(attrs.evolve(module, items=(ext,)), path, diags, chain, [])
    steps: list[tuple[object, list]] = [(None, rules.items())]
    own = [it for it in module.items if not isinstance(it, (n.Extends, n.Variant))]
    variant = next((it for it in module.items if isinstance(it, n.Variant) and it.name == resolved.variant), None)
    if variant is not None:
        own += [it for it in variant.items if not isinstance(it, n.Variant)]
    every = most is None or len(own) <= most
    for it in own:
        rules.apply(it, True)
        if every and not isinstance(it, n.GameDecl):
            steps.append((it, rules.items()))
    if not every:
        steps.append((None, rules.items()))
    return steps


class _Diagnostics(list):
    """The overlays' diagnostics, with the files' syntax errors kept apart: the overlays' errors
    stop the rules before they are checked, while the checker still runs on what the good lines
    of a file with syntax errors say."""

    def __init__(self):
        super().__init__()
        self.syntax: list[Diagnostic] = []
        self.lost: set[str] = set()


#: The last few files parsed, by (name, text): `fishrules check` loads a file once for every variant,
#: and a file's tree is plain, immutable data.
_parsed: dict[tuple[str, str], object] = {}
_PARSED_KEPT = 4


def _parse(text: str, name: str, diags: list) -> n.Module:
    key = (name, text)
    parsed = _parsed.pop(key, None)
    if parsed is None:
        parsed = parse_partial(text, name)
    _parsed[key] = parsed
    while len(_parsed) > _PARSED_KEPT:
        del _parsed[next(iter(_parsed))]
    if parsed.errors:
        diags.syntax.extend(parsed.errors)
        diags.lost.update(parsed.lost)
    return parsed.module


def resolve_file(path: Path | str, variant: Optional[str] = None) -> Resolved:
    path = Path(path)
    diags = _Diagnostics()
    files: list[str] = []
    module = _parse(read_rules(path), _display_name(path), diags)
    bases: list[tuple[str, Path]] = []
    rules = _build(module, path, diags, (str(path.resolve()),), files, bases)
    return attrs.evolve(_finish(rules, variant, diags, files, path, module.source), bases=tuple(bases))


def resolve_text(text: str, name: str = "<rules>", variant: Optional[str] = None, base_dir: Optional[Path] = None) -> Resolved:
    diags = _Diagnostics()
    files: list[str] = []
    module = _parse(text, name, diags)
    fake = (base_dir / name) if base_dir is not None else None
    bases: list[tuple[str, Path]] = []
    rules = _build(module, fake, diags, (), files, bases)
    if fake is None:
        files.append(name)
    resolved = _finish(rules, variant, diags, files, None, module.source)
    return attrs.evolve(resolved, base_dir=base_dir, bases=tuple(bases))
