"""The parser's table cache is a pickle: only a file nobody else could have written is read (issues 26, 31).

Building the parser's tables takes most of a second, so fishrules caches them in a file beside the
package or in the user's cache folder (`$XDG_CACHE_HOME/fishrules`), and Lark reads that file back
with `pickle`, which runs any code the file holds.  So the file is read only if nobody but the user
(or root) can have written it: it is no symbolic link, it and its folder belong to the user or root,
and neither may be written by their group or by others.  Any other cache file is left alone (the
tables are built afresh, and the parser works); a cache folder anybody may write is not written
either (a link planted there would send the write elsewhere).  What is checked is what is read: the
folder and the file are opened without following links, checked on their descriptors, and only the
bytes read through them are unpickled, so a folder swapped for a link after the check (issue 31)
changes nothing.

Each case plants a cache file whose pickle creates a marker file as it is read.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import pickle

import pytest

from . import scenarios as sc
from .contract import assert_loads, run


class _Touch:
    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return pathlib.Path.touch, (pathlib.Path(self.path),)


def cache_name(folder: pathlib.Path) -> str:
    """The name the parser gives its cache file (asked of an empty private folder)."""
    folder.mkdir(mode=0o700, exist_ok=True)
    return assert_loads(run(sc.parse_with_cache_in, str(folder)))["name"]


def plant(path: pathlib.Path, marker: pathlib.Path, mode: int = 0o600) -> None:
    """A cache file whose first pickle touches `marker`, in the layout the parser reads (its own
    header and checksum, else Lark's: a line, then pickles), so that only the checks stop it."""
    from fishrules.syntax import lark_parser

    payload = pickle.dumps(_Touch(str(marker)))
    magic = getattr(lark_parser, "_MAGIC", None)
    if magic is None:
        path.write_bytes(b"0" * 64 + b"\n" + payload)
    else:
        path.write_bytes(magic + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    path.chmod(mode)


@pytest.fixture
def name(tmp_path) -> str:
    return cache_name(tmp_path / "probe")


def use(folder: pathlib.Path) -> dict:
    value = assert_loads(run(sc.parse_with_cache_in, str(folder)))
    assert value["parsed"] == 2  # the parser works, cache or no cache
    return value


@pytest.mark.parametrize("folder_mode,file_mode", [
    pytest.param(0o700, 0o666, id="a file anybody may write"),
    pytest.param(0o700, 0o620, id="a file its group may write"),
    pytest.param(0o777, 0o600, id="in a folder anybody may write"),
    pytest.param(0o1777, 0o600, id="in a shared folder like tmp"),
    pytest.param(0o770, 0o600, id="in a folder its group may write"),
])
def test_a_cache_others_could_have_written_is_not_read(folder_mode, file_mode, name, tmp_path):
    folder, marker = tmp_path / "cache", tmp_path / "ran"
    folder.mkdir()
    plant(folder / name, marker, file_mode)
    folder.chmod(folder_mode)
    value = use(folder)
    assert not marker.exists(), "the planted cache was read"
    assert value["chosen"] is None  # and nothing is written there either


def test_a_cache_that_is_a_link_is_not_read(name, tmp_path):
    folder, elsewhere, marker = tmp_path / "cache", tmp_path / "elsewhere", tmp_path / "ran"
    folder.mkdir(mode=0o700)
    elsewhere.mkdir(mode=0o700)
    plant(elsewhere / "tables", marker)
    planted = (elsewhere / "tables").read_bytes()
    (folder / name).symlink_to(elsewhere / "tables")
    value = use(folder)
    assert not marker.exists() and value["chosen"] is None
    assert (elsewhere / "tables").read_bytes() == planted  # not written through the link


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_cache_of_another_user_is_not_read(name, tmp_path):
    folder, marker = tmp_path / "cache", tmp_path / "ran"
    folder.mkdir(mode=0o700)
    plant(folder / name, marker)
    os.chown(folder / name, 65534, 65534)
    use(folder)
    assert not marker.exists()
    os.chown(folder / name, 0, 0)
    os.chown(folder, 65534, 65534)
    use(folder)
    assert not marker.exists()


def test_a_private_cache_is_written_then_read(tmp_path):
    """The cache still works where only the user can write: written once, read back (not rebuilt)
    the next time; and what the user's own cache holds is trusted like the installed package, so
    a file planted there by the user runs (the marker shows this test would see a read)."""
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    first = use(folder)
    cache = folder / first["name"]
    assert first["chosen"] == str(cache) and cache.is_file()
    stamp = cache.stat().st_mtime_ns
    assert use(folder)["chosen"] == str(cache) and cache.stat().st_mtime_ns == stamp
    marker = tmp_path / "ran"
    plant(cache, marker)
    use(folder)
    assert marker.exists()
    # a file of the user's that holds no tables (cut short, or another version's layout) is
    # written over, and then read
    cache.write_bytes(b"0" * 64 + b"\n" + b"not a pickle")
    assert use(folder)["chosen"] == str(cache)
    stamp = cache.stat().st_mtime_ns
    assert b"not a pickle" not in cache.read_bytes()
    use(folder)
    assert cache.stat().st_mtime_ns == stamp


def swap_after_the_check(folder: str, evil: str) -> dict:
    """Build the parser with `folder` as its only cache folder; right after the checks have passed
    (the folder's, then the file's), swap the folder for a link to `evil` (a folder holding a
    planted cache file), as a user who may write the folder's parent could; then parse."""
    from fishrules.syntax import lark_parser, parse

    saved_folders, saved_private = lark_parser._cache_folders, lark_parser._private
    passed: list = []

    def private(what):
        ok = saved_private(what)
        if ok:
            passed.append(what)
            if len(passed) == 2:
                os.rename(folder, folder + ".moved")
                os.symlink(evil, folder)
        return ok

    lark_parser._cache_folders = lambda: (pathlib.Path(folder),)
    lark_parser._private = private
    lark_parser.lalr_parser.cache_clear()
    try:
        lark_parser.lalr_parser()
        module = parse('game "Cached"\nplayers 2 to 2\n', "cached.fish")
        return {"swapped": len(passed) >= 2, "parsed": len(module.items)}
    finally:
        lark_parser._cache_folders, lark_parser._private = saved_folders, saved_private
        lark_parser.lalr_parser.cache_clear()


def test_a_folder_swapped_for_a_link_after_the_check_is_not_read(name, tmp_path):
    """The folder and the file pass every check, then the folder becomes a link to one whose cache
    file runs code: the bytes read are still the checked file's (issue 31: Lark used to open the
    path again, and unpickled the planted file)."""
    folder, evil, marker = tmp_path / "cache", tmp_path / "evil", tmp_path / "ran"
    folder.mkdir(mode=0o700)
    use(folder)  # good tables, written by the parser itself
    assert (folder / name).is_file()
    evil.mkdir(mode=0o700)
    plant(evil / name, marker)
    value = assert_loads(run(swap_after_the_check, str(folder), str(evil)))
    assert value["swapped"] and value["parsed"] == 2
    assert not marker.exists(), "the planted cache was unpickled"
    assert os.path.islink(folder)  # (the swap did happen)
