"""One way to walk a tree: the nodes inside a node, every node below it, those of some kinds.

Every node of the syntax tree (`fishrules.nodes`) and of the checked model (`fishrules.model`) is a
`Node`: a frozen attrs class whose fields hold plain values, other nodes, and tuples of nodes (a
tuple of pairs, for an `if`'s branches; the model's dicts of declarations too).  A pass that looks
through a tree for something uses these methods, as jinja2's nodes have `iter_child_nodes` and
`find_all`; a pass that turns each kind of node into something else dispatches on the node's kind
(`visit_<Node>`) instead.

- `iter_child_nodes()`: the nodes directly inside a node, in the order they are written;
- `walk()`: the node and every node below it, each before the nodes inside it;
- `find_all(kinds)`: the nodes of `walk()` of some kinds;

and the functions `walk(roots)` and `find_all(roots, kinds)` do the same for several trees (the
statements of a block, the items of a file).

`walk` and `find_all` are iterative, so a tree as deep as the limits allow is walked without
recursion, and take `stop_at`: kinds of node that are yielded but not looked inside (a pass over
statements stops at their expressions).  They go in the order the nodes are written, or with
`last_first` in the order a stack takes them: each node still before the nodes inside it, but of
nodes side by side the last first.  The checker's passes whose outcome depends on the order (which
of several faults a message names, the order the defines are checked and compiled in) were written
for that order, and keep it.
"""

from __future__ import annotations

from typing import Any, ClassVar, Iterable, Iterator

import attrs

__all__ = ["Node", "walk", "find_all"]

#: node class -> the names of its fields that may hold nodes (all but its span and its data)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        skip = {"span", *getattr(cls, "data_fields", ())}
        names = _FIELDS[cls] = tuple(f.name for f in attrs.fields(cls) if f.name not in skip)
    return names


def _nodes_in(value: Any) -> Iterator["Node"]:
    """The nodes in a tuple (or a dict's values), through the tuples inside it, in order."""
    for v in value.values() if isinstance(value, dict) else value:
        if isinstance(v, Node):
            yield v
        elif isinstance(v, (tuple, dict)):
            yield from _nodes_in(v)


class Node:
    """A node of a tree of syntax or of the model (see the module's documentation).  A node class
    names in `data_fields` the fields that hold plain data, never a node (a constant's value, a
    board's lines): a walk does not look through them, however large they are."""

    __slots__ = ()
    data_fields: ClassVar[tuple[str, ...]] = ()

    def iter_child_nodes(self) -> Iterator["Node"]:
        """The nodes directly inside this one, in the order of its fields (and of the tuples that
        hold them)."""
        for name in _fields(type(self)):
            v = getattr(self, name)
            if isinstance(v, Node):
                yield v
            elif isinstance(v, (tuple, dict)):
                yield from _nodes_in(v)

    def walk(self, stop_at: type | tuple[type, ...] = (), last_first: bool = False) -> Iterator["Node"]:
        """This node and every node below it (see `walk`)."""
        return walk((self,), stop_at, last_first)

    def find_all(self, kinds: type | tuple[type, ...], stop_at: type | tuple[type, ...] = (),
                 last_first: bool = False) -> Iterator[Any]:
        """The nodes of `self.walk(stop_at, last_first)` that are of one of `kinds`."""
        return find_all((self,), kinds, stop_at, last_first)


def walk(roots: Iterable[Node], stop_at: type | tuple[type, ...] = (), last_first: bool = False) -> Iterator[Node]:
    """Each of `roots` and every node below it, each node before the nodes inside it, in the order
    they are written (with `last_first`, of nodes side by side the last first: the last root, and
    the last node inside a node, first).  The nodes inside a node of a kind in `stop_at` are left
    out (that node is not)."""
    stack: list[Node] = list(roots) if last_first else list(reversed(tuple(roots)))
    while stack:
        x = stack.pop()
        yield x
        if stop_at and isinstance(x, stop_at):
            continue
        if last_first:
            stack.extend(x.iter_child_nodes())
        else:
            stack.extend(reversed(tuple(x.iter_child_nodes())))


def find_all(roots: Iterable[Node], kinds: type | tuple[type, ...], stop_at: type | tuple[type, ...] = (),
             last_first: bool = False) -> Iterator[Any]:
    """The nodes of `walk(roots, stop_at, last_first)` that are of one of `kinds`."""
    for x in walk(roots, stop_at, last_first):
        if isinstance(x, kinds):
            yield x
