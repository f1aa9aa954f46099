"""The kernel cache holds code: nobody else can swap what is loaded, and it stays bounded (issue 31).

A compiled kernel runs as whoever loads it.  So the cache folder is used only if every folder
from the root down is the user's or root's and nobody else may write it (root's sticky folders
such as /tmp excepted); it is then held open, and the library is hashed and loaded through
descriptors, so that a folder swapped for a link after the check changes nothing.  A library
without the kernel's entry points is a NativeError.  The cache keeps to a size bound, evicting
what was used least recently.  The compiler runs in a process group of its own, killed whole at
its time limit; a text it failed on is not compiled again at once; a build cut short leaves
nothing behind, in the cache or in the temporary folder.

These tests compile no rules: `emit_c` is replaced by a small text, and the compiler by scripts
(a real `cc` only where a real library is needed), so each takes about a second or less.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from fishrules.kernel import native
from fishrules.kernel.native import NativeBackend, NativeError

SRC = str(Path(native.__file__).resolve().parents[2])  # (the sources under test, for the processes started)
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler here")
needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="giving a folder to another user needs root")
needs_linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

OTHER = 12345  # a user who is not us


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A fresh private cache folder, a fresh temporary folder, and C that is just a tag."""
    where = tmp_path / "cache"
    monkeypatch.setenv("FISHRULES_CACHE", str(where))
    tmp = tmp_path / "tmp"
    tmp.mkdir(mode=0o700)
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setattr(native, "emit_c", lambda kp: f"int tag_{kp};\n")
    monkeypatch.setattr(native, "_failed", {}, raising=False)
    return where


def compiler(tmp_path: Path, name: str, body: str) -> str:
    """A compiler script: `--version` prints its own path (so each script is its own cache key);
    otherwise `$out` is the file after `-o`, and `body` runs."""
    path = tmp_path / name
    path.write_text("#!/bin/sh\nif [ \"$1\" = --version ]; then echo \"fake $0\"; exit 0; fi\n"
                    "out=\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then out=\"$2\"; fi; shift; done\n" + body)
    path.chmod(0o755)
    return str(path)


def use(monkeypatch, cc: str) -> None:
    monkeypatch.setenv("FISHRULES_CC", cc)


def noise(tmp_path: Path, kib: int = 40) -> str:
    """A "compiler" whose library is `kib` KiB of noise (built fast; never loaded)."""
    return compiler(tmp_path, f"noise{kib}", f"head -c {kib * 1024} /dev/urandom > \"$out\"\n")


def empty_library(tmp_path: Path) -> str:
    """A compiler whose library is real but has none of the kernel's entry points."""
    return compiler(tmp_path, "empty", f"exec {CC} -shared -fPIC -o \"$out\" -x c /dev/null\n")


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


# ---- which folders are trusted ---------------------------------------------------------------------


@needs_root
@pytest.mark.parametrize("mode,owner", [
    pytest.param(0o777, 0, id="anybody may write the parent"),
    pytest.param(0o770, 0, id="its group may write the parent"),
    pytest.param(0o755, OTHER, id="another user owns the parent"),
    pytest.param(0o1777, OTHER, id="a sticky parent of another user"),
])
@pytest.mark.parametrize("depth", [1, 3])
def test_a_cache_under_a_folder_others_control_is_refused(cache, tmp_path, monkeypatch, mode, owner, depth):
    """Whoever may write a folder above the cache may rename what it holds and put their own in
    its place: the cache is not used (nothing is written under it), and the kernel is built
    privately, leaving nothing in the temporary folder either."""
    unsafe = tmp_path / "unsafe"
    unsafe.mkdir()
    where = unsafe.joinpath(*["deeper"] * (depth - 1), "cache")
    where.parent.mkdir(parents=True, exist_ok=True)
    os.chown(unsafe, owner, owner)
    unsafe.chmod(mode)
    monkeypatch.setenv("FISHRULES_CACHE", str(where))
    assert native.cache_dir() is None
    use(monkeypatch, noise(tmp_path))
    with pytest.raises(NativeError):
        NativeBackend(1)  # type: ignore[arg-type]  (noise: built, then refused by the loader)
    assert not where.exists() or not any(where.rglob("*")), "something was written where others control"
    assert listing(tmp_path / "tmp") == []


@needs_root
@pytest.mark.parametrize("mode", [0o700, 0o755, 0o1777])
def test_a_cache_under_folders_of_the_user_or_root_is_used(cache, tmp_path, monkeypatch, mode):
    """The other side: a parent of root's, like /tmp (sticky, anybody may add names), or the
    user's own, does not stop the cache."""
    parent = tmp_path / "parent"
    parent.mkdir()
    parent.chmod(mode)
    monkeypatch.setenv("FISHRULES_CACHE", str(parent / "cache"))
    assert native.cache_dir() == (parent / "cache" / "kernels").resolve()


