"""The tables a server runs: creating one, taking actions at it, bots, and telling browsers.

A `Table` is one game as the server's event loop knows it: its record, its history, what the
rules say of its position (`Meta`: whose turn, over or not), the frames drawn for its seats, the
connections watching it.  The position itself lives in a worker process (workers.py, work.py):
every piece of rule work — setting the game up, trying an action, a seat's view, a bot's choice —
is a job there, under limits, so that no rule text, however costly, makes anybody else wait.

`Tables` keeps the tables, reads them back from the store when a link is used (a table is its
record replayed with its seed: it goes on exactly as it would have), and takes every action
through one path, `Tables.act`, whoever sends it, person or bot:

1. the action is tried by a worker, on a copy of the position (a refused action changes nothing);
2. it is committed to the store;
3. only then does the table take the new position, and every browser at it is sent its new frame.

An action is tied to the position it was chosen at (`at`, the length of the history the browser
saw).  The same action sent again by the same seat (a double click, a frame sent twice after a
reconnection) is recognised and applied once; an action chosen at a position the game has left is
refused, saying so.  At a simultaneous choice the position a seat chose at stays good while the
others choose.

Bots play from the same rules of the command line (`fishrules play --bot`): their random
generator is derived from the table's seed and the position, so a restarted table's bots decide as
they would have.  They play at a pace people follow: a bot works its move out at once, but takes
it only once the table has shown its last change for `bot_delay` seconds (`Table.shown_at`), so
that every decision, its dice and the cards it moved stay on the table long enough to be read;
`bot_delay=0` is a fast table (tests).

A table has a lifetime: one nobody has open leaves memory after `idle_after` seconds (it is read
back when a link is used again), and a game that has not ended after `MOST_TABLE_ACTIONS` actions
or `MOST_TABLE_DAYS` days is stopped, saying why.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import secrets
import time
from typing import Any, Callable, Optional

from fishrules import SIMULTANEOUS, FishrulesError, OptionError, StateError

from .render import TableInfo, frame_text
from .store import ActionRecord, Conflict, Store, TableRecord
from .diagnostics import HOUSE_RULE_NAME
from .work import Meta, Position, RulesInfo, Source, bot_move, text_key
from .workers import JobFailed, Lane, Limit, Miss

__all__ = ["Tables", "Table", "Refusal", "BOT_KINDS", "SEAT_KINDS", "HOUSE_RULE_NAME", "bot_move", "limit_message",
           "MOST_TABLE_ACTIONS", "MOST_TABLE_DAYS"]

log = logging.getLogger("fishrules.web")

BOT_KINDS = ("random", "greedy", "mcts", "ismcts")
SEAT_KINDS = ("human",) + BOT_KINDS
#: Seconds a change stays on the table before a bot's next move (`--bot-delay`): long enough to
#: read a decision and what it rolled or moved.
BOT_DELAY = 1.5
#: A seat's name: at most this many characters.
MOST_NAME = 40
#: A game not over after this many actions, or this many days, is stopped.
MOST_TABLE_ACTIONS = 5_000
MOST_TABLE_DAYS = 14
#: CPU seconds a job may take in a worker (a replay of a table's history adds REPLAY_CPU per entry).
CHECK_CPU = 5.0
START_CPU = 5.0
ACT_CPU = 2.0
BOT_CPU = 5.0
REPLAY_CPU = 0.02
MOST_REPLAY_CPU = 60.0
#: Seconds a kernel's compile may take, and how long a failed compile is not tried again.
COMPILE_SECONDS = 60.0
COMPILE_RETRY_AFTER = 3600.0
#: Compiles waiting at most: past this, a table's search bots play on the kernel run as Python.
MOST_COMPILES_WAITING = 8
_PREFIX = re.compile(r"\s*[pP]([0-9]{1,3})\s*:")
_nonces = itertools.count(1)


def limit_message(what: str, seconds: float, doing: str) -> str:
    """What a visitor is told when rule work passed a limit ("these rules took more than 5 s to check")."""
    if what == "memory":
        return f"These rules needed more memory than the server gives one game to {doing}."
    if what == "cancelled":
        return "This was cancelled: a newer request took its place."
    if what == "crashed":
        return f"The server's worker stopped while it tried to {doing}; nothing was changed."
    if what == "busy":
        return f"The server was too busy to {doing}; nothing was changed. Try again in a while."
    return f"These rules took more than {seconds:g} s to {doing}."


class Refusal(Exception):
    """An action not taken, with what to tell the person: `message`, and the rule it breaks with
    that rule's line when a rule forbids it."""

    def __init__(self, message: str, rule: Optional[str] = None, line: Optional[int] = None, moved_on: bool = False,
                 limit: bool = False):
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.line = line
        self.moved_on = moved_on
        self.limit = limit  # the rules' work passed a limit (not the action's fault alone)

    def to_json(self) -> dict:
        return {"type": "refused", "message": self.message, "rule": self.rule, "line": self.line,
                "moved_on": self.moved_on}


