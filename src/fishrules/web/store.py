"""Where the tables of `fishrules serve` are kept: a small interface, SQLite and PostgreSQL behind it.

A store holds three things, and nothing else is needed to bring every table back after the server
was killed:

- a table: its rules (the rule text and its hash, as a log carries them), variant, players,
  options, seed, who sits at each seat (a person or a bot) under what name, and the history it
  opened with (the dice rolled or cards dealt before anybody chose);
- its links: a random token per seat, one for spectators and one for the host's page;
- its actions, in order: at which position of the history each was taken (`at`, the number of
  history entries before it), by which seat, its text, the history entries it added (itself and
  the chance that followed), and where the decision it answered began (`node_at`).

`(table, at)` is the primary key of an action, so two writers can never both record an action at
the same position: the second gets `Conflict`.  That is what makes one process safe, and what
would let several processes share a database (docs/serve.md).

Every method is synchronous and is called from one thread at a time (the server gives the store a
thread of its own); `record` returns only once the action is committed.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any, Optional, Protocol

import attrs

__all__ = ["TableRecord", "ActionRecord", "Store", "Conflict", "StoreError", "SQLiteStore", "PostgresStore", "open_store"]

#: The layout of the tables below; a store of another version is refused rather than misread.
SCHEMA_VERSION = 1


class StoreError(Exception):
    """The database cannot be used (cannot be opened, another schema): said to the person at the
    command line, never shown to a browser."""


class Conflict(Exception):
    """An action was already recorded at that position of that table (by another writer)."""


@attrs.define
class TableRecord:
    """A table as stored.  `rules_text` is the text of the rules asked for (a bundled ruleset's own
    file, or the house rule pasted in the lobby), read back with `fishrules.loads(text,
    rules_name, variant=rules_variant, base_dir=None)`: its `extends` reach the bundled rulesets
    only.  `rules_hash` is `fishrules.logs.rules_hash` of the rules played."""

    id: str
    ruleset: str  # a bundled ruleset's name, or the name a pasted house rule is shown under
    rules_name: str
    rules_text: str
    rules_variant: Optional[str]
    rules_hash: str
    variant: Optional[str]
    players: int
    options: dict
    seed: int
    seats: list  # per seat: "human" or a bot's kind
    names: list  # per seat: the name shown at the table
    opening: list = attrs.field(factory=list)  # the history at the start (the chance before any choice)
    created: float = attrs.field(factory=time.time)

    def to_json(self) -> str:
        return json.dumps(attrs.asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "TableRecord":
        data = json.loads(text)
        return cls(**{f.name: data[f.name] for f in attrs.fields(cls) if f.name in data})


@attrs.frozen
class ActionRecord:
    at: int  # history entries before it
    seat: Optional[int]
    text: str
    entries: tuple  # the history entries it added: itself, then the chance that followed
    node_at: int  # where the decision it answered began (a simultaneous choice spans several actions)


class Store(Protocol):
    """What the server needs of a database."""

    def create_table(self, table: TableRecord, tokens: list[tuple[str, str, Optional[int]]]) -> None:
        """Store a new table and its links: (token, role, seat), role one of seat, spectator, host."""

    def record(self, table_id: str, action: ActionRecord, over: bool) -> None:
        """Commit one action (raises `Conflict` if `action.at` is taken already)."""

    def record_many(self, items: list[tuple[str, ActionRecord, bool]]) -> list[bool]:
        """Commit several actions (of any tables) in one transaction, each (table id, action, over):
        for each, True when recorded, False when its position was taken already (the others are
        recorded all the same).  Returns once they are all committed: one commit for many actions
        is what lets a busy server keep up (group commit)."""

    def take_back(self, table_id: str, at: int) -> bool:
        """Forget the table's last action, the one taken at position `at` (a person taking back
        their own step): True when it was the last and is gone, False otherwise (nothing changed)."""

    def find_token(self, token: str) -> Optional[tuple[str, str, Optional[int]]]:
        """(table id, role, seat) of a link's token, or None."""

    def tokens_of(self, table_id: str) -> list[tuple[str, str, Optional[int]]]:
        """Every link of a table: (token, role, seat)."""

    def load(self, table_id: str) -> Optional[tuple[TableRecord, list[ActionRecord]]]:
        """A table and its actions in order, or None."""

    def unfinished(self) -> list[str]:
        """The ids of the tables whose game is not over."""

    def close(self) -> None:
        """Let the database go."""


