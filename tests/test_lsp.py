"""`fishrules lsp`, end to end: pytest-lsp starts the server as a subprocess (`python -m
fishrules.cli lsp`) and talks JSON-RPC to it over stdio as an editor would, on a bundled ruleset
and on an overlay of it (in a temporary rules folder)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest.importorskip("pytest_lsp")

import pytest_lsp  # noqa: E402
from lsprotocol import types as t  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FISHFRY = ROOT / "rulesets" / "fishfry.fish"

OVERLAY = """\
extends "fishfry"
game "Fishfry with a bonus"
# A bonus point for every fish caught.
define bonus: fish_caught + 1
replace score "catch": sum(your catch) + bonsu
"""

env = dict(os.environ)
env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "fishrules.cli", "lsp"], server_env=env))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(t.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("visual-studio-code"), root_uri=ROOT.as_uri()))
    yield
    await lsp_client.shutdown_session()


def open_doc(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.resolve().as_uri()
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=uri, language_id="fishrules", version=1, text=text if text is not None else path.read_text(encoding="utf-8"))))
    return uri


async def diagnostics(client: LanguageClient, uri: str):
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


@pytest.mark.asyncio
async def test_a_bundled_ruleset(client: LanguageClient):
    text = FISHFRY.read_text(encoding="utf-8")
    uri = open_doc(client, FISHFRY)
    assert await diagnostics(client, uri) == []
    # hover over a use of a define: what it is, its line and its comment
    use = line_of(text, "define turn_points:")
    col = text.splitlines()[use].index("fish_caught")
    hover = await client.text_document_hover_async(t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri),
                                                                 position=t.Position(use, col + 2)))
    assert "**define** `fish_caught`" in hover.contents.value and "BODIES" in hover.contents.value
    # go to its definition
    locs = await client.text_document_definition_async(t.DefinitionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(use, col + 2)))
    loc = locs if isinstance(locs, t.Location) else locs[0]
    assert loc.uri == uri and loc.range.start.line == line_of(text, "define fish_caught:")
    # document symbols: phases, actions, defines
    syms = await client.text_document_document_symbol_async(t.DocumentSymbolParams(text_document=t.TextDocumentIdentifier(uri=uri)))
    names = {(s.name, s.detail) for s in syms}
    assert {("game", "phase"), ("reroll", "action"), ("fish_caught", "define")} <= names
    # completion: keywords, names in scope, functions
    comp = await client.text_document_completion_async(t.CompletionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(use, 0)))
    labels = {i.label for i in comp.items}
    assert {"repeat", "fish_caught", "catch", "count", "HEAD", "roller"} <= labels


@pytest.mark.asyncio
async def test_an_overlay(client: LanguageClient, tmp_path):
    path = tmp_path / "bonus.fish"
    path.write_text(OVERLAY, encoding="utf-8")
    uri = open_doc(client, path)
    (diag,) = await diagnostics(client, uri)
    assert diag.range.start == t.Position(4, 41) and diag.range.end == t.Position(4, 46)
    assert "unknown name `bonsu`" in diag.message and diag.severity == t.DiagnosticSeverity.Error
    # the quick fix of its "did you mean"
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=t.CodeActionContext(diagnostics=[diag])))
    (fix,) = actions
    assert fix.title == "Change to `bonus`" and fix.kind == t.CodeActionKind.QuickFix
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text == "bonus" and edit.range == diag.range
    # hover over a name of the base: which file it comes from
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(3, 16)))
    assert "**define** `fish_caught`" in hover.contents.value and "fishfry.fish" in hover.contents.value
    # go to definition, into the bundled ruleset
    locs = await client.text_document_definition_async(t.DefinitionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(3, 16)))
    loc = locs if isinstance(locs, t.Location) else locs[0]
    assert loc.uri == FISHFRY.resolve().as_uri()
    # find references across the chain: the base's uses and the overlay's
    refs = await client.text_document_references_async(t.ReferenceParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(3, 16),
        context=t.ReferenceContext(include_declaration=True)))
    files = {r.uri for r in refs}
    assert files == {uri, FISHFRY.resolve().as_uri()} and len(refs) >= 3
    # its own symbols and the hover of its own define (with its comment)
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(3, 8)))
    assert "A bonus point for every fish caught." in hover.contents.value
    # the fix applied: diagnostics clear, a change at a time
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangeWholeDocument(text=OVERLAY.replace("bonsu", "bonus"))]))
    assert await diagnostics(client, uri) == []


# A character past U+FFFF is one code point (fishrules, Lark) but two UTF-16 units (the client,
# unless it agreed on another encoding); a U+2028 in a comment is no line break to the parser,
# though Python's `splitlines` takes it for one.
ASTRAL = ('extends "fishfry"\n# a comment \u2028 on one line\ngame "Fishfry with a bonus"\n'
          'define bonus: fish_caught + 1\nscore "\U0001F41F extra": bonsu + bonus\n')


def utf16(line: str, cp: int) -> int:
    return len(line[:cp].encode("utf-16-le")) // 2


@pytest.mark.asyncio
async def test_columns_are_counted_as_the_client_counts_them(client: LanguageClient, tmp_path):
    path = tmp_path / "astral.fish"
    path.write_text(ASTRAL, encoding="utf-8")
    uri = open_doc(client, path)
    (diag,) = await diagnostics(client, uri)
    line = ASTRAL.split("\n")[4]
    at = line.index("bonsu")
    assert diag.range.start == t.Position(4, utf16(line, at)) and diag.range.end == t.Position(4, utf16(line, at + 5))
    assert utf16(line, at) == at + 1  # the fish is two units
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=diag.range, context=t.CodeActionContext(diagnostics=[diag])))
    (fix,) = actions
    assert fix.edit.changes[uri][0].range == diag.range
    # a position the client sends, after the fish: the name there, and its range sent back
    use = line.rindex("bonus")
    hover = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(4, utf16(line, use) + 4)))
    assert "**define** `bonus`" in hover.contents.value
    assert hover.range == t.Range(t.Position(4, utf16(line, use)), t.Position(4, utf16(line, use + 5)))
    refs = await client.text_document_references_async(t.ReferenceParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(4, utf16(line, use) + 1),
        context=t.ReferenceContext(include_declaration=True)))
    assert {(r.range.start.line, r.range.start.character) for r in refs if r.uri == uri} == {(3, 7), (4, utf16(line, use))}


@pytest.mark.asyncio
async def test_references_on_a_long_line_with_wide_characters_stay_fast(client: LanguageClient, tmp_path):
    # every use's columns converted from code points to the client's units: once per line, not
    # once per use (a line of 8,000 uses after an emoji took minutes; the bound is loose on purpose)
    import time

    line = 'define bonus: 1\ndefine a: "\U0001F41F" == "x" or ' + " + ".join(["bonus"] * 8000) + " > 0\n"
    path = tmp_path / "long.fish"
    path.write_text('extends "fishfry"\ngame "Long"\n' + line, encoding="utf-8")
    uri = open_doc(client, path)
    await diagnostics(client, uri)
    started = time.monotonic()
    refs = await client.text_document_references_async(t.ReferenceParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(2, 8),
        context=t.ReferenceContext(include_declaration=True)))
    assert time.monotonic() - started < 30
    mine = sorted(r.range.start.character for r in refs if r.uri == uri and r.range.start.line == 3)
    text = (line.split("\n")[1])
    assert len(mine) == 8000 and mine[0] == len(text[:text.index("bonus")].encode("utf-16-le")) // 2


@pytest.mark.asyncio
async def test_every_syntax_error_and_formatting(client: LanguageClient, tmp_path):
    path = tmp_path / "broken.fish"
    text = (ROOT / "tests" / "broken" / "ten_errors.fish").read_text(encoding="utf-8")
    uri = open_doc(client, path, text)
    diags = await diagnostics(client, uri)
    assert len(diags) == 11 and all(d.severity == t.DiagnosticSeverity.Error for d in diags)
    assert sorted(d.range.start.line for d in diags) == [d.range.start.line for d in diags]
    # formatting a good file in a messy layout
    messy = 'game  "G"\nplayers 2 to 4\nphase game :\n    nothing\n'
    uri2 = open_doc(client, tmp_path / "messy.fish", messy)
    await diagnostics(client, uri2)
    edits = await client.text_document_formatting_async(t.DocumentFormattingParams(
        text_document=t.TextDocumentIdentifier(uri=uri2), options=t.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert edits[0].new_text == 'game "G"\nplayers 2 to 4\nphase game:\n  nothing\n'


@pytest.mark.asyncio
async def test_extends_stays_confined(client: LanguageClient, tmp_path):
    # a rule file may not make the server read a file outside its folder
    (tmp_path / "secret.fish").write_text('game "Secret"\nplayers 2 to 2\n', encoding="utf-8")
    inner = tmp_path / "rules"
    inner.mkdir()
    path = inner / "sneaky.fish"
    uri = open_doc(client, path, 'extends "../secret"\ngame "G"\n')
    (diag, *_) = await diagnostics(client, uri)
    assert "cannot extend" in diag.message and "Secret" not in diag.message
