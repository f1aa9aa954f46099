"""The guards of the parse: what is refused before any parse or walk, with one `RuleError` at once.

A file larger than `MAX_SOURCE_BYTES`, one holding a NUL (not a text file), one indented with tabs
(blocks would line up differently for different readers), and brackets nested more than
`MAX_NESTING` deep are refused before Lark sees the text (`check_text`).  Once parsed, blocks and
the operators of an expression nested more than `MAX_NESTING` deep are refused before anything
walks the tree (`check_depth`): every later stage may then walk it recursively.  Both guards are
iterative themselves.
"""

from __future__ import annotations

from lark import Tree

from ..errors import Diagnostic, RuleError, Source, Span
from ..limits import MAX_NESTING, MAX_SOURCE_BYTES

__all__ = ["check_text", "check_depth"]


def check_text(text: str, source: Source) -> None:
    """Raise `RuleError` if `text` is too large, not text, indented with tabs or has brackets nested
    too deeply."""
    if len(text) > MAX_SOURCE_BYTES or len(text.encode("utf-8", "replace")) > MAX_SOURCE_BYTES:
        raise RuleError(Diagnostic(Span(source, 1, 1, 1, 1), f"the rule file is larger than {MAX_SOURCE_BYTES // 1024} KiB",
                                   "split it: a house rule can `extends` the file it changes"))
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise RuleError(Diagnostic(Span(source, line, 1, line, 2), "the file holds a NUL character: it is not a text file"))
    if "\t" in text:
        for i, line in enumerate(text.splitlines(), 1):
            stripped = line.lstrip(" \t")
            if "\t" in line[: len(line) - len(stripped)]:
                raise RuleError(
                    Diagnostic(
                        Span(source, i, 1, i, 2),
                        "a tab in the indentation",
                        "indent with spaces only, so the blocks line up the same for everybody",
                    )
                )
    deep = _bracket_too_deep(text)
    if deep is not None:
        line, col = deep
        raise RuleError(Diagnostic(Span(source, line, col, line, col + 1),
                                   f"brackets are nested more than {MAX_NESTING} deep here",
                                   "name a part with `define` to flatten it"))


def check_depth(tree: Tree, source: Source) -> None:
    """Raise `RuleError` if blocks, or the operators of an expression, nest more than MAX_NESTING
    deep in the parsed `tree`."""
    too_deep = _too_deep(tree)
    if too_deep is not None:
        line, col = too_deep
        raise RuleError(Diagnostic(Span(source, line, col, line, col + 1),
                                   f"the rules are nested more than {MAX_NESTING} deep here",
                                   f"blocks may be nested {MAX_NESTING} deep, and so may the parts of an expression; "
                                   "name a part with `define` to flatten it"))


def _bracket_too_deep(text: str) -> tuple[int, int] | None:
    """The line and column of the first `(` nested more than MAX_NESTING deep, or None.  Brackets
    leave no trace in the tree (they only group), so they are counted in the text."""
    if text.count("(") <= MAX_NESTING:
        return None
    depth, line, start, in_str, in_comment = 0, 1, 0, False, False
    for i, ch in enumerate(text):
        if ch == "\n":
            line, start, in_str, in_comment = line + 1, i + 1, False, False
        elif in_comment:
            continue
        elif ch == '"':
            in_str = not in_str
        elif in_str:
            continue
        elif ch == "#":
            in_comment = True
        elif ch == "(":
            depth += 1
            if depth > MAX_NESTING:
                return line, i - start + 1
        elif ch == ")" and depth:
            depth -= 1
    return None


#: The rules of the grammar that nest: a block (a level of indentation), and every operator of an
#: expression.  Blocks and the operators of one expression are counted apart, each up to
#: MAX_NESTING; the grammar's other rules (a clause, a parameter) sit a bounded number of levels
#: apart, so the depth of every recursive walk of the rules stays bounded.
_EXPRESSIONS = frozenset({
    "where", "with_best", "cond", "or_", "and_", "not_", "q_every", "q_any", "q_no", "compare", "equals",
    "is_", "is_not", "shows", "member", "not_member", "add", "sub", "mul", "neg", "showing", "other_than",
    "starting_with", "going", "possessive", "attr_of", "your", "left_of", "right_of", "call",
})


def _too_deep(tree: Tree) -> tuple[int, int] | None:
    """The line and column of the first block, or operator of an expression, nested more than
    MAX_NESTING deep, or None (iterative: the tree may be as deep as the file is long)."""
    stack = [(tree, 0, 0)]
    while stack:
        node, blocks, ops = stack.pop()
        if node.data == "block" or node.data == "variant_decl":
            blocks += 1
        elif node.data in _EXPRESSIONS:
            ops += 1
        if blocks > MAX_NESTING or ops > MAX_NESTING:
            meta = node.meta
            if getattr(meta, "empty", True):
                return 1, 1
            return meta.line, meta.column
        for child in reversed(node.children):  # leftmost first: report where the nesting starts
            if isinstance(child, Tree):
                stack.append((child, blocks, ops))
    return None