_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS fr_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS fr_tables (id TEXT PRIMARY KEY, created DOUBLE PRECISION NOT NULL, data TEXT NOT NULL,"
    " over INTEGER NOT NULL DEFAULT 0, position INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS fr_tokens (token TEXT PRIMARY KEY, table_id TEXT NOT NULL, role TEXT NOT NULL, seat INTEGER)",
    "CREATE INDEX IF NOT EXISTS fr_tokens_table ON fr_tokens (table_id)",
    "CREATE TABLE IF NOT EXISTS fr_actions (table_id TEXT NOT NULL, at INTEGER NOT NULL, seat INTEGER, text TEXT NOT NULL,"
    " entries TEXT NOT NULL, node_at INTEGER NOT NULL, PRIMARY KEY (table_id, at))",
    "CREATE INDEX IF NOT EXISTS fr_tables_open ON fr_tables (over)",
]


class _SQLStore:
    """The store written once in SQL both databases read; `_p` is the driver's placeholder."""

    _p = "?"
    _integrity: tuple = (sqlite3.IntegrityError,)

    def _sql(self, text: str) -> str:
        return text.replace("?", self._p)

    # A subclass gives `_run(fn)`: fn(cursor) in one transaction, committed before it returns.
    def _run(self, fn: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _setup(self) -> None:
        def go(cur):
            for stmt in _SCHEMA:
                cur.execute(stmt)
            cur.execute(self._sql("SELECT value FROM fr_meta WHERE key = ?"), ("schema",))
            row = cur.fetchone()
            if row is None:
                cur.execute(self._sql("INSERT INTO fr_meta (key, value) VALUES (?, ?)"), ("schema", str(SCHEMA_VERSION)))
            elif row[0] != str(SCHEMA_VERSION):
                raise StoreError(f"the database holds tables of another version of fishrules serve (schema {row[0]}, "
                                 f"this one reads {SCHEMA_VERSION})")

        self._run(go)

    def create_table(self, table: TableRecord, tokens: list[tuple[str, str, Optional[int]]]) -> None:
        def go(cur):
            cur.execute(self._sql("INSERT INTO fr_tables (id, created, data) VALUES (?, ?, ?)"),
                        (table.id, table.created, table.to_json()))
            for token, role, seat in tokens:
                cur.execute(self._sql("INSERT INTO fr_tokens (token, table_id, role, seat) VALUES (?, ?, ?, ?)"),
                            (token, table.id, role, seat))

        self._run(go)

    def record(self, table_id: str, action: ActionRecord, over: bool) -> None:
        def go(cur):
            self._insert(cur, table_id, action, over)

        try:
            self._run(go)
        except self._integrity:
            raise Conflict(f"an action is already recorded at position {action.at} of table {table_id}") from None

    def _insert(self, cur: Any, table_id: str, action: ActionRecord, over: bool) -> None:
        cur.execute(self._sql("INSERT INTO fr_actions (table_id, at, seat, text, entries, node_at) VALUES (?, ?, ?, ?, ?, ?)"),
                    (table_id, action.at, action.seat, action.text, json.dumps(list(action.entries), ensure_ascii=False),
                     action.node_at))
        cur.execute(self._sql("UPDATE fr_tables SET over = ?, position = ? WHERE id = ?"),
                    (1 if over else 0, action.at + len(action.entries), table_id))

    def record_many(self, items: list[tuple[str, ActionRecord, bool]]) -> list[bool]:
        def go(cur):
            out = []
            for table_id, action, over in items:
                cur.execute("SAVEPOINT fr_one")
                try:
                    self._insert(cur, table_id, action, over)
                except self._integrity:
                    cur.execute("ROLLBACK TO SAVEPOINT fr_one")
                    out.append(False)
                else:
                    out.append(True)
                cur.execute("RELEASE SAVEPOINT fr_one")
            return out

        return self._run(go)

    def take_back(self, table_id: str, at: int) -> bool:
        def go(cur):
            cur.execute(self._sql("SELECT max(at) FROM fr_actions WHERE table_id = ?"), (table_id,))
            row = cur.fetchone()
            if row is None or row[0] != at:
                return False
            cur.execute(self._sql("DELETE FROM fr_actions WHERE table_id = ? AND at = ?"), (table_id, at))
            cur.execute(self._sql("UPDATE fr_tables SET over = 0, position = ? WHERE id = ?"), (at, table_id))
            return True

        return bool(self._run(go))

    def find_token(self, token: str) -> Optional[tuple[str, str, Optional[int]]]:
        def go(cur):
            cur.execute(self._sql("SELECT table_id, role, seat FROM fr_tokens WHERE token = ?"), (token,))
            return cur.fetchone()

        row = self._run(go)
        return (row[0], row[1], row[2]) if row else None

    def tokens_of(self, table_id: str) -> list[tuple[str, str, Optional[int]]]:
        def go(cur):
            cur.execute(self._sql("SELECT token, role, seat FROM fr_tokens WHERE table_id = ?"), (table_id,))
            return cur.fetchall()

        order = {"host": 0, "seat": 1, "spectator": 2}
        rows = [(r[0], r[1], r[2]) for r in self._run(go)]
        return sorted(rows, key=lambda r: (order.get(r[1], 3), -1 if r[2] is None else r[2]))

    def load(self, table_id: str) -> Optional[tuple[TableRecord, list[ActionRecord]]]:
        def go(cur):
            cur.execute(self._sql("SELECT data FROM fr_tables WHERE id = ?"), (table_id,))
            row = cur.fetchone()
            if row is None:
                return None
            cur.execute(self._sql("SELECT at, seat, text, entries, node_at FROM fr_actions WHERE table_id = ? ORDER BY at"),
                        (table_id,))
            return row[0], cur.fetchall()

        found = self._run(go)
        if found is None:
            return None
        data, rows = found
        return TableRecord.from_json(data), [ActionRecord(r[0], r[1], r[2], tuple(json.loads(r[3])), r[4]) for r in rows]

    def unfinished(self) -> list[str]:
        def go(cur):
            cur.execute("SELECT id FROM fr_tables WHERE over = 0 ORDER BY created")
            return cur.fetchall()

        return [r[0] for r in self._run(go)]


class SQLiteStore(_SQLStore):
    """A SQLite file (the default).  Write-ahead log, and `synchronous=FULL`: an action is on disk
    when `record` returns, so neither a killed server nor a power cut loses it (a commit costs
    about 0.3 ms here)."""

    def __init__(self, path: str):
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._setup()
        except sqlite3.Error as e:
            raise StoreError(f"cannot use the database {path}: {e}") from None

    def _run(self, fn: Any) -> Any:
        cur = self._db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            out = fn(cur)
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        cur.execute("COMMIT")
        return out

    def close(self) -> None:
        self._db.close()


class PostgresStore(_SQLStore):
    """A PostgreSQL database, by URL (`postgresql://user@host/db`), through psycopg 3.  A lost
    connection is opened again once before a call fails."""

    _p = "%s"

    def __init__(self, url: str):
        try:
            import psycopg
        except ImportError:  # pragma: no cover - the `web` extra brings it
            raise StoreError("a PostgreSQL database needs psycopg: pip install 'fishrules[web]'") from None
        self._psycopg = psycopg
        self._url = url
        self._integrity = (psycopg.IntegrityError,)
        self._db = None
        try:
            self._connect()
            self._setup()
        except psycopg.Error as e:
            raise StoreError(f"cannot use the PostgreSQL database: {_first_line(e)}") from None

    def _connect(self) -> None:
        self._db = self._psycopg.connect(self._url, autocommit=True, connect_timeout=10)

    def _run(self, fn: Any) -> Any:
        for attempt in (0, 1):
            if self._db is None or self._db.closed:
                self._connect()
            try:
                with self._db.transaction():
                    with self._db.cursor() as cur:
                        return fn(cur)
            except self._psycopg.OperationalError:
                if attempt or not self._db.closed:
                    raise
                self._db = None  # the connection dropped: once more on a new one
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def open_store(db: str) -> Store:
    """The store a `--db` argument names: a PostgreSQL URL, or a SQLite file's path."""
    if db.startswith(("postgresql://", "postgres://")):
        return PostgresStore(db)
    return SQLiteStore(db)
