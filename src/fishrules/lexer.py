"""A Pygments lexer for .fish rule files: `FishrulesLexer`, alias `fishrules`.

`.fish` is also the fish shell's extension, and Pygments's `fish` lexer is for that shell, so the
rules' lexer is named `fishrules` (in Markdown: a ```` ```fishrules ```` fence).  It is registered
through the `pygments.lexers` entry point of the package (pyproject.toml), and claims no file
name pattern: a rules folder associates its `.fish` files with it (docs/editors.md).

Pygments is imported here only; nothing else in fishrules imports this module.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Whitespace

__all__ = ["FishrulesLexer"]

#: Words that start a declaration at the left edge of a file.
DECLARATIONS = ("game", "players", "extends", "option", "dice", "cards", "tiles", "tokens", "define", "board",
                "phase", "action", "score", "winners", "variant", "replace", "remove", "add", "rule", "presentation")
#: Words of statements and clauses.
STATEMENTS = ("each", "has", "the", "set", "to", "subtract", "from", "clear", "roll", "all", "play", "again",
              "end", "chooses", "secretly", "nothing", "require", "move", "draw", "shuffle", "reveal", "unavailable",
              "face", "up", "down", "if", "then", "otherwise", "repeat", "times", "while", "until", "for", "when",
              "broken", "with", "faces", "seen", "by", "line", "circles", "before", "after", "at", "start", "of",
              "some", "one", "a", "number", "numbers", "list", "zone", "zones", "player", "x", "secret", "hidden",
              "internal", "public", "highest", "lowest", "other", "than", "starting", "going", "your", "left", "right",
              "value", "attribute", "log", "about", "out")
#: Words that combine conditions and collections.
WORD_OPERATORS = ("and", "or", "not", "in", "is", "where", "every", "any", "no", "shows", "showing")
CONSTANTS = ("yes", "nobody", "you", "it")
#: The built-in functions (fishrules.checker.BUILTINS).
BUILTINS = ("count", "sum", "min", "max", "largest", "smallest", "abs", "first", "last", "divide", "top",
            "distinct", "adjacent", "slide")


class FishrulesLexer(RegexLexer):
    """The .fish rule language of fishrules."""

    name = "fishrules"
    aliases = ["fishrules"]
    filenames: list[str] = []  # `.fish` is the fish shell's; a rules folder says which it means
    mimetypes = ["text/x-fishrules"]
    url = "https://github.com/fishrules/fishrules"

    tokens = {
        "root": [
            (r"[ \t\f]+", Whitespace),
            (r"\r?\n", Whitespace),
            (r"#.*?$", Comment.Single),
            (r'"[^"\n]*"', String.Double),
            (r"\d+", Number.Integer),
            (r"'s\b", Operator),
            (words(DECLARATIONS, prefix=r"^", suffix=r"\b"), Keyword.Declaration),
            (words(BUILTINS, suffix=r"\b"), Name.Builtin),
            (words(WORD_OPERATORS, suffix=r"\b"), Operator.Word),
            (words(CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(STATEMENTS + DECLARATIONS, suffix=r"\b"), Keyword),
            (r"([A-Za-z_]\w*)(\s*)(?=\()", bygroups(Name.Function, Whitespace)),
            (r"[A-Z][A-Z0-9_]*\b", Name.Constant),
            (r"[A-Za-z_]\w*", Name),
            (r"!=|<=|>=|[<>=+\-*]", Operator),
            (r"[(),:]", Punctuation),
            (r"\\(?=[ \t\f]*\r?\n)", Punctuation),  # a line continued
        ],
    }

    def analyse_text(text: str) -> float:  # type: ignore[override]  # Pygments calls it on the class
        """Rules start with `game "…"` or `extends "…"`; the fish shell's scripts do not."""
        for line in text.splitlines()[:30]:
            s = line.strip()
            if s.startswith(('game "', 'extends "')):
                return 0.6
            if s and not s.startswith("#"):
                break
        return 0.0
