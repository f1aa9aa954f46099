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


def esc(text: Any) -> str:
    """`text` as HTML text or an attribute value: &, <, >, " and ' escaped."""
    return html.escape(str(text), quote=True)


def _children(items: Iterable[Any], out: list) -> None:
    for c in items:
        if c is None or c is False:
            continue
        if isinstance(c, Markup):
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


def tag(name: str, attrs: Optional[dict] = None, *children: Child) -> Markup:
    """`<name attrs>children</name>`.  An attribute of value None or False is left out, True is
    written bare; `class_` stands for `class` and `_` in a name for `-` (`data_pick` is
    `data-pick`).  Void elements take no children."""
    parts = [name]
    for k, v in (attrs or {}).items():
        if v is None or v is False:
            continue
        key = k.rstrip("_").replace("_", "-")
        if not _NAME.fullmatch(key) and key not in ("viewBox", "text-anchor", "dominant-baseline"):
            raise ValueError(f"bad attribute name {key!r}")
        parts.append(key if v is True else f'{key}="{esc(v)}"')
    head = "<" + " ".join(parts)
    if name in _VOID and not children:
        return Markup(head + ">" if name in ("input", "br", "meta", "link", "img", "hr") else head + "/>")
    return Markup(head + ">" + join(*children) + f"</{name}>")
