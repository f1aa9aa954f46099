"""`extends` stays inside the rules (issue 11, section 1: security).

`extends "NAME"` resolves to NAME.fish (or NAME, if it ends in .fish) in the including file's own
folder or below it, else to a bundled ruleset.  Refused with a positioned RuleError that quotes none
of the foreign file: absolute paths, any `..`, empty / `.` / `/` names, backslashes, names over 200
characters, a symlink out of the folder, a non-regular file, a file not ending in .fish, a non-UTF-8
file.  The working directory is never searched.  `loads(text)` resolves bundled names only;
`loads(text, base_dir=D)` files under D too.  `load(ref)`: a bundled name, or a path the caller
chose, whose folder confines its own `extends`.

Every foreign file below holds a unique marker; no error may contain it.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from . import scenarios as sc
from .contract import FAST, L, assert_loads, assert_rule_error, run

MARK = "SECRET-" + uuid.uuid4().hex[:12]
MARK_LINE = f"{MARK} root:x:0:0:{MARK}"
#: A foreign ruleset that would load: if the escape works, the game's title is the marker.
EVIL_VALID = f'game "{MARK}"\nplayers 3 to 3\noption evil_{MARK[7:]}: number = 1\nphase game:\n  nothing\n'
#: A foreign file that is not rules: the parse error would quote its first line.
EVIL_BROKEN = f"{MARK_LINE}\nsecond {MARK} line\n"
OVERLAY = 'extends "{}"\ngame "Mine"\n'


def overlay(target: str) -> str:
    return OVERLAY.format(target)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/rules (the including folder, with base.fish and sub/deep.fish), tmp/outside (foreign)."""
    rules = tmp_path / "rules"
    (rules / "sub").mkdir(parents=True)
    (rules / "base.fish").write_text('game "Base"\nplayers 2 to 5\nphase game:\n  nothing\n')
    (rules / "sub" / "deep.fish").write_text('game "Deep"\nplayers 2 to 6\nphase game:\n  nothing\n')
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "evil.fish").write_text(EVIL_VALID)
    (outside / "broken.fish").write_text(EVIL_BROKEN)
    (outside / "notes.txt").write_text(EVIL_BROKEN)
    (tmp_path / "evil.fish").write_text(EVIL_VALID)
    (tmp_path / "broken.fish").write_text(EVIL_BROKEN)
    return tmp_path


def write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.write_text(text)
    return p


def refused_from_file(tree: Path, target: str, **kw):
    """`extends target` in tmp/rules/house.fish, loaded by path: refused at line 1, no marker."""
    house = write(tree / "rules", "house.fish", overlay(target))
    out = run(sc.load_path, str(house), timeout=FAST, **kw)
    assert_rule_error(out, lines=1, not_containing=(MARK,))
    return out


def refused_from_text(target: str, base_dir=None, **kw):
    out = run(sc.load_text, overlay(target), "house.fish", base_dir, timeout=FAST, **kw)
    assert_rule_error(out, lines=1, not_containing=(MARK,))
    return out


# ---- the known escapes ------------------------------------------------------------------------------


def test_etc_passwd_is_refused_and_not_quoted(tree):
    first = Path("/etc/passwd").read_text().splitlines()[0]
    for out in (refused_from_text("/etc/passwd"), refused_from_file(tree, "/etc/passwd")):
        text = out.message + "".join(d.rendered for d in out.diagnostics)
        assert first not in text and first.split(":")[0] + ":x:" not in text, text


@pytest.mark.parametrize("target", ["/proc/self/cmdline", "/proc/self/environ", "/proc/self/status",
                                    "/dev/zero", "/dev/stdin", "/proc/self/fd/0"])
def test_proc_and_dev_are_refused(tree, target):
    for out in (refused_from_text(target), refused_from_file(tree, target)):
        text = out.message + "".join(d.rendered for d in out.diagnostics)
        assert "--worker" not in text and "harness.py" not in text and "PATH=" not in text, text


@pytest.mark.parametrize("kind", ["valid", "broken"])
def test_absolute_path_is_refused(tree, kind):
    target = str(tree / "outside" / ("evil.fish" if kind == "valid" else "broken.fish"))
    refused_from_text(target)
    refused_from_file(tree, target)
    refused_from_text(target, base_dir=str(tree / "rules"))


def test_absolute_path_into_the_folder_itself_is_refused(tree):
    # absolute paths are refused, even to a file the name would reach the confined way
    refused_from_file(tree, str(tree / "rules" / "base.fish"))
    refused_from_file(tree, str(tree / "rules" / "base"))


@pytest.mark.parametrize("target", ["../evil", "../broken", "../evil.fish", "./../evil", "sub/../../evil",
                                    "../outside/evil", "../outside/broken", "sub/../../outside/evil",
                                    "..", "../", "sub/..", "sub/../base"])
def test_dot_dot_is_refused(tree, target):
    refused_from_file(tree, target)
    refused_from_text(target, base_dir=str(tree / "rules"))


