"""The step API shared by the baselines: a game written as a generator, driven one action at a time.

Each game module writes its rules a second time as a generator, `flow(players, ...)`, that mirrors
the ruleset's phases and yields at every point where the engine would wait:

- ``(PLAYER, p, texts)``: player ``p`` chooses one of ``texts``, the engine's canonical action
  texts in the engine's order; the generator is sent the chosen text.
- ``(CHANCE, None, texts)``: chance; every entry of ``texts`` is equally likely (a card that is
  in the deck twice is listed twice); the generator is sent the outcome's text.
- ``(SIMULTANEOUS, players, {p: texts})``: every player of ``players`` chooses in secret (texts
  start with ``"pN: "``); the generator is sent ``{p: text}`` once all have chosen.

When the game is over the generator returns ``(scores, winners)``.

This is slow by design (texts are built at every decision): it exists to be compared, text for
text, with the engine.  The fast random playouts, ``play()`` in each module, share none of it.
"""

from __future__ import annotations

from fractions import Fraction

PLAYER = "player"
CHANCE = "chance"
SIMULTANEOUS = "simultaneous"


class IllegalText(ValueError):
    """A text that is not one of the choices offered now."""


class Step:
    """One game played through its `flow` generator.

    - `current`: the player (int) to act, ``"chance"``, ``"simultaneous"``, or None when over;
    - `legal(player=None)`: the action texts offered (at chance: the outcomes, once each);
    - `chance_outcomes()`: ``[(text, Fraction)]`` at chance;
    - `waiting`: who still has to choose (a simultaneous choice) or ``[p]``;
    - `apply(text)`: a player's action, an ``"pN: …"`` simultaneous choice, or a chance outcome;
    - `scores()`, `winners()` once over; `decisions` counts the player choices made (every
      simultaneous choice counts one, as an `apply` on the engine does)."""

    def __init__(self, gen):
        self._gen = gen
        self._result = None
        self._pending: dict = {}
        self.decisions = 0
        self._node = None
        self._send(None)

    def _send(self, value) -> None:
        try:
            self._node = self._gen.send(value)
        except StopIteration as stop:
            self._node = None
            self._result = stop.value
        self._pending = {}

    @property
    def is_over(self) -> bool:
        return self._node is None

    @property
    def current(self):
        node = self._node
        if node is None:
            return None
        if node[0] == PLAYER:
            return node[1]
        return node[0]

    @property
    def waiting(self) -> list[int]:
        node = self._node
        if node is None or node[0] == CHANCE:
            return []
        if node[0] == PLAYER:
            return [node[1]]
        return [p for p in node[1] if p not in self._pending]

    def legal(self, player=None) -> list[str]:
        node = self._node
        if node is None:
            return []
        kind = node[0]
        if kind == PLAYER:
            if player is not None and player != node[1]:
                return []
            return list(node[2])
        if kind == CHANCE:
            return list(dict.fromkeys(node[2]))
        if player is None:
            raise ValueError("a simultaneous choice: ask legal(player)")
        if player not in self.waiting:
            return []
        return list(node[2][player])

    def chance_outcomes(self) -> list[tuple[str, Fraction]]:
        node = self._node
        if node is None or node[0] != CHANCE:
            return []
        texts = node[2]
        counts: dict = {}
        for t in texts:
            counts[t] = counts.get(t, 0) + 1
        return [(t, Fraction(k, len(texts))) for t, k in counts.items()]

    def apply(self, text: str) -> "Step":
        node = self._node
        if node is None:
            raise IllegalText(f"{text!r}: the game is over")
        kind = node[0]
        if kind == SIMULTANEOUS:
            head = text.split(":", 1)[0]
            player = int(head[1:]) if head.startswith("p") and head[1:].isdigit() else None
            if player not in self.waiting or text not in node[2][player]:
                raise IllegalText(f"{text!r} is not a choice now")
            self._pending[player] = text
            self.decisions += 1
            if len(self._pending) == len(node[1]):
                self._send(self._pending)
            return self
        if text not in node[2]:
            raise IllegalText(f"{text!r} is not one of {list(dict.fromkeys(node[2]))[:12]}")
        if kind == PLAYER:
            self.decisions += 1
        self._send(text)
        return self

    def scores(self) -> list[int]:
        if self._result is None:
            raise ValueError("the game is not over")
        return list(self._result[0])

    def winners(self) -> list[int]:
        if self._result is None:
            raise ValueError("the game is not over")
        return list(self._result[1])

    def play_random(self, rng) -> "Step":
        """Play on to the end: uniform choices at every decision, chance by its probabilities."""
        while self._node is not None:
            node = self._node
            kind = node[0]
            texts = node[2][self.waiting[0]] if kind == SIMULTANEOUS else node[2]
            self.apply(texts[rng.randrange(len(texts))])
        return self


def highest(scores) -> list[int]:
    """The players with the highest score (every one of them on a tie)."""
    best = max(scores)
    return [p for p, s in enumerate(scores) if s == best]