def test_a_cache_folder_others_may_write_is_refused(cache, tmp_path, monkeypatch):
    (cache / "kernels").mkdir(parents=True)
    (cache / "kernels").chmod(0o777)
    assert native.cache_dir() is None
    (cache / "kernels").chmod(0o700)
    assert native.cache_dir() == (cache / "kernels").resolve()


# ---- what is loaded is what was checked ------------------------------------------------------------


def _foreign_library(tmp_path: Path, marker: Path) -> bytes:
    """A library whose constructor creates `marker` as it is loaded."""
    src = tmp_path / "foreign.c"
    src.write_text(textwrap.dedent(f"""
        #include <fcntl.h>
        #include <unistd.h>
        __attribute__((constructor)) static void ran(void) {{ close(open("{marker}", O_CREAT | O_WRONLY, 0600)); }}
        long fk_size(void) {{ return 0; }}
    """))
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(tmp_path / "foreign.so"), str(src)], check=True)
    return (tmp_path / "foreign.so").read_bytes()


@needs_cc
def test_a_library_without_the_entry_points_is_a_native_error(cache, tmp_path, monkeypatch):
    use(monkeypatch, empty_library(tmp_path))
    for _ in range(2):  # built, then found in the cache
        with pytest.raises(NativeError, match="entry point"):
            NativeBackend(2)  # type: ignore[arg-type]


@needs_cc
@pytest.mark.parametrize("what", ["the cache folder", "the kernels folder"])
def test_a_folder_swapped_for_a_link_after_the_check_loads_nothing_foreign(cache, tmp_path, monkeypatch, what):
    """The cache passes its checks, then (as a user who may rename it could, or its owner by
    mistake) it is swapped for a link to a folder holding a foreign library, whose checksum beside
    it is right: the library loaded is still the checked one (it used to be loaded by its path,
    through the link: the foreign constructor ran as the loading user)."""
    use(monkeypatch, empty_library(tmp_path))
    built = native.build(3)  # in the cache now (and not loaded: the first load is after the swap)
    if hasattr(built, "fd"):
        os.close(built.fd)
    kernels = cache / "kernels"
    [entry] = [n for n in listing(kernels) if n.endswith(".so")]
    marker = tmp_path / "foreign-ran"
    foreign = _foreign_library(tmp_path, marker)
    evil = tmp_path / "evil"
    (evil / "kernels").mkdir(parents=True)
    (evil / "kernels" / entry).write_bytes(foreign)
    (evil / "kernels" / (entry + ".sha256")).write_text(hashlib.sha256(foreign).hexdigest())
    victim, decoy = (cache, evil) if what == "the cache folder" else (kernels, evil / "kernels")

    check = "_open_cache" if hasattr(native, "_open_cache") else "cache_dir"  # (what the build checks with)
    checked = getattr(native, check)
    swaps = []

    def check_then_swap():
        got = checked()
        if not swaps:
            victim.rename(victim.with_name(victim.name + ".moved"))
            victim.symlink_to(decoy)
            swaps.append(what)
        return got

    monkeypatch.setattr(native, check, check_then_swap)
    try:
        NativeBackend(3)  # type: ignore[arg-type]
    except (NativeError, AttributeError):
        pass
    assert swaps and victim.is_symlink()
    assert not marker.exists(), "a foreign library was loaded"


# ---- the size bound ----------------------------------------------------------------------------------


def test_the_size_bound_is_read_from_the_environment(monkeypatch):
    for text, size in [("64M", 64 << 20), ("100k", 100 << 10), ("1 GiB", 1 << 30), ("4096", 4096),
                       ("", native.CACHE_SIZE), ("lots", native.CACHE_SIZE), ("-5", native.CACHE_SIZE)]:
        monkeypatch.setenv("FISHRULES_CACHE_SIZE", text)
        assert native.cache_size() == size, text


def test_the_cache_keeps_to_its_bound_and_evicts_what_was_used_least_recently(cache, tmp_path, monkeypatch):
    """Libraries of 40 KiB (with their checksums, 44 KiB) under a bound of 150 KiB: three fit.
    Build a, b and c, use a again, build d: b goes (the least recently used), and the cache stays
    under its bound however many more are built."""
    monkeypatch.setenv("FISHRULES_CACHE_SIZE", "150K")
    use(monkeypatch, noise(tmp_path))
    kernels = cache / "kernels"

    def libraries() -> set:
        return {n for n in listing(kernels) if n.endswith(".so")}

    names = {}
    for tag in "abcd":
        if tag == "d":
            before = libraries()
            os.close(native.build("a").fd)  # a is used again: found in the cache, not built
            assert libraries() == before
        lib = native.build(tag)
        os.close(lib.fd)
        names[tag] = lib.name
        time.sleep(0.01)
    assert libraries() == {names["a"], names["c"], names["d"]}
    for tag in "efghij":
        os.close(native.build(tag).fd)
        size = sum(p.stat().st_blocks * 512 for p in kernels.iterdir())
        assert size <= 150 << 10
        assert len(libraries()) == 3 and all((kernels / (n + ".sha256")).exists() for n in libraries())


