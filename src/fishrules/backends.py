"""The names of what plays a game's many games, checked where a game is loaded (`load`, `loads`,
`Game`) before any kernel is built: a module of its own so that loading rules (`fishrules check`)
does not import the game kernel (its lowering and native build: a fifth of the command's start)."""

from __future__ import annotations

from typing import Any

from .errors import OptionError

__all__ = ["BACKENDS", "check_backend"]

#: "auto": the native kernel where it is built or cached, else the Python one
BACKENDS = ("auto", "native", "python")


def check_backend(backend: Any) -> str:
    """`backend` itself, if it names a backend (else the library's OptionError)."""
    if backend not in BACKENDS:
        raise OptionError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    return backend
