"""What the workers of `fishrules serve` run (see workers.py): every piece of rule work, as a
function of plain data in and plain data out.

A worker keeps two caches, both bounded, neither needed for being right:

- games, by what identifies their rules (a bundled ruleset's name, or the hash of a pasted text,
  with the variant): at most `MOST_GAME_BYTES` of rule text;
- table positions, by table: the state a table is at, with the `nonce` the server gave that
  position.  A job about a table names the position it wants; a worker that holds another (or
  none) answers `Miss("position")`, and the server sends the table's history to be replayed.  So a
  table can move from worker to worker, and a worker can be killed, without anything being lost:
  the store's history is the truth, a worker's position only a copy of it.

The bundled rulesets are read when this module is imported, once, by the fork server every worker
is forked from.
"""

from __future__ import annotations

import collections
import hashlib
from typing import Any, Optional

import attrs

import fishrules
from fishrules import SIMULTANEOUS, FishrulesError, IllegalAction, OptionError, StateError

from ..errors import RuleError
from ..logs import rules_hash, rules_texts
from .diagnostics import HOUSE_RULE_NAME, Rejected, diagnostics_html
from .render import frame_data
from .workers import Miss

#: Rule text of the games a worker keeps read (a house rule is at most 128 KiB).
MOST_GAME_BYTES = 16 << 20
#: Table positions a worker keeps.
MOST_POSITIONS = 512


@attrs.frozen
class RulesInfo:
    """What the server shows of a game without playing it: the set-up page, a table's
    declarations, and what a table's record keeps of its rules."""

    key: tuple  # what identifies these rules to a worker
    title: str
    min_players: int
    max_players: int
    variants: tuple  # the variants these rules name
    options: tuple  # fishrules.OptionInfo, in order
    describe: dict  # Game.describe()
    variant: Optional[str]  # the variant played (Game.variant)
    rules_name: str
    rules_text: str
    rules_hash: str
    warnings: tuple = ()  # the checker's warnings, rendered

    @property
    def option_map(self) -> dict:
        return {o.name: o for o in self.options}


@attrs.frozen
class Source:
    """Where a table's rules come from, as its record keeps them (see store.TableRecord)."""

    ruleset: Optional[str]
    variant: Optional[str]
    rules_name: str
    rules_text: str
    rules_variant: Optional[str]
    rules_hash: str


@attrs.frozen
class Position:
    """A table's position as a job asks for it: which table, the nonce of the position, and how
    to make it again when the worker does not hold it (`history`, `source`: sent after a Miss)."""

    table: str
    nonce: int
    rules: tuple  # RulesInfo.key
    players: int
    options: dict
    seed: int
    history: Optional[tuple] = None
    source: Optional[Source] = None


@attrs.frozen
class Meta:
    """What the server needs to know of a position to take actions at it."""

    at: int
    over: bool
    current: Any
    waiting: tuple


# ---- games -------------------------------------------------------------------------------------

_games: "collections.OrderedDict[tuple, tuple[fishrules.Game, int, str]]" = collections.OrderedDict()
_game_bytes = 0


def _keep_game(key: tuple, game: fishrules.Game, size: int, backend: str) -> fishrules.Game:
    global _game_bytes
    old = _games.pop(key, None)
    if old is not None:
        _game_bytes -= old[1]
    _games[key] = (game, size, backend)
    _game_bytes += size
    while _game_bytes > MOST_GAME_BYTES and len(_games) > 1:
        _, (_, n, _) = _games.popitem(last=False)
        _game_bytes -= n
    return game


def _cached(key: tuple) -> Optional[fishrules.Game]:
    found = _games.get(key)
    if found is None:
        return None
    game, _, backend = found
    if backend == "python" and _backend(game) == "auto":
        return None  # its kernel was compiled since: read it again to play on it
    _games.move_to_end(key)
    return game


def _backend(game: fishrules.Game) -> str:
    """"auto" when the game's native kernel is built already, else "python": a worker never
    compiles on the way (compiles are jobs of their own, `compile_kernel`)."""
    from ..kernel import native_is_cached

    return "auto" if native_is_cached(game) else "python"


