"""A very small HTML builder that escapes everything it is not told is markup.

Every text that reaches a page — rule texts, titles, names, card labels, options, error messages —
comes from somebody who may be hostile, so nothing is ever pasted into HTML as it is: `tag()`
escapes its children's text and its attributes' values, and only what `tag()` (or `Markup`)
produced is taken as markup.
"""

from __future__ import annotations

import html
import re
from typing import Any, Iterable, Optional, Union

__all__ = ["Markup", "tag", "esc", "join"]

_NAME = re.compile(r"[a-z][a-z0-9-]*")


class Markup(str):
    """Text that is HTML already (built by `tag`): not escaped again."""

    __slots__ = ()


Child = Union[str, int, float, Markup, None, Iterable[Any]]


_ESCAPED: dict = {}  # short texts escaped already: labels and names come back in every frame


def esc(text: Any) -> str:
    """`text` as HTML text or an attribute value: &, <, >, " and ' escaped."""
    t = type(text)
    if t is int or t is float:
        return str(text)
    s = text if t is str else str(text)
    r = _ESCAPED.get(s)
    if r is None:
        r = html.escape(s, quote=True)
        if len(s) <= 200 and len(_ESCAPED) < 50_000:
            _ESCAPED[s] = r
    return r


def _children(items: Iterable[Any], out: list) -> None:
    for c in items:
        t = type(c)
        if t is Markup:
            out.append(c)
        elif t is str or t is int or t is float:
            out.append(esc(c))
        elif c is None or c is False:
            continue
        elif isinstance(c, Markup):
            out.append(c)
        elif isinstance(c, (str, int, float)):
            out.append(esc(c))
        else:
            _children(c, out)


def join(*children: Child) -> Markup:
    out: list = []
    _children(children, out)
    return Markup("".join(out))


_VOID = {"input", "br", "meta", "link", "img", "hr", "circle", "line", "polyline", "rect", "path", "use"}
_HTML_VOID = {"input", "br", "meta", "link", "img", "hr"}
_KEYS: dict = {}


def _key(k: str) -> str:
    key = _KEYS.get(k)
    if key is None:
        key = k.rstrip("_").replace("_", "-")
        if not _NAME.fullmatch(key) and key not in ("viewBox", "text-anchor", "dominant-baseline"):
            raise ValueError(f"bad attribute name {key!r}")
        _KEYS[k] = key
    return key


def tag(name: str, attrs: Optional[dict] = None, *children: Child) -> Markup:
    """`<name attrs>children</name>`.  An attribute of value None or False is left out, True is
    written bare; `class_` stands for `class` and `_` in a name for `-` (`data_pick` is
    `data-pick`).  Void elements take no children."""
    # One list joined once: a frame is thousands of tags, drawn at every action (measured).
    out: list = ["<", name]
    if attrs:
        for k, v in attrs.items():
            if v is None or v is False:
                continue
            key = _key(k)
            if v is True:
                out += (" ", key)
            else:
                out += (" ", key, '="', esc(v), '"')
    if not children and name in _VOID:
        out.append(">" if name in _HTML_VOID else "/>")
        return Markup("".join(out))
    out.append(">")
    _children(children, out)
    out += ("</", name, ">")
    return Markup("".join(out))