class Table:
    """One game, as the event loop knows it (the position is a worker's: see the module's doc)."""

    def __init__(self, record: TableRecord, rules: RulesInfo, actions: list[ActionRecord], trusted: bool):
        self.id = record.id
        self.record = record
        self.rules = rules
        self.trusted = trusted  # rules the server ships: played in the lane of normal priority
        self.actions = actions
        self.history: list[str] = list(record.opening) + [e for a in actions for e in a.entries]
        #: (position, seat) of each action taken: who took each step, for the log (public: a view
        #: always says whose turn it is)
        self.steps: list[tuple[int, int]] = [(a.at, a.seat) for a in actions]
        self.meta = Meta(len(self.history), False, None, ())
        self.nonce = next(_nonces)
        self.home: Optional[tuple] = None  # the worker holding the position (workers.Lane.run)
        self.node_at = actions[-1].node_at if actions else 0
        self.info = TableInfo(rules.describe, record.names, record.seats, record.variant)
        self.lock = asyncio.Lock()
        self.conns: dict[Optional[int], set] = {}
        self.frames: dict[Optional[int], str] = {}  # seat -> frame of the current position
        self.bots: dict[int, asyncio.Task] = {}
        self.broken: Optional[str] = None  # why the table cannot go on (it is still shown)
        #: when the table last changed for the people at it (the event loop's clock): a bot's move
        #: waits until that change has been on the table for the server's `bot_delay`
        self.shown_at = 0.0
        #: the positions of the actions taken that their player may take back (`work.may_take_back`):
        #: known when they are taken, so a table read back again offers no take-back
        self.backable: set[int] = set()

    @property
    def at(self) -> int:
        return len(self.history)

    @property
    def over(self) -> bool:
        return self.meta.over

    @property
    def title(self) -> str:
        return self.rules.title

    def position(self, full: bool = False) -> Position:
        """The table's position as a job names it; `full` adds how to make it again (history, rules)."""
        r = self.record
        if not full:
            return Position(self.id, self.nonce, self.rules.key, r.players, r.options, r.seed)
        source = Source(r.ruleset, r.variant, r.rules_name, r.rules_text, r.rules_variant, r.rules_hash)
        return Position(self.id, self.nonce, self.rules.key, r.players, r.options, r.seed, tuple(self.history), source)

    def back_for(self, seat: Optional[int]) -> bool:
        """Whether `seat` may take back the table's last action now: its own, one that tells nobody
        anything hidden when taken back, and nobody has played since (it is still its turn)."""
        if seat is None or not self.actions or self.over or self.broken:
            return False
        last = self.actions[-1]
        return last.seat == seat and last.at in self.backable and self.meta.current == seat

    def draw(self, data: dict, seat: Optional[int]) -> str:
        """A frame's text for `seat` from a worker's `frame_data`."""
        return frame_text(data, seat, self.info, self.steps, back=self.back_for(seat))

    def watched(self) -> tuple:
        """The seats (None: spectators) someone has open."""
        return tuple(seat for seat, conns in self.conns.items() if conns)

    def log(self) -> dict:
        """The table as a log `fishrules replay` reads (format fishrules-log/2), rules carried."""
        from ..logs import FORMAT

        r = self.record
        data: dict[str, Any] = {
            "format": FORMAT, "ruleset": r.ruleset, "rules_hash": r.rules_hash, "variant": r.variant,
            "players": r.players, "options": r.options, "seed": r.seed, "over": self.over,
            "history": list(self.history),
            "rules": {"name": r.rules_name, "text": r.rules_text, "variant": r.rules_variant},
        }
        if "human" in r.seats:  # a log's seats name at least one person
            data["seats"] = list(r.seats)
        return data