def _load(key: tuple, text: Optional[str] = None) -> fishrules.Game:
    """The game of `key`: ("bundled", name, variant) or ("text", sha256, variant) with its `text`;
    a text is checked against its hash.  Read with the backend the cache allows."""
    game = _cached(key)
    if game is not None:
        return game
    kind, ident, variant = key
    if kind == "bundled":
        if ident not in fishrules.bundled():
            raise OptionError(f"there is no bundled ruleset {str(ident)[:60]!r}")
        game = fishrules.load(ident, variant, backend="python")
        size = len(rules_texts(game)[0][1])
        backend = _backend(game)
        if backend == "auto":
            game = fishrules.load(ident, variant, backend="auto")
        return _keep_game(key, game, size, backend)
    if text is None:
        raise Miss("rules")
    if hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() != ident:
        raise StateError("the rules sent do not match their hash")
    game = fishrules.loads(text, HOUSE_RULE_NAME, variant=variant, base_dir=None, backend="python")
    backend = _backend(game)
    if backend == "auto":
        game = fishrules.loads(text, HOUSE_RULE_NAME, variant=variant, base_dir=None, backend="auto")
    return _keep_game(key, game, len(text), backend)


def text_key(text: str, variant: Optional[str]) -> tuple:
    """The key of a pasted rule text (see `_load`)."""
    return ("text", hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), variant)


def _info(key: tuple, game: fishrules.Game) -> RulesInfo:
    texts = rules_texts(game)
    variants = tuple(game.variants) if key[0] == "bundled" else tuple(game._resolved.variants)
    return RulesInfo(
        key=key, title=game.title, min_players=game.min_players, max_players=game.max_players,
        variants=variants, options=tuple(game.options.values()), describe=game.describe(), variant=game.variant,
        rules_name=texts[0][0].name if texts[0][0] is not None else HOUSE_RULE_NAME, rules_text=texts[0][1],
        rules_hash=rules_hash(texts))


def bundled_infos() -> dict:
    """Every bundled ruleset and each of its variants: {(name, variant or None): RulesInfo}."""
    out = {}
    for name in fishrules.bundled():
        key = ("bundled", name, None)
        game = _load(key)
        out[(name, None)] = _info(key, game)
        for v in game.variants:
            vkey = ("bundled", name, v)
            out[(name, v)] = _info(vkey, _load(vkey))
    return out


def check(text: str, variant: Optional[str]) -> RulesInfo:
    """Read and check a pasted rule text: what the set-up page needs, its warnings drawn as
    `fishrules check` prints them; or `Rejected`, its problems drawn here (their drawing costs as
    the text does: not for the server's loop)."""
    key = text_key(text, variant)
    try:
        game = _load(key, text)
    except RuleError as e:
        raise Rejected(str(e).split("\n", 1)[0][:500], str(diagnostics_html(text, e))) from None
    info = _info(key, game)
    if game.warnings:
        info = attrs.evolve(info, warnings=(str(diagnostics_html(text, RuleError(list(game.warnings)))),))
    return info


def compile_kernel(key: tuple, text: Optional[str]) -> str:
    """Build the native kernel of the rules of `key` (into the kernel cache, where every worker
    finds it): the backend they play on, "native" or "python" (no compiler, or rules the kernel
    does not take)."""
    kind, ident, variant = key
    if kind == "bundled":
        game = fishrules.load(ident, variant, backend="auto")
    else:
        if text is None:
            raise Miss("rules")
        game = fishrules.loads(text, HOUSE_RULE_NAME, variant=variant, base_dir=None, backend="auto")
    try:
        return game.backend
    except FishrulesError:
        return "python"


# ---- positions ---------------------------------------------------------------------------------

_positions: "collections.OrderedDict[str, tuple[int, fishrules.State]]" = collections.OrderedDict()


def _game_of_source(key: tuple, src: Optional[Source]) -> fishrules.Game:
    """The rules a stored table was played with: the bundled ruleset if it is unchanged, else the
    text the table carries; refused if neither hashes as recorded."""
    game = _cached(key)
    if game is not None:
        return _load(key)
    if src is None:
        raise Miss("rules")
    if key[0] == "bundled":
        try:
            return _load(key)
        except FishrulesError:
            raise StateError(f"the bundled ruleset {src.ruleset!r} cannot be read") from None
    game = _load(key, src.rules_text)
    found = rules_hash(rules_texts(game))
    if found != src.rules_hash:
        raise StateError(f"this table was played with rules of hash {src.rules_hash[:12]}, but its rules now hash "
                         f"to {found[:12]}: the rules it extends changed since")
    return game


