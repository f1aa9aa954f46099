"""The stores of `fishrules serve`: SQLite, and PostgreSQL on a real server started for the tests."""

from __future__ import annotations

import pytest

from fishrules.web.store import ActionRecord, Conflict, PostgresStore, SQLiteStore, StoreError, TableRecord, open_store

from ._web import postgres_server


@pytest.fixture(scope="module")
def pg_url():
    with postgres_server() as url:
        if url is None:  # pragma: no cover - `make test` installs PostgreSQL
            pytest.skip("no PostgreSQL server programs (initdb, pg_ctl) on this machine")
        yield url


def _table(tid: str = "t1") -> TableRecord:
    return TableRecord(id=tid, ruleset="house.fish", rules_name="house.fish", rules_text='game "<script>"\n',
                       rules_variant=None, rules_hash="0" * 64, variant=None, players=2, options={"n": 3},
                       seed=7, seats=["human", "random"], names=['"><img src=x onerror=alert(1)>', "bot"])


def _exercise(store) -> None:
    t = _table()
    store.create_table(t, [("tok-host", "host", None), ("tok-0", "seat", 0), ("tok-1", "seat", 1), ("tok-s", "spectator", None)])
    assert store.find_token("tok-0") == ("t1", "seat", 0)
    assert store.find_token("tok-s") == ("t1", "spectator", None)
    assert store.find_token("nope") is None
    assert [r[1] for r in store.tokens_of("t1")] == ["host", "seat", "seat", "spectator"]
    assert store.unfinished() == ["t1"]
    store.record("t1", ActionRecord(0, 0, "go", ("go", "die 1 rolls HEAD"), 0), over=False)
    with pytest.raises(Conflict):  # a second writer at the same position
        store.record("t1", ActionRecord(0, 1, "other", ("other",), 0), over=False)
    store.record("t1", ActionRecord(2, 1, "p1: é ✓", ("p1: é ✓",), 2), over=True)
    # several at once, of any tables, in one commit: a taken position is refused alone
    store.create_table(_table("t2"), [("tok-t2", "seat", 0)])
    assert store.record_many([("t2", ActionRecord(0, 0, "a", ("a",), 1), False),
                              ("t1", ActionRecord(0, 0, "late", ("late",), 1), False),
                              ("t2", ActionRecord(1, 0, "b", ("b",), 2), False)]) == [True, False, True]
    assert [a.text for a in store.load("t2")[1]] == ["a", "b"]
    record, actions = store.load("t1")
    assert record == t
    assert actions == [ActionRecord(0, 0, "go", ("go", "die 1 rolls HEAD"), 0), ActionRecord(2, 1, "p1: é ✓", ("p1: é ✓",), 2)]
    assert store.unfinished() == ["t2"]
    assert store.load("missing") is None
    # a step taken back: only the last, and then its position is free again
    assert not store.take_back("t2", 0) and not store.take_back("t2", 5) and not store.take_back("missing", 0)
    assert store.take_back("t2", 1)
    assert [a.text for a in store.load("t2")[1]] == ["a"]
    store.record("t2", ActionRecord(1, 0, "c", ("c",), 2), over=False)
    assert [a.text for a in store.load("t2")[1]] == ["a", "c"]


def test_sqlite_store(tmp_path):
    path = str(tmp_path / "tables.sqlite")
    store = open_store(path)
    assert isinstance(store, SQLiteStore)
    _exercise(store)
    store.close()
    again = SQLiteStore(path)  # what a restarted server reads
    assert again.load("t1")[0].names[0].startswith('"><img')
    again.close()


def test_sqlite_store_refuses_what_it_cannot_use(tmp_path):
    with pytest.raises(StoreError, match="cannot use the database"):
        SQLiteStore(str(tmp_path / "no" / "such" / "folder.sqlite"))
    other = tmp_path / "other.sqlite"
    SQLiteStore(str(other)).close()
    import sqlite3

    db = sqlite3.connect(other)
    db.execute("UPDATE fr_meta SET value = '99' WHERE key = 'schema'")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="another version"):
        SQLiteStore(str(other))


def test_postgres_store(pg_url):
    store = open_store(pg_url)
    assert isinstance(store, PostgresStore)
    _exercise(store)
    store._db.close()  # a dropped connection is opened again
    assert store.find_token("tok-1") == ("t1", "seat", 1)
    store.close()


def test_postgres_store_unreachable_is_a_store_error():
    with pytest.raises(StoreError, match="cannot use the PostgreSQL database"):
        PostgresStore("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")