def _clean_name(name: Any, seat: int) -> str:
    text = "".join(ch for ch in str(name or "") if ch.isprintable()).strip()[:MOST_NAME]
    return text or f"Player {seat + 1}"


def new_token() -> str:
    """A link's secret: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


class Tables:
    """Every table of a server, and the workers that do their rule work.  `db(fn, *args)` runs a
    store call in the store's thread.  `open()` starts the workers and reads the bundled rulesets
    (once); `close()` lets everything go."""

    def __init__(self, store: Store, bot_delay: float = BOT_DELAY, bot_iterations: int = 100,
                 seeds: Optional[Callable[[], int]] = None, workers: int = 2, house_nice: int = 19):
        import concurrent.futures

        self.store = store
        self.seeds = seeds or (lambda: secrets.randbits(63))  # a new table's seed (tests choose theirs)
        #: Seconds a table nobody watches stays in memory (then it is read back from the store when
        #: wanted), so that memory holds the tables in play, not every table ever played.
        self.idle_after = 30.0
        self.bot_delay = bot_delay
        self.bot_iterations = bot_iterations
        # The server's own rulesets play at normal priority; pasted house rules at the lowest, in
        # workers of their own; compiles one at a time.  (An operator whose machine is busy with
        # other programs may raise the house rules' priority: at nice 19 they wait for any of them.)
        self.trusted = Lane("rules", workers)
        self.untrusted = Lane("house-rules", workers, nice=house_nice)
        self.compiler = Lane("compile", 1, nice=house_nice)
        self.bundled: dict[tuple, RulesInfo] = {}
        self._opening: Optional[asyncio.Future] = None
        self._tables: dict[str, Table] = {}
        self._loading: dict[str, asyncio.Future] = {}
        self._texts: dict[tuple, RulesInfo] = {}  # checked house rules, by key (bounded: _keep_text)
        self._compiles: dict[tuple, Any] = {}  # key -> a task, "done", or when it failed
        self._db = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="fishrules-db")
        self._pending: list = []  # actions waiting for the next commit: (table id, action, over, future)
        self._flushing = False
        self.listeners: list[Callable[[Table], None]] = []  # told of every committed action (tests, benchmarks)

    def open(self) -> None:
        """Start the workers and read the bundled rulesets, in the background: the server answers
        at once, and what needs the rules waits for them (`ready`)."""
        self._opening = asyncio.ensure_future(self._open())

    async def _open(self) -> None:
        await asyncio.gather(self.trusted.open(), self.untrusted.open(), self.compiler.open())
        infos, _ = await self.trusted.run("bundled_infos", cpu=120)
        self.bundled = infos

    @property
    def is_ready(self) -> bool:
        """Whether the workers have started and the bundled rulesets are read (`/readyz`)."""
        op = self._opening
        return op is not None and op.done() and not op.cancelled() and op.exception() is None

    async def ready(self) -> None:
        """Wait until the workers have started and the bundled rulesets are read."""
        if self._opening is None:
            self.open()
        await asyncio.shield(self._opening)

    async def db(self, fn: Callable, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._db, fn, *args)

    def close(self) -> None:
        if self._opening is not None:
            self._opening.cancel()
        for t in self._tables.values():
            for task in t.bots.values():
                task.cancel()
        for lane in (self.trusted, self.untrusted, self.compiler):
            lane.close()
        self._db.submit(self.store.close).result(timeout=10)
        self._db.shutdown(wait=True)

    # ---- rules -------------------------------------------------------------------------------

    async def rules_of(self, ruleset: Optional[str], text: Optional[str], variant: Optional[str],
                       client: Any = None) -> RulesInfo:
        """A bundled ruleset by name (read at start), or a pasted house rule read and checked by a
        worker (as a rule file with no folder: its `extends` reach the bundled rulesets only).
        Raises RuleError, OptionError, or Refusal when the rules pass a limit.  A new check from the
        same `client` cancels the one before."""
        await self.ready()
        if text is None:
            found = self.bundled.get((ruleset, variant or None))
            if found is None:
                if (ruleset, None) in self.bundled:
                    raise OptionError(f"{self.bundled[(ruleset, None)].title} has no variant {str(variant)[:60]!r}")
                raise OptionError(f"there is no bundled ruleset {str(ruleset)[:60]!r}")
            return found
        key = text_key(text, variant or None)
        found = self._texts.get(key)
        if found is not None:
            return found
        if client is not None:
            self.untrusted.cancel_key(("check", client))
        try:
            info, _ = await self.untrusted.run("check", text, variant or None, cpu=CHECK_CPU,
                                               key=("check", client) if client is not None else None)
        except Limit as e:
            raise Refusal(limit_message(e.what, CHECK_CPU, "check")) from None
        except JobFailed:
            raise Refusal("The server could not check these rules.") from None
        self._keep_text(key, info)
        return info

    def _keep_text(self, key: tuple, info: RulesInfo) -> None:
        """Checked house rules are kept by bytes: at most 16 MiB of rule text."""
        self._texts[key] = info
        total = sum(len(i.rules_text) for i in self._texts.values())
        while total > 16 << 20 and len(self._texts) > 1:
            oldest = next(iter(self._texts))
            total -= len(self._texts.pop(oldest).rules_text)

    async def _rules_of_record(self, r: TableRecord) -> tuple[RulesInfo, bool, Optional[str]]:
        """The rules of a stored table, whether they are the server's own, and why the table cannot
        go on if it cannot: the bundled ruleset when it is unchanged, else the text the table
        carries, checked again and held to the hash the table was played with."""
        found = self.bundled.get((r.ruleset, r.variant))
        if found is not None and found.rules_hash == r.rules_hash:
            return found, True, None
        try:
            info = await self.rules_of(None, r.rules_text, r.rules_variant)
        except (FishrulesError, Refusal) as e:
            return _no_rules(r), False, str(e)
        if info.rules_hash != r.rules_hash:
            return info, False, (f"this table was played with rules of hash {r.rules_hash[:12]}, but its rules now "
                                 f"hash to {info.rules_hash[:12]}: the rules it extends changed since")
        return info, False, None

    def _compile(self, rules: RulesInfo) -> None:
        """Build the native kernel of `rules` for a table whose bots search, in the compile lane
        (one compile at a time, one per rules); until it is built they search on the Python kernel."""
        key = rules.key
        state = self._compiles.get(key)
        if state == "done" or isinstance(state, asyncio.Task):
            return
        if isinstance(state, float) and time.monotonic() - state < COMPILE_RETRY_AFTER:
            return
        if sum(1 for s in self._compiles.values() if isinstance(s, asyncio.Task)) >= MOST_COMPILES_WAITING:
            return
        text = rules.rules_text if key[0] == "text" else None

        async def build() -> None:
            try:
                backend, _ = await self.compiler.run("compile_kernel", key, text, cpu=COMPILE_SECONDS,
                                                     wall=COMPILE_SECONDS * 1.5)
                self._compiles[key] = "done"
                log.info("kernel of %s: %s", rules.title[:60], backend)
            except (Limit, JobFailed, FishrulesError) as e:
                log.warning("the kernel of %s was not built (%s); its bots search on the Python kernel",
                            rules.title[:60], e)
                self._compiles[key] = time.monotonic()

        self._compiles[key] = asyncio.ensure_future(build())

    # ---- rule work on a table ----------------------------------------------------------------

    async def _job(self, table: Table, fn: str, *args: Any, cpu: float) -> Any:
        """Run `work.fn(position, *args)` for `table` in its lane, preferring the worker that holds
        its position; a worker that does not hold it is sent the history to replay."""
        lane = self.trusted if table.trusted else self.untrusted
        pos = table.position()
        for _ in range(3):
            try:
                value, home = await lane.run(fn, pos, *args, cpu=cpu if pos.history is None else
                                             min(MOST_REPLAY_CPU, cpu + REPLAY_CPU * len(pos.history)),
                                             prefer=table.home)
                table.home = home
                return value
            except Miss:
                pos = table.position(full=True)
        raise JobFailed(fn)  # pragma: no cover - a worker that misses what it was just sent

    async def frame(self, table: Table, seat: Optional[int]) -> str:
        """The frame of `seat` at the table's position (drawn once per position)."""
        text = table.frames.get(seat)
        if text is not None:
            return text
        if table.broken is not None and table.meta.current is None and not table.over:
            return _broken_frame(table)
        nonce = table.nonce
        try:
            data = await self._job(table, "table_frames", (seat,), cpu=ACT_CPU)
        except (Limit, JobFailed, FishrulesError) as e:
            log.error("table %s: the frame of seat %s could not be made: %s", table.id, seat, e)
            return _broken_frame(table)
        text = table.draw(data[seat], seat)
        if table.nonce == nonce:
            table.frames[seat] = text
        return text

    # ---- creating ----------------------------------------------------------------------------

    async def create(self, ruleset: Optional[str], text: Optional[str], variant: Optional[str], players: int,
                     options: dict, seats: list[str], names: list[str], seed: Optional[int] = None) -> tuple[Table, dict]:
        """A new table, stored with its links before it is returned: (table, links) where links
        maps "host", "spectator" and each person's seat number to its token.  Raises
        FishrulesError (RuleError, OptionError) for what cannot be played, Refusal past a limit."""
        rules = await self.rules_of(ruleset, text, variant)
        if len(seats) != players or any(k not in SEAT_KINDS for k in seats):
            raise OptionError(f"each of the {players} seats is a person or a bot ({', '.join(BOT_KINDS)})")
        seed = self.seeds() if seed is None else seed
        record = TableRecord(
            id=secrets.token_hex(8), ruleset=ruleset if text is None else HOUSE_RULE_NAME,
            rules_name=rules.rules_name, rules_text=rules.rules_text, rules_variant=rules.variant,
            rules_hash=rules.rules_hash, variant=variant if text is None else rules.variant, players=players,
            options=dict(options), seed=seed, seats=list(seats), names=[_clean_name(n, i) for i, n in enumerate(names)])
        table = Table(record, rules, [], trusted=text is None)
        try:
            opening, meta, _ = await self._job(table, "table_start", (), cpu=START_CPU)
        except Limit as e:
            raise Refusal(limit_message(e.what, START_CPU, "set up a game")) from None
        except JobFailed:
            raise Refusal("The server could not set this game up.") from None
        record.opening = list(opening)
        table.history = list(opening)
        table.meta = meta
        table.shown_at = asyncio.get_running_loop().time()
        links: dict = {"host": new_token(), "spectator": new_token()}
        tokens = [(links["host"], "host", None), (links["spectator"], "spectator", None)]
        for p, kind in enumerate(seats):
            if kind == "human":
                links[p] = new_token()
                tokens.append((links[p], "seat", p))
        await self.db(self.store.create_table, record, tokens)
        self._tables[record.id] = table
        if any(k in ("mcts", "ismcts") for k in seats):
            self._compile(rules)
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
        await self.ready()
        stored = await self.db(self.store.load, table_id)
        if stored is None:
            raise StateError("there is no such table")
        record, actions = stored
        rules, trusted, why = await self._rules_of_record(record)
        table = Table(record, rules, actions, trusted)
        if why is None:
            try:
                table.meta, _ = await self._job(table, "table_restore", (), cpu=ACT_CPU)
            except Limit as e:
                why = limit_message(e.what, MOST_REPLAY_CPU, "read this table back")
            except (FishrulesError, JobFailed) as e:
                why = str(e)
        if why is not None:  # a table that cannot go on is still shown, saying why
            log.error("table %s cannot be read back: %s", table_id, why)
            table.broken = f"This table cannot go on: {why}"
        table.shown_at = asyncio.get_running_loop().time()
        table = self._tables.setdefault(table_id, table)
        self._stop_if_too_long(table)
        self.kick(table)
        asyncio.get_running_loop().call_later(self.idle_after, self._forget, table)
        return table

    def _stop_if_too_long(self, table: Table) -> None:
        if table.over or table.broken:
            return
        if len(table.actions) >= MOST_TABLE_ACTIONS:
            table.broken = f"This game was stopped: it went on for more than {MOST_TABLE_ACTIONS:,} actions."
        elif time.time() - table.record.created > MOST_TABLE_DAYS * 86400:
            table.broken = f"This game was stopped: it went on for more than {MOST_TABLE_DAYS} days."

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
            meta = table.meta
            pos = table.at
            for rec in reversed(table.actions):  # sent before, and taken?
                if rec.at < at:
                    break
                if rec.seat == seat and (rec.text == text or rec.text == f"p{seat}: {text}"):
                    return None
            if table.broken:
                raise Refusal(table.broken)
            if meta.over:
                raise Refusal("The game is over.", moved_on=at < pos)
            if not (table.node_at <= at <= pos):
                raise Refusal("The game has moved on since you chose that: it was for an earlier position. "
                              "The table now shows where the game is.", moved_on=True)
            if seat not in meta.waiting:
                raise Refusal("You have chosen already; the others are still choosing." if meta.current == SIMULTANEOUS
                              else "It is not your turn.")
            if meta.current == SIMULTANEOUS:
                m = _PREFIX.match(text)
                if m is None:
                    text = f"p{seat}: {text}"
                elif int(m.group(1)) != seat:
                    raise Refusal(f"You choose for p{seat}, not for p{m.group(1)}.")
            nonce = next(_nonces)
            try:
                result = await self._job(table, "table_act", text, nonce, table.watched(), cpu=ACT_CPU)
            except Limit as e:
                raise Refusal(limit_message(e.what, ACT_CPU, "work this action out") + " It was not taken.",
                              limit=True) from None
            except (JobFailed, FishrulesError) as e:
                log.error("table %s: an action could not be tried: %s", table.id, e)
                raise Refusal("The server could not work this action out, so it was not taken.") from None
            if result[0] == "refused":
                raise Refusal(result[1], rule=result[2], line=result[3])
            _, entries, new_meta, frames, back = result
            same_node = (meta.current == SIMULTANEOUS and new_meta.current == SIMULTANEOUS and len(entries) == 1
                         and set(new_meta.waiting) == set(meta.waiting) - {seat})
            rec = ActionRecord(pos, seat, entries[0], tuple(entries), table.node_at if same_node else pos + len(entries))
            try:
                await self._commit(table.id, rec, new_meta.over)
            except Conflict:
                log.error("table %s: position %d was written by another process; reading the table again", table.id, pos)
                self._tables.pop(table.id, None)
                raise Refusal("The game has moved on since you chose that. Reload the page.", moved_on=True) from None
            except Exception:
                log.exception("table %s: the action could not be stored", table.id)
                raise Refusal("The action could not be saved just now, so it was not taken. Try again.") from None
            table.nonce = nonce
            table.meta = new_meta
            table.history.extend(entries)
            table.actions.append(rec)
            table.steps.append((rec.at, rec.seat))
            table.node_at = rec.node_at
            if back:
                table.backable.add(rec.at)
            table.frames = {s: table.draw(data, s) for s, data in frames.items()}
            table.shown_at = asyncio.get_running_loop().time()
            self._stop_if_too_long(table)
        self.tell(table)
        self.kick(table)
        return pos

    async def take_back(self, table: Table, seat: int, at: Any) -> None:
        """Take back `seat`'s last action, seen by its page at position `at`: allowed only while
        `Table.back_for(seat)` (its own step, nothing hidden made known by it, still its turn).
        The action is forgotten by the store first, then by the table; everybody is told."""
        if type(at) is not int:
            raise Refusal("A take-back is sent with the position it was asked at.")
        async with table.lock:
            if at != table.at or not table.back_for(seat):
                raise Refusal("That step cannot be taken back now.", moved_on=at != table.at)
            rec = table.actions[-1]
            nonce = next(_nonces)
            try:
                new_meta, frames = await self._job(table, "table_back", rec.at, nonce, table.watched(), cpu=ACT_CPU)
            except (Limit, JobFailed, FishrulesError) as e:
                log.info("table %s: a take-back was refused: %s", table.id, e)
                raise Refusal("That step cannot be taken back.") from None
            try:
                gone = await self.db(self.store.take_back, table.id, rec.at)
            except Exception:
                log.exception("table %s: a take-back could not be stored", table.id)
                gone = False
            if not gone:
                self._tables.pop(table.id, None)  # the store and this copy disagree: read it again
                raise Refusal("That step could not be taken back. Reload the page.", moved_on=True)
            table.nonce = nonce
            table.meta = new_meta
            del table.history[rec.at:]
            table.actions.pop()
            table.steps.pop()
            table.backable.discard(rec.at)
            table.node_at = table.actions[-1].node_at if table.actions else 0
            table.frames = {s: table.draw(data, s) for s, data in frames.items()}
            table.shown_at = asyncio.get_running_loop().time()
        self.tell(table)
        self.kick(table)

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
        """Send every connection at the table its frame of the current position (drawn by the
        worker that took the action for the seats watched; a seat without one asks for it)."""
        for seat, conns in list(table.conns.items()):
            if not conns:
                continue
            text = table.frames.get(seat)
            if text is None:
                asyncio.ensure_future(self._send_frame(table, seat))
                continue
            for c in list(conns):
                c.push_frame(text)
        for fn in self.listeners:
            fn(table)

    async def _send_frame(self, table: Table, seat: Optional[int]) -> None:
        text = await self.frame(table, seat)
        for c in list(table.conns.get(seat, ())):
            c.push_frame(text)

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
        if table.over or table.broken:
            return
        for p in table.meta.waiting:
            if table.record.seats[p] != "human" and p not in table.bots:
                table.bots[p] = asyncio.ensure_future(self._bot(table, p))

    def _stop(self, table: Table, p: int, why: str) -> None:
        """Stop a table whose bot at `p` cannot move within the limits, saying why."""
        table.broken = "This game was stopped: " + why
        log.warning("table %s: the bot at p%d passed a limit: %s", table.id, p, why)
        table.bots.pop(p, None)
        self.tell(table)

    async def _bot(self, table: Table, p: int) -> None:
        kind = table.record.seats[p]
        loop = asyncio.get_running_loop()
        try:
            while True:
                if (table.over or p not in table.meta.waiting or table.broken
                        or self._tables.get(table.id) is not table):
                    table.bots.pop(p, None)
                    return
                at = table.at
                try:
                    # worked out at once, taken once the last change has been shown long enough
                    text = await self._job(table, "table_bot", p, kind, table.record.seed, at, self.bot_iterations,
                                           cpu=BOT_CPU)
                    if self.bot_delay:
                        wait = table.shown_at + self.bot_delay - loop.time()
                        if wait > 0:
                            await asyncio.sleep(wait)
                        if table.at != at or table.broken:
                            continue  # somebody else moved meanwhile: think again
                    await self.act(table, p, at, text)
                except Limit as e:
                    self._stop(table, p, limit_message(e.what, BOT_CPU, f"choose a move for {table.info.who(p)}"))
                    return
                except Refusal as r:
                    if r.limit:  # a bot cannot be told to try something cheaper: the game cannot go on
                        self._stop(table, p, r.message)
                        return
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


def _broken_frame(table: Table) -> str:
    import json

    from .html import tag

    html = tag("div", {"class_": "table", "data_at": table.at},
               tag("p", {"class_": "status"}, table.broken or "This table cannot be shown just now."))
    return json.dumps({"type": "frame", "at": table.at, "over": table.over, "mine": False, "html": str(html),
                       "actions": [], "prefix": "", "decl": {}, "words": {}}, ensure_ascii=False, separators=(",", ":"))


def _no_rules(r: TableRecord) -> RulesInfo:
    """What stands for the rules of a table whose rules cannot be read any more."""
    return RulesInfo(key=("none", r.id, None), title=r.rules_name, min_players=r.players, max_players=r.players,
                     variants=(), options=(), describe={"actions": [], "values": [], "cards": {}, "board": None},
                     variant=r.rules_variant, rules_name=r.rules_name, rules_text=r.rules_text, rules_hash=r.rules_hash)


def parse_options(rules: RulesInfo, form: dict) -> dict:
    """The options a lobby form gives (`option.NAME` fields, as texts), typed as `start` takes them."""
    out: dict = {}
    for info in rules.options:
        name = info.name
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

