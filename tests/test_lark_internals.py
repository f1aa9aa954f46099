"""The parts of Lark that are not its public API, as error recovery uses them.

Going on after a syntax error drives Lark's LALR tables by hand, through
`fishrules.syntax.lark_internals.TableDriver` (the one module that reaches into Lark's objects;
its docstring lists what it touches).  Each test here exercises one of those operations the way
`fishrules.syntax.recovery` does, and says which one a Lark release broke: after such a release,
fix `lark_internals.py` (and only it), run these tests and `tests/test_recovery.py` on the new
release, then widen the `lark` range in pyproject.toml to what they have passed on.

pyproject.toml allows the Lark releases these tests and test_recovery.py have passed on (see the
comment there); `test_installed_lark_is_in_the_proven_range` keeps the two in step.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import lark
import pytest
from lark import Token, Tree
from lark.exceptions import UnexpectedToken

from fishrules.syntax import parse_partial
from fishrules.syntax.lark_internals import TableDriver
from fishrules.syntax.lark_parser import lalr_parser

ROOT = Path(__file__).resolve().parent.parent
TEXT = 'game "x"\nplayers 2 to 2\n'
PLAYERS_AT = TEXT.index("players")  # where line 2 starts


def changed(what: str) -> str:
    return (f"Lark {lark.__version__} differs from what fishrules.syntax.lark_internals relies on, in {what}: "
            "adapt that module before allowing this release in pyproject.toml")


def driver(text: str = TEXT) -> TableDriver:
    try:
        return TableDriver(lalr_parser(), text)
    except (AttributeError, TypeError) as exc:
        pytest.fail(changed(f"the interactive parser's parts (parser_state, parse_conf, lexer_thread): {exc!r}"))


def feed_line(d: TableDriver, tokens) -> list[Token]:
    """Lex and feed the tokens of one line, its `_NL` included (the lexer reads by the parser's state)."""
    fed = []
    for tok in tokens:
        d.feed(tok)
        fed.append(tok)
        if tok.type == "_NL":
            break
    return fed


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def test_installed_lark_is_in_the_proven_range():
    """The range pyproject.toml allows is the one this file has been run on (the comment beside it
    names the releases); the Lark these tests run on is in it."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    spec = re.search(r'"lark>=([\d.]+),<=([\d.]+)"', pyproject)
    assert spec is not None, "pyproject.toml pins lark as >=LOW,<=HIGH: the releases these tests passed on"
    low, high = version(spec.group(1)), version(spec.group(2))
    assert low <= version(lark.__version__) <= high


def test_the_lexer_reads_by_the_parsers_state():
    d = driver()
    try:
        tokens = d.lex()
        first = feed_line(d, tokens)
    except (AttributeError, TypeError) as exc:
        pytest.fail(changed(f"the contextual lexer (lexer_thread.lexer.lexer.lex(lexer_state, parser_state)): {exc!r}"))
    assert [(t.type, str(t), t.line, t.column, t.start_pos) for t in first] == [
        ("GAME", "game", 1, 1, 0), ("STRING", '"x"', 1, 6, 5), ("_NL", "\n", 1, 9, 8)], changed("the tokens the lexer gives")


def test_feeding_the_end_gives_the_tree():
    d = driver()
    tokens = d.lex()
    feed_line(d, tokens)
    feed_line(d, tokens)
    tree = d.feed(Token("$END", ""))
    assert isinstance(tree, Tree) and tree.data == "start", changed("ParserState.feed_token(token, is_end=True)")
    assert [c.data for c in tree.children] == ["game_decl", "players_decl"]


def test_a_trial_feed_changes_nothing():
    d = driver()
    tokens = d.lex()
    d.feed(next(tokens))  # `game`
    before = list(d.values)
    try:
        yes, no = d.accepts("STRING"), d.accepts("INT")
    except (AttributeError, TypeError) as exc:
        pytest.fail(changed(f"ParserState.copy(deepcopy_values=False) or its parse_conf.callbacks: {exc!r}"))
    assert (yes, no) == (True, False), changed("what a copied ParserState accepts")
    assert d.values == before, changed("ParserState.copy: a trial feed changed the parser it was copied from")
    rest = feed_line(d, tokens)  # the real parser goes on as if nothing was tried
    assert [t.type for t in rest] == ["STRING", "_NL"]


def test_what_the_parser_expects_is_named():
    d = driver()
    d.feed(next(d.lex()))  # `game`
    try:
        exc = d.unexpected(Token("INT", "3"))
    except (AttributeError, TypeError, KeyError) as e:
        pytest.fail(changed(f"parse_conf.states[position] or the InteractiveParser constructor: {e!r}"))
    assert isinstance(exc, UnexpectedToken)
    assert exc.expected == {"STRING"}, changed("ParseConf.states / ParserState.position")
    assert exc.accepts == {"STRING"}, changed("InteractiveParser(parser, parser_state, lexer_thread).accepts()")


def test_an_error_of_the_lexer_is_given_the_parser():
    d = driver('game 3\n')
    tokens = d.lex()
    d.feed(next(tokens))
    with pytest.raises(UnexpectedToken) as info:  # the contextual lexer: a number cannot come here
        next(tokens)
    exc = d.explained(info.value)
    assert exc is info.value and exc.interactive_parser is not None
    assert exc.accepts == {"STRING"}, changed("UnexpectedToken.interactive_parser / accepts")


def test_values_are_taken_back_off_the_stacks():
    d = driver()
    tokens = d.lex()
    feed_line(d, tokens)
    d.feed(next(tokens))  # `players` (the first line is reduced to a tree as it comes)
    kept = len(d.values) - 1
    try:
        d.drop_value()  # take `players` back
    except (AttributeError, IndexError) as exc:
        pytest.fail(changed(f"ParserState.value_stack / state_stack: {exc!r}"))
    assert len(d.values) == kept, changed("ParserState.value_stack")
    assert d.accepts("PLAYERS") and not d.accepts("INT"), changed("ParserState.state_stack: the parser is not back where it was")
    d.feed(Token("PLAYERS", "players", PLAYERS_AT, 2, 1, 2, 8, PLAYERS_AT + 7))
    d.keep_values(kept)  # and again, the other way
    assert len(d.values) == kept and d.accepts("PLAYERS"), changed("ParserState.value_stack / state_stack")
    feed_line(d, d.lex_from(PLAYERS_AT, 2, 0))
    tree = d.feed(Token("$END", ""))
    assert [c.data for c in tree.children] == ["game_decl", "players_decl"], changed("ParserState.value_stack")


def test_the_lexer_starts_again_at_a_line():
    d = driver()
    feed_line(d, d.lex())
    try:
        tokens = d.lex_from(PLAYERS_AT, 2, 0)
        tok = next(tokens)
    except (AttributeError, TypeError) as exc:
        pytest.fail(changed(f"LexerState.line_ctr (char_pos, line, line_start_pos, column): {exc!r}"))
    assert (tok.type, tok.line, tok.column, tok.start_pos) == ("PLAYERS", 2, 1, PLAYERS_AT), changed("LexerState.line_ctr")
    d.lex_at_end(len(TEXT))
    assert list(d.lex()) == [], changed("LexerState.line_ctr.char_pos")


def test_the_driver_uses_no_more_than_its_docstring_lists():
    """What `lark_internals` reaches into is listed in its docstring; a new use is listed there too
    (and tested here)."""
    import fishrules.syntax.lark_internals as internals

    code = inspect.getsource(internals.TableDriver)
    used = set(re.findall(r"\.(parser_state|parse_conf|callbacks|states|position|value_stack|state_stack|copy|"
                          r"feed_token|lexer_thread|line_ctr|char_pos|line_start_pos|lexer|lex)\b", code))
    for name in used:
        assert name in internals.__doc__, f"lark_internals uses `{name}` without listing it in its docstring"


def test_recovery_on_this_lark():
    """Recovery as a whole, on the Lark installed: three broken lines, three errors, the rest read."""
    text = ('game "x"\nplayers 2 to 2\nphase game:\n  roll )\n  set x to\n'
            '  nothing\naction go:\n  require "r" yes\n  nothing\n')
    parsed = parse_partial(text, "t.fish")
    assert [(d.span.line, d.message) for d in parsed.errors] == [
        (4, "unexpected `)`; expected `(`, `-`, `if`, `it`, `no`, a name, a text in double quotes, a whole number or …"),
        (5, "this line ends too early; expected `(`, `-`, `if`, `it`, `no`, a name, a text in double quotes, a whole number or …"),
        (8, "unexpected `yes`; expected `:`"),
    ]
    assert [type(i).__name__ for i in parsed.module.items] == ["GameDecl", "PlayersDecl", "Phase", "Action"]