@pytest.mark.parametrize("target", ["", ".", "/", "./", "//", " ", "~", "~/evil", "sub\\deep", "..\\evil",
                                    "C:\\evil", "\\\\server\\share\\evil", "base\x00", "\x00", "a" * 201,
                                    "a" * 5000, "b/" * 150 + "x"])
def test_bad_names_are_refused(tree, target):
    refused_from_file(tree, target)
    refused_from_text(target)
    refused_from_text(target, base_dir=str(tree / "rules"))


def test_name_length_limit(tree):
    ok = "n" * 200
    write(tree / "rules", ok + ".fish", 'game "Long"\nplayers 2 to 3\nphase game:\n  nothing\n')
    house = write(tree / "rules", "house.fish", overlay(ok))
    assert assert_loads(run(sc.load_path, str(house), timeout=FAST))["title"] == "Mine"
    over = "n" * 201
    write(tree / "rules", over + ".fish", 'game "Longer"\nplayers 2 to 3\nphase game:\n  nothing\n')
    refused_from_file(tree, over)


def test_symlink_out_of_the_folder_is_refused(tree):
    rules = tree / "rules"
    os.symlink(tree / "outside" / "evil.fish", rules / "link.fish")
    os.symlink(tree / "outside" / "broken.fish", rules / "blink.fish")
    os.symlink(tree / "outside", rules / "away")
    os.symlink("/etc/passwd", rules / "pw.fish")
    for target in ("link", "link.fish", "blink", "away/evil", "away/broken", "pw"):
        refused_from_file(tree, target)
        refused_from_text(target, base_dir=str(rules))


def test_symlink_chain_that_ends_outside_is_refused(tree):
    rules = tree / "rules"
    os.symlink(tree / "outside" / "evil.fish", rules / "hop2.fish")
    os.symlink(rules / "hop2.fish", rules / "hop1.fish")  # in the folder, but it leads out
    refused_from_file(tree, "hop1")


def test_symlink_inside_the_folder_is_followed(tree):
    rules = tree / "rules"
    os.symlink(rules / "sub" / "deep.fish", rules / "alias.fish")
    house = write(rules, "house.fish", overlay("alias"))
    got = assert_loads(run(sc.load_path, str(house), timeout=FAST))
    assert (got["title"], got["max_players"]) == ("Mine", 6)


def test_directory_is_refused(tree):
    (tree / "rules" / "dir.fish").mkdir()
    (tree / "rules" / "plain_dir").mkdir()
    refused_from_file(tree, "dir")
    refused_from_file(tree, "dir.fish")
    refused_from_file(tree, "plain_dir")
    refused_from_file(tree, "sub")


def test_fifo_is_refused_without_hanging(tree):
    os.mkfifo(tree / "rules" / "pipe.fish")
    refused_from_file(tree, "pipe")  # FAST: opening a fifo for reading would block for ever
    refused_from_text("pipe", base_dir=str(tree / "rules"))


def test_device_through_a_symlink_is_refused(tree):
    os.symlink("/dev/zero", tree / "rules" / "zero.fish")  # reading it never ends
    os.symlink("/dev/urandom", tree / "rules" / "noise.fish")
    refused_from_file(tree, "zero")
    refused_from_file(tree, "noise")


def test_file_not_ending_in_fish_is_refused(tree):
    rules = tree / "rules"
    write(rules, "notes.txt", EVIL_BROKEN)
    write(rules, "notes", EVIL_BROKEN)
    write(rules, "README", EVIL_VALID)
    refused_from_file(tree, "notes.txt")
    refused_from_file(tree, "notes")
    refused_from_file(tree, "README")


def test_non_utf8_file_is_refused_without_quoting_it(tree):
    rules = tree / "rules"
    (rules / "latin.fish").write_bytes(f'game "{MARK} caf\xe9"\n'.encode("latin-1") + b"\xff\xfe\x00" + MARK.encode())
    out = refused_from_file(tree, "latin")
    assert_rule_error(out, not_containing=(MARK,))
    (rules / "utf16.fish").write_bytes(EVIL_VALID.encode("utf-16"))
    refused_from_file(tree, "utf16")


# ---- the working directory is never searched --------------------------------------------------------


@pytest.fixture
def evil_cwd(tmp_path: Path) -> Path:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    write(cwd, "fishfry.fish", EVIL_VALID)
    write(cwd, "fishfry", EVIL_VALID)
    write(cwd, "house.fish", EVIL_VALID)
    write(cwd, "house", EVIL_VALID)
    return cwd


def _bundled_fishfry(got: dict) -> None:
    assert got["title"] == "Mine", got
    assert (got["min_players"], got["max_players"]) == (2, 8), f"extends picked up a foreign fishfry.fish: {got}"
    assert not any(MARK[7:] in o for o in got["options"]), got
    assert not any("cwd" in f for f in got["files"]), got


