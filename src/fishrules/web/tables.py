"""The tables a server runs: creating one, taking actions at it, bots, and telling browsers.

A `Table` is one game in memory: its rules, its state, the connections watching it.  `Tables`
keeps them, reads them back from the store (after a restart, a table is its record replayed with
its seed: it goes on exactly as it would have), and takes every action through one path,
`Tables.act`, whoever sends it, person or bot:

1. the action is tried on a copy of the state (a refused action changes nothing);
2. it is committed to the store;
3. only then does the table take the new state, and every browser at it is sent its new frame.

An action is tied to the position it was chosen at (`at`, the length of the history the browser
saw).  The same action sent again by the same seat (a double click, a frame sent twice after a
reconnection) is recognised and applied once; an action chosen at a position the game has left is
refused, saying so.  At a simultaneous choice the position a seat chose at stays good while the
others choose.

Bots play from the same rules of the command line (`fishrules play --bot`): their random
generator is derived from the table's seed and the position, so a restarted table's bots decide as
they would have.  Searching bots think in a thread of their own, on a copy of the state.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import re
import secrets
import threading
import time
from typing import Any, Callable, Optional

import fishrules
from fishrules import SIMULTANEOUS, FishrulesError, IllegalAction, OptionError, RuleError, StateError

from ..logs import FORMAT, rules_hash, rules_texts
from .render import TableInfo, frame_json
from .store import ActionRecord, Conflict, Store, TableRecord

__all__ = ["Tables", "Table", "Refusal", "BOT_KINDS", "SEAT_KINDS", "HOUSE_RULE_NAME"]

log = logging.getLogger("fishrules.web")

BOT_KINDS = ("random", "greedy", "mcts", "ismcts")
SEAT_KINDS = ("human",) + BOT_KINDS
#: The file name a house rule pasted in the lobby is read (and shown in diagnostics) under.
HOUSE_RULE_NAME = "house-rule.fish"
#: A seat's name: at most this many characters.
MOST_NAME = 40
_PREFIX = re.compile(r"\s*[pP]([0-9]{1,3})\s*:")
#: Reading rules is done by one thread at a time: the parser (Lark's, with its indentation
#: post-lexer) keeps state while it reads, and two threads reading at once confuse it.
_READING = threading.Lock()


class Refusal(Exception):
    """An action not taken, with what to tell the person: `message`, and the rule it breaks with
    that rule's line when a rule forbids it."""

    def __init__(self, message: str, rule: Optional[str] = None, line: Optional[int] = None, moved_on: bool = False):
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.line = line
        self.moved_on = moved_on

    def to_json(self) -> dict:
        return {"type": "refused", "message": self.message, "rule": self.rule, "line": self.line,
                "moved_on": self.moved_on}


class Table:
    """One game in memory."""

    def __init__(self, record: TableRecord, game: fishrules.Game, state: fishrules.State, actions: list[ActionRecord]):
        self.id = record.id
        self.record = record
        self.game = game
        self.state = state
        self.actions = actions
        self.node_at = actions[-1].node_at if actions else 0
        self.info = TableInfo(game.describe(), record.names, record.seats, record.variant)
        self.lock = asyncio.Lock()
        self.conns: dict[Optional[int], set] = {}
        self.frames: dict[Optional[int], str] = {}  # seat -> frame of the current position
        self.bots: dict[int, asyncio.Task] = {}
        self.broken: Optional[str] = None

    @property
    def at(self) -> int:
        return len(self.state.history)

    def frame(self, seat: Optional[int]) -> str:
        text = self.frames.get(seat)
        if text is None:
            text = self.frames[seat] = frame_json(self.state, seat, self.info)
        return text

    def log(self) -> dict:
        """The table as a log `fishrules replay` reads (format fishrules-log/2), rules carried."""
        r = self.record
        data: dict[str, Any] = {
            "format": FORMAT, "ruleset": r.ruleset, "rules_hash": r.rules_hash, "variant": r.variant,
            "players": r.players, "options": r.options, "seed": r.seed, "over": self.state.is_over,
            "history": list(self.state.history),
            "rules": {"name": r.rules_name, "text": r.rules_text, "variant": r.rules_variant},
        }
        if "human" in r.seats:  # a log's seats name at least one person
            data["seats"] = list(r.seats)
        return data