def _state(pos: Position) -> fishrules.State:
    held = _positions.get(pos.table)
    if held is not None and held[0] == pos.nonce:
        _positions.move_to_end(pos.table)
        return held[1]
    if pos.history is None:
        raise Miss("position")
    game = _game_of_source(pos.rules, pos.source)
    state = game.replay(list(pos.history), players=pos.players, options=pos.options, seed=pos.seed)
    _keep(pos.table, pos.nonce, state)
    return state


def _keep(table: str, nonce: int, state: fishrules.State) -> None:
    _positions[table] = (nonce, state)
    _positions.move_to_end(table)
    while len(_positions) > MOST_POSITIONS:
        _positions.popitem(last=False)


def meta(state: fishrules.State) -> Meta:
    return Meta(len(state.history), state.is_over, state.current, tuple(state.waiting))


def _frames(state: fishrules.State, seats: tuple) -> dict:
    return {seat: frame_data(state, seat) for seat in seats}


def table_start(pos: Position, seats: tuple) -> tuple:
    """A new table's first position: (its history, Meta, frames of `seats`).  A table whose set-up
    runs out of cards (a draw from an empty zone before anybody has chosen anything: a house rule
    that seats more players than the cards deal) is refused with `OptionError`, saying so."""
    game = _game_of_source(pos.rules, pos.source)
    short = _short_deal(game, pos)
    if short:
        raise OptionError(short)
    state = game.start(players=pos.players, seed=pos.seed, options=pos.options)
    _keep(pos.table, pos.nonce, state)
    return tuple(state.history), meta(state), _frames(state, seats)


def _short_deal(game: fishrules.Game, pos: Position) -> Optional[str]:
    """Why a table of these players and options cannot be dealt, or None: the set-up played once
    with its draws counted (`count_rules`), as `fishrules simulate` counts them."""
    from ..runtime import empty_draws

    probe = game.start(players=pos.players, seed=pos.seed, options=pos.options, count_rules=True)
    counted = getattr(probe, "empty_draws", None)
    if not counted:
        return None
    zones = ", ".join(f"`{name}`" for name in empty_draws(game, dict(counted), dict(counted)))
    return (f"With {pos.players} players the cards run out while the game is set up: a card is drawn from "
            f"{zones or 'a zone'} when it is empty. This table cannot be dealt; choose fewer players.")


def table_restore(pos: Position, seats: tuple) -> tuple:
    """A stored table read back (its history replayed): (Meta, frames of `seats`)."""
    state = _state(pos)
    return meta(state), _frames(state, seats)


def table_frames(pos: Position, seats: tuple) -> dict:
    """The frames of `seats` at the table's position."""
    return _frames(_state(pos), seats)


def _where_wrong(e: FishrulesError) -> str:
    """What a player is told of rules that went wrong on their action: where (the line of the
    rules, and what was being played), not what — the words of a rule that goes wrong may hold a
    value nobody else may see ("7 is not in the list …", where 7 is another player's secret
    choice).  An `unavailable "…"` says the rules' own words."""
    if not isinstance(e, RuleError) or not e.diagnostics or e.diagnostics[0].span is None:
        return str(e) if not isinstance(e, RuleError) else "the rules went wrong"
    d = e.diagnostics[0]
    said = f"at line {d.span.line} of the rules (`{d.span.source.line(d.span.line).strip()}`)"
    return f"{said}, {d.hint}" if d.hint and d.hint.startswith("while playing") else said