def test_a_library_bigger_than_the_bound_is_still_used(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("FISHRULES_CACHE_SIZE", "0")
    use(monkeypatch, noise(tmp_path))
    first = native.build("a")
    os.close(first.fd)
    second = native.build("b")
    os.close(second.fd)
    assert {n for n in listing(cache / "kernels") if n.endswith(".so")} == {second.name}


# ---- builds at once ---------------------------------------------------------------------------------


def _counting(tmp_path: Path) -> tuple[str, Path]:
    """A compiler that notes each compile in a file and takes half a second."""
    runs = tmp_path / "runs"
    return compiler(tmp_path, "counting", f"echo run >> {runs}\nsleep 0.5\nhead -c 4096 /dev/urandom > \"$out\"\n"), runs


def test_processes_that_need_one_library_at_once_compile_it_once(cache, tmp_path, monkeypatch):
    """Four builds of the same library at once (each its own descriptor on the lock, as separate
    processes have): one compiles, the others wait and load what it stored; no lock is left."""
    import threading

    cc, runs = _counting(tmp_path)
    use(monkeypatch, cc)
    names, errors = [], []

    def one() -> None:
        try:
            lib = native.build("a")
            names.append(lib.name)
            os.close(lib.fd)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors and len(names) == 4 and len(set(names)) == 1
    assert runs.read_text().split() == ["run"]
    assert not [n for n in listing(cache / "kernels") if n.startswith(".")]


def test_a_build_that_holds_the_lock_too_long_is_not_waited_for(cache, tmp_path, monkeypatch):
    """A process stopped while it builds holds the lock: the next build waits LOCK_WAIT, then
    compiles the library itself."""
    import fcntl

    cc, runs = _counting(tmp_path)
    use(monkeypatch, cc)
    monkeypatch.setattr(native, "LOCK_WAIT", 0.3)
    lib = native.build("b")  # (to learn its entry's name, and to make the folder)
    os.close(lib.fd)
    kernels = cache / "kernels"
    for n in (lib.name, lib.name + ".sha256"):
        (kernels / n).unlink()
    held = os.open(kernels / f".lock-{lib.name}", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        again = native.build("b")
        os.close(again.fd)
    finally:
        os.close(held)
    assert again.name == lib.name and runs.read_text().split() == ["run", "run"]


# ---- compiler processes ------------------------------------------------------------------------------


def _status(pid: int) -> list[str]:
    """A process's state, parent, group... (/proc/PID/stat after its name), or [] if it is gone."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()
    except OSError:
        return []


def _running(pids) -> list[int]:
    """Those of `pids` still running (a zombie, not yet reaped by whoever adopted it, no longer runs)."""
    return [pid for pid in pids if _status(pid)[:1] not in ([], ["Z"])]


def _group_members(pgid: int) -> list[int]:
    """The processes of a process group that are still running."""
    return _running(int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()
                    and _status(int(e.name))[2:3] == [str(pgid)])


def _kill(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@needs_linux
def test_a_compile_past_its_time_is_killed_whole_and_not_tried_again_at_once(cache, tmp_path, monkeypatch):
    """A compiler that starts a child and never ends: at COMPILE_TIMEOUT the whole group is killed
    (the driver alone used to be: cc1 ran on, orphaned), and the text is not compiled again for a
    while, in this process nor (by a note in the cache) in another."""
    log, pids = tmp_path / "runs", tmp_path / "pids"
    # (the shell is the driver; its `sleep` children stand for cc1 and as)
    slow = compiler(tmp_path, "slow", f"echo run >> {log}\nsleep 60 & a=$!\nsleep 60 & b=$!\necho $$ $a $b >> {pids}\nwait\n")
    use(monkeypatch, slow)
    monkeypatch.setattr(native, "COMPILE_TIMEOUT", 1)
    t0 = time.monotonic()
    try:
        with pytest.raises(NativeError, match="took more than 1 s"):
            native.build("slow")
        assert time.monotonic() - t0 < 15
        started = [int(pid) for pid in pids.read_text().split()]
        deadline = time.monotonic() + 5
        while (_running(started) or _group_members(started[0])) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _running(started) == [] and _group_members(started[0]) == [], "compiler processes run on"
        # not compiled again at once: the same message, no new run
        t1 = time.monotonic()
        with pytest.raises(NativeError, match="took more than 1 s"):
            native.build("slow")
        native._failed.clear()  # another process: only the cache remembers
        with pytest.raises(NativeError, match="took more than 1 s"):
            native.build("slow")
        assert time.monotonic() - t1 < 1
        assert log.read_text().count("run") == 1
    finally:
        if pids.exists():
            _kill(map(int, pids.read_text().split()))


@needs_linux
def test_a_compiler_error_is_remembered_too_and_forgotten_after_a_while(cache, tmp_path, monkeypatch):
    log = tmp_path / "runs"
    use(monkeypatch, compiler(tmp_path, "failing", f"echo run >> {log}\necho 'kernel.c:1: error: no' >&2\nexit 1\n"))
    for _ in range(3):
        with pytest.raises(NativeError, match="error: no"):
            native.build("bad")
    assert log.read_text().count("run") == 1
    monkeypatch.setattr(native, "FAILURE_MEMORY", 0)
    with pytest.raises(NativeError, match="error: no"):
        native.build("bad")
    assert log.read_text().count("run") == 2


INTERRUPTED_BUILD = """
from fishrules.kernel import native
native.emit_c = lambda kp: "int interrupted;\\n"
native.build("interrupted")
"""


@needs_linux
def test_an_interrupted_build_takes_its_compiler_with_it(cache, tmp_path):
    """Ctrl-C (SIGINT to the building process alone: the compiler, in a group of its own, no longer
    hears the terminal's) ends the compiler and everything it started."""
    pids = tmp_path / "pids"
    slow = compiler(tmp_path, "slow", f"sleep 60 & a=$!\nsleep 60 & b=$!\necho $$ $a $b >> {pids}\nwait\n")
    env = {**os.environ, "FISHRULES_CC": slow, "PYTHONPATH": SRC}
    proc = subprocess.Popen([sys.executable, "-c", INTERRUPTED_BUILD], env=env, stderr=subprocess.PIPE, text=True)
    started: list = []
    try:
        deadline = time.monotonic() + 30
        while not started and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
            started = [int(p) for p in pids.read_text().split()] if pids.exists() else []
        assert len(started) == 3, "the compiler never started"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert "KeyboardInterrupt" in err
        deadline = time.monotonic() + 5
        while _running(started) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _running(started) == [], "compiler processes run on"
    finally:
        proc.kill()
        _kill(started)


KILLED_BUILD = """
import sys
from fishrules.kernel import native
native.emit_c = lambda kp: "int killed;\\n"
try:
    native.NativeBackend("killed")
except native.NativeError:
    pass
"""


@needs_linux
@pytest.mark.parametrize("where", ["in the cache", "with no cache"])
def test_a_build_killed_midway_leaves_nothing_after_the_next(cache, tmp_path, monkeypatch, where):
    """SIGKILL the building process while its compiler runs: what it left (its build folder, in
    the cache or the temporary folder) is gone once another build has run."""
    if where == "with no cache":
        blocker = tmp_path / "not-a-folder"
        blocker.write_text("")
        monkeypatch.setenv("FISHRULES_CACHE", str(blocker))
    log, pids = tmp_path / "runs", tmp_path / "pids"
    slow = compiler(tmp_path, "slow", f"echo $$ > {pids}\necho run >> {log}\nexec sleep 60\n")
    env = {**os.environ, "FISHRULES_CC": slow, "PYTHONPATH": SRC}
    proc = subprocess.Popen([sys.executable, "-c", KILLED_BUILD], env=env)
    try:
        deadline = time.monotonic() + 30
        while not log.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert log.exists(), "the compiler never started"
        proc.kill()
        proc.wait()
    finally:
        if pids.exists():
            _kill(map(int, pids.read_text().split()))
    tmp = tmp_path / "tmp"
    left = listing(cache / "kernels") + listing(tmp)
    assert left, "the killed build left nothing to clean: the test shows nothing"
    use(monkeypatch, noise(tmp_path))
    with pytest.raises(NativeError):  # another text, built: noise, so not loaded
        NativeBackend("next")  # type: ignore[arg-type]
    assert [n for n in listing(cache / "kernels") if n.startswith((".build", ".tmp"))] == []
    assert listing(tmp) == []


def test_a_private_build_leaves_nothing_in_the_temporary_folder(cache, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("FISHRULES_CACHE", str(blocker))
    use(monkeypatch, noise(tmp_path))
    for tag in range(3):
        with pytest.raises(NativeError):
            NativeBackend(tag)  # type: ignore[arg-type]
    assert listing(tmp_path / "tmp") == []