def load_bundled(name: str, variant: Optional[str] = None) -> fishrules.Game:
    """`fishrules.load` of a bundled ruleset, one reader at a time (see _READING)."""
    with _READING:
        return fishrules.load(name, variant)


def _rules_texts(game: fishrules.Game) -> list:
    with _READING:
        return rules_texts(game)


def _clean_name(name: Any, seat: int) -> str:
    text = "".join(ch for ch in str(name or "") if ch.isprintable()).strip()[:MOST_NAME]
    return text or f"p{seat}"


def new_token() -> str:
    """A link's secret: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


class Tables:
    """Every table of a server.  `db(fn, *args)` runs a store call in the store's thread."""

    def __init__(self, store: Store, bot_delay: float = 0.4, bot_iterations: int = 100,
                 executor: Optional[concurrent.futures.Executor] = None, seeds: Optional[Callable[[], int]] = None):
        self.store = store
        self.seeds = seeds or (lambda: secrets.randbits(63))  # a new table's seed (tests choose theirs)
        #: Seconds a table nobody watches stays in memory (then it is read back from the store when
        #: wanted), so that memory holds the tables in play, not every table ever played.
        self.idle_after = 30.0
        self.bot_delay = bot_delay
        self.bot_iterations = bot_iterations
        self._tables: dict[str, Table] = {}
        self._loading: dict[str, asyncio.Future] = {}
        self._games: dict[tuple, fishrules.Game] = {}
        self._db = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="fishrules-db")
        self._work = executor or concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="fishrules-work")
        self._pending: list = []  # actions waiting for the next commit: (table id, action, over, future)
        self._flushing = False
        self.listeners: list[Callable[[Table], None]] = []  # told of every committed action (tests, benchmarks)

    async def db(self, fn: Callable, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._db, fn, *args)

    async def work(self, fn: Callable, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._work, fn, *args)

    def close(self) -> None:
        for t in self._tables.values():
            for task in t.bots.values():
                task.cancel()
        self._work.shutdown(wait=False, cancel_futures=True)
        self._db.submit(self.store.close).result(timeout=10)
        self._db.shutdown(wait=True)

    # ---- rules -------------------------------------------------------------------------------

    def game_of(self, ruleset: Optional[str], text: Optional[str], variant: Optional[str]) -> fishrules.Game:
        """A bundled ruleset by name, or a pasted house rule read as a rule file with no folder (its
        `extends` reach the bundled rulesets only).  Raises RuleError."""
        with _READING:
            return self._game_of(ruleset, text, variant)

    def _game_of(self, ruleset: Optional[str], text: Optional[str], variant: Optional[str]) -> fishrules.Game:
        if text is not None:
            key = ("text", text, variant)
            game = self._games.get(key)
            if game is None:
                game = fishrules.loads(text, HOUSE_RULE_NAME, variant=variant, base_dir=None)
                if len(self._games) > 256:
                    self._games.clear()
                self._games[key] = game
            return game
        if ruleset not in fishrules.bundled():
            raise OptionError(f"there is no bundled ruleset {str(ruleset)[:60]!r}")
        return fishrules.load(ruleset, variant)

    def _record_game(self, r: TableRecord) -> fishrules.Game:
        """The rules a stored table was played with: the bundled ruleset if it is unchanged, else
        the text the table carries; refused if neither hashes as recorded."""
        with _READING:
            return self._record_game_read(r)

    def _record_game_read(self, r: TableRecord) -> fishrules.Game:
        if r.ruleset in fishrules.bundled():
            try:
                game = fishrules.load(r.ruleset, r.variant)
                if rules_hash(rules_texts(game)) == r.rules_hash:
                    return game
            except FishrulesError:
                pass
        game = fishrules.loads(r.rules_text, r.rules_name, variant=r.rules_variant, base_dir=None)
        found = rules_hash(rules_texts(game))
        if found != r.rules_hash:
            raise StateError(f"this table was played with rules of hash {r.rules_hash[:12]}, but its rules now hash "
                             f"to {found[:12]}: the rules it extends changed since")
        return game

    # ---- creating ----------------------------------------------------------------------------

    async def create(self, ruleset: Optional[str], text: Optional[str], variant: Optional[str], players: int,
                     options: dict, seats: list[str], names: list[str], seed: Optional[int] = None) -> tuple[Table, dict]:
        """A new table, stored with its links before it is returned: (table, links) where links
        maps "host", "spectator" and each person's seat number to its token.  Raises
        FishrulesError (RuleError, OptionError) for what cannot be played."""
        game = await self.work(self.game_of, ruleset, text, variant)
        if len(seats) != players or any(k not in SEAT_KINDS for k in seats):
            raise OptionError(f"each of the {players} seats is a person or a bot ({', '.join(BOT_KINDS)})")
        seed = self.seeds() if seed is None else seed
        state = await self.work(lambda: game.start(players=players, seed=seed, options=options))
        opts = dict(options)
        texts = await self.work(_rules_texts, game)
        record = TableRecord(
            id=secrets.token_hex(8), ruleset=ruleset if text is None else HOUSE_RULE_NAME,
            rules_name=(texts[0][0].name if texts[0][0] is not None else HOUSE_RULE_NAME),
            rules_text=texts[0][1], rules_variant=game.variant, rules_hash=rules_hash(texts),
            variant=variant if text is None else game.variant, players=players, options=opts, seed=seed,
            seats=list(seats), names=[_clean_name(n, i) for i, n in enumerate(names)], opening=list(state.history))
        links: dict = {"host": new_token(), "spectator": new_token()}
        tokens = [(links["host"], "host", None), (links["spectator"], "spectator", None)]
        for p, kind in enumerate(seats):
            if kind == "human":
                links[p] = new_token()
                tokens.append((links[p], "seat", p))
        await self.db(self.store.create_table, record, tokens)
        table = Table(record, game, state, [])
        self._tables[record.id] = table
        self.kick(table)
        return table, links

    # ---- finding -----------------------------------------------------------------------------

    async def by_token(self, token: str) -> Optional[tuple[Table, str, Optional[int]]]:
        """(table, role, seat) of a link, or None for a token nobody issued."""
        found = await self.db(self.store.find_token, token)
        if found is None:
            return None
        table_id, role, seat = found
        return await self.get(table_id), role, seat

    async def get(self, table_id: str) -> Table:
        table = self._tables.get(table_id)
        if table is not None:
            return table
        pending = self._loading.get(table_id)
        if pending is None:
            pending = self._loading[table_id] = asyncio.ensure_future(self._load(table_id))
        try:
            return await asyncio.shield(pending)
        finally:
            self._loading.pop(table_id, None)

    async def _load(self, table_id: str) -> Table:
        stored = await self.db(self.store.load, table_id)
        if stored is None:
            raise StateError("there is no such table")
        record, actions = stored

        def replay():
            game = self._record_game(record)
            history = list(record.opening) + [e for a in actions for e in a.entries]
            return game, game.replay(history, players=record.players, options=record.options, seed=record.seed)

        try:
            game, state = await self.work(replay)
        except FishrulesError as e:
            # A table that cannot go on is still shown, as it began, saying why.
            log.error("table %s cannot be read back: %s", table_id, e)
            game = await self.work(lambda: self.game_of(None, record.rules_text, record.rules_variant))
            table = Table(record, game, game.start(players=record.players, seed=record.seed, options=record.options), [])
            table.broken = f"This table cannot go on: {e}"
            self._tables[table_id] = table
            return table
        table = self._tables.setdefault(table_id, Table(record, game, state, actions))
        self.kick(table)
        asyncio.get_running_loop().call_later(self.idle_after, self._forget, table)
        return table

    async def resume_all(self) -> int:
        """Read back every unfinished table (at start-up), so that their bots play on."""
        ids = await self.db(self.store.unfinished)
        for tid in ids:
            try:
                await self.get(tid)
            except Exception:  # one broken table does not stop the others
                log.exception("table %s could not be resumed", tid)
        return len(ids)

    # ---- acting ------------------------------------------------------------------------------

    async def act(self, table: Table, seat: int, at: Any, text: Any) -> Optional[int]:
        """Take `text` as `seat`'s action chosen at position `at`: the position it was taken at, or
        None when it repeats one already taken; raises Refusal otherwise."""
        if type(at) is not int or not isinstance(text, str):
            raise Refusal("An action is sent with the position it was chosen at.")
        if len(text) > 1000:
            raise Refusal("That action is too long to be one.")
        if table.broken:
            raise Refusal(table.broken)
        text = " ".join(text.split())
        async with table.lock:
            state = table.state
            pos = len(state.history)
            for rec in reversed(table.actions):  # sent before, and taken?
                if rec.at < at:
                    break
                if rec.seat == seat and (rec.text == text or rec.text == f"p{seat}: {text}"):
                    return None
            if state.is_over:
                raise Refusal("The game is over.", moved_on=at < pos)
            if not (table.node_at <= at <= pos):
                raise Refusal("The game has moved on since you chose that: it was for an earlier position. "
                              "The table now shows where the game is.", moved_on=True)
            if seat not in state.waiting:
                raise Refusal("You have chosen already; the others are still choosing." if state.current == SIMULTANEOUS
                              else "It is not your turn.")
            if state.current == SIMULTANEOUS:
                m = _PREFIX.match(text)
                if m is None:
                    text = f"p{seat}: {text}"
                elif int(m.group(1)) != seat:
                    raise Refusal(f"You choose for p{seat}, not for p{m.group(1)}.")
            trial = state.clone()
            try:
                trial.apply(text)
            except IllegalAction as e:
                line = e.span.line if e.span is not None else None
                raise Refusal(str(e), rule=e.rule, line=line) from None
            except FishrulesError as e:  # a house rule that goes wrong while playing: the rule says where
                raise Refusal(f"The rules went wrong on this action, so it was not taken: {e}") from None
            entries = trial.history[pos:]
            same_node = (state.current == SIMULTANEOUS and trial.current == SIMULTANEOUS and len(entries) == 1
                         and set(trial.waiting) == set(state.waiting) - {seat})
            rec = ActionRecord(pos, seat, entries[0], tuple(entries), table.node_at if same_node else pos + len(entries))
            try:
                await self._commit(table.id, rec, trial.is_over)
            except Conflict:
                log.error("table %s: position %d was written by another process; reading the table again", table.id, pos)
                self._tables.pop(table.id, None)
                raise Refusal("The game has moved on since you chose that. Reload the page.", moved_on=True) from None
            except Exception:
                log.exception("table %s: the action could not be stored", table.id)
                raise Refusal("The action could not be saved just now, so it was not taken. Try again.") from None
            table.state = trial
            table.actions.append(rec)
            table.node_at = rec.node_at
            table.frames = {}
        self.tell(table)
        self.kick(table)
        return pos

    async def _commit(self, table_id: str, rec: ActionRecord, over: bool) -> None:
        """Commit one action; returns once it is committed (raises Conflict, or the store's error).
        Actions of all tables that arrive while a commit is under way go together in the next one
        (group commit): one transaction, one flush to disk, for as many actions as are waiting."""
        fut = asyncio.get_running_loop().create_future()
        self._pending.append((table_id, rec, over, fut))
        if not self._flushing:
            self._flushing = True
            asyncio.ensure_future(self._flush())
        await fut

    async def _flush(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                try:
                    done = await self.db(self.store.record_many, [(t, r, o) for t, r, o, _ in batch])
                except Exception as e:
                    for *_, fut in batch:
                        if not fut.done():
                            fut.set_exception(e)
                    continue
                for ok, (t, r, _, fut) in zip(done, batch):
                    if fut.done():
                        continue
                    if ok:
                        fut.set_result(None)
                    else:
                        fut.set_exception(Conflict(f"an action is already recorded at position {r.at} of table {t}"))
        finally:
            self._flushing = False

    # ---- telling -----------------------------------------------------------------------------

    def tell(self, table: Table) -> None:
        """Send every connection at the table its frame of the current position."""
        for seat, conns in list(table.conns.items()):
            if not conns:
                continue
            text = table.frame(seat)
            for c in list(conns):
                c.push_frame(text)
        for fn in self.listeners:
            fn(table)

    def join(self, table: Table, seat: Optional[int], conn: Any) -> None:
        table.conns.setdefault(seat, set()).add(conn)

    def leave(self, table: Table, seat: Optional[int], conn: Any) -> None:
        table.conns.get(seat, set()).discard(conn)
        if not any(table.conns.values()):
            asyncio.get_running_loop().call_later(self.idle_after, self._forget, table)

    def _forget(self, table: Table) -> None:
        """Let a table nobody watches go from memory (the store has it; it is read back when a link
        is used again), unless bots are still playing it."""
        if any(table.conns.values()) or table.bots or table.lock.locked():
            return
        if self._tables.get(table.id) is table:
            del self._tables[table.id]

    # ---- bots --------------------------------------------------------------------------------

    def kick(self, table: Table) -> None:
        """Start a bot for each bot seat the game waits for (one task per seat at most)."""
        state = table.state
        if state.is_over or table.broken:
            return
        for p in state.waiting:
            if table.record.seats[p] != "human" and p not in table.bots:
                table.bots[p] = asyncio.ensure_future(self._bot(table, p))

    def _choose(self, state: fishrules.State, p: int, kind: str, seed: int, at: int) -> str:
        return bot_move(state, p, kind, seed, at, self.bot_iterations)

    async def _bot(self, table: Table, p: int) -> None:
        kind = table.record.seats[p]
        try:
            while True:
                if self.bot_delay:
                    await asyncio.sleep(self.bot_delay)
                state = table.state
                if state.is_over or p not in state.waiting or table.broken or self._tables.get(table.id) is not table:
                    table.bots.pop(p, None)
                    return
                at = len(state.history)
                snapshot = state.clone()
                if kind == "random":
                    text = self._choose(snapshot, p, kind, table.record.seed, at)
                else:
                    text = await self.work(self._choose, snapshot, p, kind, table.record.seed, at)
                try:
                    await self.act(table, p, at, text)
                except Refusal as r:
                    if not r.moved_on:
                        log.error("table %s: the %s bot at p%d was refused: %s", table.id, kind, p, r.message)
                        table.bots.pop(p, None)
                        return
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            table.bots.pop(p, None)
            raise
        except Exception:
            log.exception("table %s: the %s bot at p%d stopped", table.id, kind, p)
            table.bots.pop(p, None)


def bot_move(state: fishrules.State, p: int, kind: str, seed: int, at: int, iterations: int) -> str:
    """The action (its text) the bot `kind` at seat `p` takes at position `at` of a table seeded
    `seed`: the command line's bots (`fishrules play --bot`), with a generator derived from the seed
    and the position, so that the same position always gets the same move."""
    from ..bots import bot_choice, bot_rng, make_bot

    rng = bot_rng(seed, at)
    if kind in ("mcts", "ismcts"):
        return make_bot(kind, seed=rng.getrandbits(63), iterations=iterations).choose(state, p).text
    return bot_choice(kind, state, p, rng).text


def parse_options(game: fishrules.Game, form: dict) -> dict:
    """The options a lobby form gives (`option.NAME` fields, as texts), typed as `start` takes them."""
    out: dict = {}
    for name, info in game.options.items():
        raw = form.get(f"option.{name}")
        if info.kind == "yes or no":
            out[name] = raw in ("on", "yes", "true", "1")
            continue
        if raw is None or raw == "":
            continue
        raw = str(raw).strip()
        if info.kind == "number":
            if not re.fullmatch(r"-?[0-9]{1,12}", raw):
                raise OptionError(f"option {name!r} takes a whole number, not {raw[:40]!r}")
            out[name] = int(raw)
        else:
            out[name] = raw
    return out


def _now() -> float:
    return time.time()