def table_act(pos: Position, text: str, nonce: int, seats: tuple) -> tuple:
    """Try `text` at the table's position: ("refused", message, rule, line) when the rules do not
    take it, else ("taken", the history entries it added, Meta, frames of `seats`).  The new
    position is kept under `nonce`: the server names it once the action is stored."""
    state = _state(pos)
    trial = state.clone()
    try:
        trial.apply(text)
    except IllegalAction as e:
        return ("refused", str(e), e.rule, e.span.line if e.span is not None else None)
    except FishrulesError as e:  # a house rule that goes wrong while playing: the rule says where
        return ("refused", f"The rules went wrong on this action, so it was not taken: {_where_wrong(e)}", None, None)
    entries = tuple(trial.history[len(state.history):])
    back = may_take_back(state, trial) and not _breaks(state, entries[0])
    _keep(pos.table, nonce, trial)
    # the position before stays good until the server says which one it stored: kept under its
    # own nonce beside the new one would double the cache; a refused commit is rare, and replays.
    return ("taken", entries, meta(trial), _frames(trial, seats), back)


def _seen_cards(view: dict) -> collections.Counter:
    """Every card label (and every other word) a view shows, counted."""
    out: collections.Counter = collections.Counter()
    todo: list = [view["values"], view["seats"], view.get("dice") or []]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
        elif isinstance(x, str):
            out[x] += 1
    return out


def may_take_back(before: fishrules.State, after: fishrules.State) -> bool:
    """Whether the step from `before` to `after` may be taken back by its player: one decision
    with no chance after it (nothing rolled or drawn), the same player still to play, and nothing
    any seat or spectator sees that it did not see before (no card turned up, none come to a hand
    from a hidden pile): taking it back then tells nobody anything the rules hide.  (A step that
    breaks a rule with a penalty stands too: `table_act` asks.)"""
    if (len(after.history) != len(before.history) + 1 or after.is_over or not isinstance(before.current, int)
            or before.current == SIMULTANEOUS or after.current != before.current):
        return False
    since = len(before.history)
    for v in [None] + list(range(after.n)):
        seen = _seen_cards(before.view(v))
        if _seen_cards(after.view(v)) - seen:
            return False
        # nor on the way: a card shown as it moved (laid, then sent back) or turned up and down again
        for e in after.events_for(v, since=since):
            if e["event"] == "reveal" or any(c is not None and c not in seen for c in e.get("cards", ())):
                return False
    return True


def _breaks(state: fishrules.State, text: str) -> bool:
    """Whether `text` breaks a rule that costs a penalty (`breaks`): such a step stands."""
    who = state.waiting[0] if state.current == SIMULTANEOUS else None
    return any(a.text == text and a.breaks for a in state.legal_actions(who))


def table_back(pos: Position, at: int, nonce: int, seats: tuple) -> tuple:
    """The table's position with its last step (taken at `at`) taken back: (Meta, frames of
    `seats`), kept under `nonce`; refused (StateError) unless `may_take_back` allows it."""
    state = _state(pos)
    before = state.game.replay(list(state.history[:at]), players=pos.players, options=pos.options, seed=pos.seed)
    if not may_take_back(before, state) or _breaks(before, state.history[at]):
        raise StateError("that step cannot be taken back")
    _keep(pos.table, nonce, before)
    return meta(before), _frames(before, seats)


def table_bot(pos: Position, p: int, kind: str, seed: int, at: int, iterations: int) -> str:
    """The action (its text) the bot `kind` at seat `p` takes at the table's position."""
    return bot_move(_state(pos).clone(), p, kind, seed, at, iterations)


def bot_move(state: fishrules.State, p: int, kind: str, seed: int, at: int, iterations: int) -> str:
    """The action (its text) the bot `kind` at seat `p` takes at position `at` of a table seeded
    `seed`: the command line's bots (`fishrules play --bot`), with a generator derived from the seed
    and the position, so that the same position always gets the same move."""
    from ..bots import bot_choice, bot_rng, make_bot

    rng = bot_rng(seed, at)
    if kind in ("mcts", "ismcts"):
        return make_bot(kind, seed=rng.getrandbits(63), iterations=iterations).choose(state, p).text
    return bot_choice(kind, state, p, rng).text


def preload() -> None:
    """Read the bundled rulesets once, in the fork server, before any worker is forked."""
    for name in fishrules.bundled():
        try:
            game = _load(("bundled", name, None))
            for v in game.variants:
                _load(("bundled", name, v))
        except FishrulesError:  # pragma: no cover - the bundled rulesets load
            pass