def test_extends_a_bundled_name_ignores_the_working_directory(evil_cwd, tmp_path):
    _bundled_fishfry(assert_loads(run(sc.load_text, overlay("fishfry"), "house.fish", timeout=FAST, cwd=evil_cwd)))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    house = write(elsewhere, "mine.fish", overlay("fishfry"))
    _bundled_fishfry(assert_loads(run(sc.load_path, str(house), timeout=FAST, cwd=evil_cwd)))
    out = run(sc.load_text, overlay("fishfry"), "house.fish", str(elsewhere), timeout=FAST, cwd=evil_cwd)
    _bundled_fishfry(assert_loads(out))


def test_loads_without_base_dir_resolves_bundled_names_only(evil_cwd):
    out = run(sc.load_text, overlay("house"), "x.fish", timeout=FAST, cwd=evil_cwd)
    assert_rule_error(out, lines=1, not_containing=(MARK,))


def test_load_of_a_bundled_name_ignores_the_working_directory(evil_cwd):
    got = assert_loads(run(sc.load_path, "fishfry", timeout=FAST, cwd=evil_cwd))
    assert got["title"] == "Fishfry" and got["max_players"] == 8, got


def test_load_of_a_path_is_the_callers_choice(tree):
    # the caller is trusted: a path it names loads, and its folder confines its own extends
    got = assert_loads(run(sc.load_path, str(tree / "outside" / "evil.fish"), timeout=FAST))
    assert got["title"] == MARK
    write(tree / "outside", "over.fish", overlay("evil"))
    assert assert_loads(run(sc.load_path, str(tree / "outside" / "over.fish"), timeout=FAST))["max_players"] == 3


# ---- what does resolve ----------------------------------------------------------------------------------


def test_sibling_subfolder_and_bundled_resolve(tree):
    rules = tree / "rules"
    for target, players in (("base", 5), ("base.fish", 5), ("sub/deep", 6), ("sub/deep.fish", 6), ("fishfry", 8)):
        house = write(rules, "house.fish", overlay(target))
        got = assert_loads(run(sc.load_path, str(house), timeout=FAST))
        assert (got["title"], got["max_players"]) == ("Mine", players), (target, got)
        got = assert_loads(run(sc.load_text, overlay(target), "house.fish", str(rules), timeout=FAST))
        assert got["max_players"] == players, (target, got)


def test_the_folder_comes_before_the_bundled_rulesets(tree):
    rules = tree / "rules"
    write(rules, "fishfry.fish", 'game "Local fishfry"\nplayers 2 to 3\nphase game:\n  nothing\n')
    house = write(rules, "house.fish", overlay("fishfry"))
    assert assert_loads(run(sc.load_path, str(house), timeout=FAST))["max_players"] == 3


def test_a_subfolder_file_extends_within_its_own_folder(tree):
    # sub/inner.fish extends "../base" would leave sub/: refused, even though base.fish is in rules/
    inner = write(tree / "rules" / "sub", "inner.fish", overlay("../base"))
    out = run(sc.load_path, str(inner), timeout=FAST)
    assert_rule_error(out, lines=1)
    inner = write(tree / "rules" / "sub", "inner.fish", overlay("deep"))
    assert assert_loads(run(sc.load_path, str(inner), timeout=FAST))["max_players"] == 6


def test_a_base_extends_within_its_own_folder(tree):
    # rules/house.fish -> rules/sub/mid.fish -> "../base" leaves sub/: refused
    write(tree / "rules" / "sub", "mid.fish", 'extends "../base"\ngame "Mid"\n')
    house = write(tree / "rules", "house.fish", overlay("sub/mid"))
    out = run(sc.load_path, str(house), timeout=FAST)
    assert_rule_error(out, not_containing=(MARK,))


# ---- MAX_EXTENDS_DEPTH -----------------------------------------------------------------------------------


def _chain(folder: Path, hops: int) -> Path:
    """f0 extends f1 extends ... f{hops}: `hops` extends in a row."""
    write(folder, f"f{hops}.fish", 'game "Root"\nplayers 2 to 3\nphase game:\n  nothing\n')
    for i in range(hops - 1, -1, -1):
        write(folder, f"f{i}.fish", f'extends "f{i + 1}"\ngame "F{i}"\n')
    return folder / "f0.fish"


def test_extends_depth_just_under_the_limit(tmp_path):
    # MAX_EXTENDS_DEPTH - 1 hops: under the limit however the levels are counted (files or hops)
    top = _chain(tmp_path, L["MAX_EXTENDS_DEPTH"] - 1)
    assert assert_loads(run(sc.load_path, str(top), timeout=FAST))["title"] == "F0"


@pytest.mark.parametrize("hops", [L["MAX_EXTENDS_DEPTH"] + 1, 100])
def test_extends_depth_over_the_limit(tmp_path, hops):
    top = _chain(tmp_path, hops)
    out = run(sc.load_path, str(top), timeout=FAST)
    assert_rule_error(out, lines=1, limit="MAX_EXTENDS_DEPTH")
