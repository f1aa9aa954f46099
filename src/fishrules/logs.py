"""Game logs: what `fishrules play --log` writes, and `fishrules replay` and `play --resume` read.

A log is one JSON object, format `fishrules-log/2` (`fishrules-log/1` logs, written before this
one, are still read):

- `ruleset`: a bundled ruleset's name, or the rule file's path relative to the log's folder;
- `rules_hash`: the SHA-256 of the rule texts the game was played with (the file played first,
  then each file it `extends`), so that rules changed since are noticed;
- `rules` (optional): the rule text itself, `{"name", "text", "variant"}`, so that the log replays
  on another machine; written by default for a file that is not bundled;
- `variant`, `players`, `options`, `seed`, `seats` (`human`, `random`, `greedy`, `mcts` or `ismcts`
  per seat),
  `over`, and `history`: every action, chance included.

Logs travel, so a log is untrusted input, as a rule file is (docs/security.md): every field is
checked before use, every count and size in it bounded before anything is built from it (players
by `MAX_PLAYERS`, then by the game's own range; the history by `MAX_HISTORY` entries; options by
`MAX_LOG_OPTIONS` names and values of `MAX_LOG_NAME` characters; a seed within ±2**64), messages
quote what a log holds cut to a line (`terminal.shown`), a ruleset named by a path is looked for
only beside the log under the rule `extends` follows, and carried rule text is read as
`fishrules.loads(text, base_dir=None)` reads it, so that its own `extends` reaches the bundled
rulesets only, never a file on this machine.

A log is saved by writing a temporary file beside it and renaming it over the old one, so a process
killed while writing leaves the previous version whole.  A new log never replaces a file that is
there already (it is linked into place only if the name is free), and a log is written over only
if it is still the file this game read or wrote last: another program (a second `play --resume` of
the same log, an editor) that changed it meanwhile is noticed, and its file kept.  A log is read
only if it is a regular file (a named pipe would block for ever), of at most `MAX_STATE_BYTES`.
This module never prints.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any, Optional

from . import api
from .errors import OptionError, StateError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, the version check alone
    fcntl = None  # type: ignore[assignment]
from .limits import MAX_HISTORY, MAX_NUMBER, MAX_PLAYERS, MAX_SOURCE_BYTES, MAX_STATE_BYTES
from .terminal import shown
from .variants import bundled_names, find_extended, read_rules, rulesets_dir

__all__ = ["FORMAT", "SEAT_KINDS", "new_log", "save_log", "LogWriter", "read_log", "log_identity", "log_game",
           "rules_texts", "rules_hash"]

FORMAT = "fishrules-log/2"
_FORMATS = ("fishrules-log/1", FORMAT)
#: Who may sit at a seat: a person at the keyboard, or one of the command line's bots.
SEAT_KINDS = ("human", "random", "greedy", "mcts", "ismcts")
#: The name carried rule text is shown under in messages: a plain file name.
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
_HASH = re.compile(r"[0-9a-f]{64}")
#: The most options a log may set (a game declares a few), and the longest name or text value of one.
MAX_LOG_OPTIONS = 256
MAX_LOG_NAME = 200
#: A log's seed lies strictly within ±SEED_BOUND (as a saved state's does).
SEED_BOUND = 1 << 64


# ---- the rules' identity ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _extends_of(text: str, name: str) -> Optional[str]:
    # Kept: a server reads the identity of the same few rule texts at every table it sets up, and
    # parsing them again was a fifth of its work under load.  The answer depends on the text alone;
    # 16 texts of at most MAX_SOURCE_BYTES each are what the cache can hold.
    from . import nodes as n
    from .syntax import parse

    for it in parse(text, name).items:
        if isinstance(it, n.Extends):
            return it.target
    return None


def rules_texts(game: api.Game) -> list[tuple[Optional[Path], str]]:
    """The rule files `game` was read from, as (path, text): the file asked for first (path None when
    the rules came from a string), then the file it extends, and so on.  Found as the loader finds
    them, so this only reads files loading the game read."""
    resolved = game._resolved
    text = resolved.source.text if resolved.source is not None else ""
    out: list[tuple[Optional[Path], str]] = [(resolved.path, text)]
    base_dir = resolved.path.parent if resolved.path is not None else resolved.base_dir
    name = resolved.files[-1] if resolved.files else "<rules>"
    for _ in range(64):  # the loader stops a longer chain long before this
        target = _extends_of(text, name)
        if target is None:
            break
        path, _refused = find_extended(target, base_dir)
        if path is None:  # pragma: no cover - the game loaded, so its base was found
            break
        text, name, base_dir = read_rules(path), path.name, path.parent
        out.append((path, text))
    return out


def rules_hash(texts: list[tuple[Optional[Path], str]]) -> str:
    """The SHA-256 of the rule texts, in order (their names do not count: the same rules have the
    same hash in any folder, on any machine)."""
    h = hashlib.sha256()
    for _path, text in texts:
        data = text.encode("utf-8", "surrogatepass")
        h.update(f"{len(data)}\n".encode())
        h.update(data)
    return h.hexdigest()


def is_bundled(path: Optional[Path]) -> bool:
    """Whether `path` is a ruleset bundled with fishrules (a worker loads one by its name)."""
    try:
        return path is not None and path.parent.resolve() == rulesets_dir().resolve()
    except (OSError, ValueError):  # pragma: no cover
        return False


# ---- writing ---------------------------------------------------------------------------------------


def new_log(game: api.Game, ref: str, variant: Optional[str], log_path: str, players: int, options: dict,
            seed: Optional[int], seats: list[str], embed: Optional[bool]) -> tuple[dict, Optional[str]]:
    """The log of a game about to start, and a note for the player if the rules could not be carried.

    `variant` is the variant as asked for (for a bundled NAME, the bundled file NAME-VARIANT).
    `embed` None carries the rule text for a file that is not bundled; True for any; False never.
    Rule text is carried only when it extends nothing but bundled rulesets, since carried text is
    read back with no folder to find other files in."""
    bundled = ref in bundled_names()
    if not bundled:  # a file: named from the log's folder, where `replay` looks for it
        ref = os.path.relpath(os.path.abspath(ref), os.path.dirname(os.path.abspath(log_path)))
    texts = rules_texts(game)
    data: dict[str, Any] = {
        "format": FORMAT,
        "ruleset": ref,
        "rules_hash": rules_hash(texts),
        "variant": variant,
        "players": players,
        "options": options,
        "seed": seed,
        "seats": list(seats),
        "over": False,
        "history": [],
    }
    note = None
    if embed is None:
        embed = not bundled
    if embed:
        local = [p for p, _ in texts[1:] if not is_bundled(p)]
        if local:
            note = (f"the rules extend {os.path.basename(str(local[0]))}, a file that is not bundled, so the log "
                    f"names the rule files instead of carrying them: keep them beside the log to replay it")
        else:
            top = texts[0][0]
            name = top.name if top is not None else "rules.fish"
            data["rules"] = {"name": name if _NAME.fullmatch(name) else "rules.fish", "text": texts[0][1],
                             "variant": game.variant}
    return data, note


#: `save_log(…, previous=ANY)`: write whatever is there.
ANY: Any = object()


def log_identity(path: str) -> Optional[tuple]:
    """What tells one version of a file from another (device, inode, size, modification time, and
    its kind, a link not followed), or None if there is nothing at `path`."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise StateError(f"cannot read the log {path}: {getattr(e, 'strerror', None) or 'not a file name'}") from None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, stat.S_IFMT(st.st_mode))


def save_log(path: str, data: dict, previous: Any = ANY) -> Optional[tuple]:
    """Write the log atomically: a temporary file beside it, flushed, then renamed over it.
    `previous`: None if nothing may be at `path` yet (a new log never replaces a file), or the
    `log_identity` the file must still have (the version this game read or wrote last); a file
    that is not is left alone, and `StateError` says so.  Returns the identity of what it wrote."""
    identity, fd = _write(path, data, previous, lock=False)
    return identity


class LogWriter:
    """Saves the log of the game being played, again and again.  Nobody else writes it meanwhile:
    a new log is put where nothing is (never over a file); a log resumed must not be played by
    another `fishrules` process (it holds an advisory lock on the log, where the system has them)
    and is written over only if it is still the version this game read or wrote last."""

    def __init__(self, path: str, resume: bool):
        self.path = path
        self._fd: Optional[int] = None
        self.identity: Optional[tuple] = None
        if not resume:
            if os.path.lexists(path):
                raise StateError(f"cannot write the log {path}: it exists already, and --log never writes over a "
                                 f"file; give a new name (`fishrules play --resume {path}` goes on with a game saved there)")
            return
        if os.path.islink(path):  # saving renames a file over the link: the log it points to would be left behind
            raise StateError(f"{path} is a symbolic link: give the log's own path to go on with it")
        self.identity = log_identity(path)
        if self.identity is not None and stat.S_ISREG(self.identity[4]) and fcntl is not None:
            try:
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            except OSError:
                return  # read_log says what is wrong with it
            if not _locked(fd):
                os.close(fd)
                raise StateError(f"{path} is being played by another fishrules process: go on with it there")
            self._fd = fd
            self.identity = log_identity(path)

    def save(self, data: dict) -> None:
        self.identity, fd = _write(self.path, data, self.identity, lock=True)
        if fd is not None:
            self.close()
            self._fd = fd

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _locked(fd: int) -> bool:
    """Take the advisory lock of an open log (False if another process holds it)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # a file system without locks: the version check alone guards it
        return True
    return True


def _write(path: str, data: dict, previous: Any, lock: bool) -> tuple[Optional[tuple], Optional[int]]:
    """`save_log`; with `lock`, the written file is locked before it takes the log's place, and
    kept open (its descriptor returned) so that it stays locked."""
    target = Path(path)
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent if str(target.parent) else ".")
    except OSError as e:
        raise StateError(f"cannot write the log {path}: {e.strerror}") from None
    held = None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if lock and fcntl is not None:
            held = os.open(tmp, os.O_RDONLY)
            _locked(held)
        if previous is None:
            _link_new(tmp, path)
        else:
            if previous is not ANY and log_identity(path) != previous:
                raise StateError(f"{path} was changed by another program while this game was played: it is not "
                                 "written over, and this game's last actions are not saved in it")
            os.replace(tmp, target)
    except OSError as e:
        _discard(tmp, held)
        raise StateError(f"cannot write the log {path}: {e.strerror}") from None
    except BaseException:  # Ctrl-C while writing, or a log changed meanwhile: the old log stays, the temporary file goes
        _discard(tmp, held)
        raise
    return log_identity(path), held


def _discard(tmp: str, held: Optional[int]) -> None:
    if held is not None:
        os.close(held)
    try:
        os.unlink(tmp)
    except OSError:
        pass


def _link_new(tmp: str, path: str) -> None:
    """Put the written file `tmp` at `path` only if nothing is there, atomically (a hard link,
    which fails if the name is taken); then remove `tmp`."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise StateError(f"cannot write the log {path}: it exists already, and a new log is never written over a file") from None
    except OSError:  # a file system without hard links: create the name exclusively, then fill it
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.close(fd)
        os.replace(tmp, path)
        return
    os.unlink(tmp)


# ---- reading ---------------------------------------------------------------------------------------


def read_log(path: str) -> dict:
    """A log written by `play --log`, checked field by field (a log may come from anybody)."""
    try:
        # not blocking: a named pipe (or a device) is refused, not waited on for ever
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError) as e:
        raise StateError(f"cannot read the log {path}: {getattr(e, 'strerror', None) or 'not a file name'}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise StateError(f"{path} is not a file: a log is a file written by `fishrules play --log`")
        with os.fdopen(fd, "rb") as f:
            raw = f.read(MAX_STATE_BYTES + 1)
    except OSError as e:
        raise StateError(f"cannot read the log {path}: {e.strerror}") from None
    if len(raw) > MAX_STATE_BYTES:
        raise StateError(f"{path} is larger than {MAX_STATE_BYTES // (1024 * 1024)} MiB: not a fishrules log")
    try:
        data = json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise StateError(f"cannot read the log {path}: it is nested too deeply to be a fishrules log") from None
    except ValueError as e:
        raise StateError(f"cannot read the log {path}: it is not JSON text ({e})") from None
    if not isinstance(data, dict) or data.get("format") not in _FORMATS:
        raise StateError(f"{path} is not a fishrules log (format {FORMAT})")
    # Every count is bounded here, before anything is built from it (a list of seats, a game).
    problems = []
    ruleset = data.get("ruleset")
    if not isinstance(ruleset, str) or not ruleset or len(ruleset) > 4096:
        problems.append("a ruleset (a name or a path)")
    players = data.get("players")
    if type(players) is not int or not 1 <= players <= MAX_PLAYERS:
        problems.append(f"a whole number of players from 1 to {MAX_PLAYERS}")
    variant = data.get("variant")
    if variant is not None and not (isinstance(variant, str) and len(variant) <= MAX_LOG_NAME):
        problems.append("a variant that is a name")
    if not _options_ok(data.get("options") or {}):
        problems.append(f"options as at most {MAX_LOG_OPTIONS} names and values (whole numbers within "
                        f"±{MAX_NUMBER:,}, yes or no, names of at most {MAX_LOG_NAME} characters)")
    history = data.get("history")
    if not isinstance(history, list) or len(history) > MAX_HISTORY:
        problems.append(f"a history (a list of at most {MAX_HISTORY:,} actions)")
    seed = data.get("seed")
    if seed is not None and not (type(seed) is int and -SEED_BOUND < seed < SEED_BOUND):
        problems.append("a seed that is a whole number within ±2**64")
    seats = data.get("seats")
    if seats is not None and not (isinstance(seats, list) and type(players) is int and len(seats) == players
                                  and all(isinstance(s, str) and s in SEAT_KINDS for s in seats)
                                  and "human" in seats):
        problems.append(f"seats: one of {', '.join(SEAT_KINDS)} for each player, one human at least")
    h = data.get("rules_hash")
    if h is not None and not (isinstance(h, str) and _HASH.fullmatch(h)):
        problems.append("a rules hash of 64 hexadecimal digits")
    if data.get("over") is not None and type(data.get("over")) is not bool:
        problems.append("`over` as true or false")
    rules = data.get("rules")
    if rules is not None:
        if not (isinstance(rules, dict) and isinstance(rules.get("text"), str)
                and isinstance(rules.get("name"), str) and _NAME.fullmatch(rules["name"])
                and (rules.get("variant") is None or isinstance(rules.get("variant"), str))):
            problems.append("carried rules as a name, a text and a variant")
        elif len(rules["text"].encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
            problems.append(f"carried rules of at most {MAX_SOURCE_BYTES // 1024} KiB")
    if problems:
        raise StateError(f"{path} is a broken fishrules log: it needs " + ", ".join(problems))
    return data


def _options_ok(options: Any) -> bool:
    """Options as a log may hold them: a few names, each set to a bounded number, yes or no, or a name."""
    if not isinstance(options, dict) or len(options) > MAX_LOG_OPTIONS:
        return False
    for name, value in options.items():
        if not (isinstance(name, str) and len(name) <= MAX_LOG_NAME):
            return False
        if not (type(value) is bool or (type(value) is int and -MAX_NUMBER <= value <= MAX_NUMBER)
                or (isinstance(value, str) and len(value) <= MAX_LOG_NAME)):
            return False
    return True


def _log_rules(ref: str, log: str, expected: Optional[str]) -> str:
    """The rules a log names, under the rule `extends` follows: a bundled ruleset, or a .fish file
    beside the log (or in a folder below it).  A log may come from anybody: it must not make
    fishrules read a file elsewhere on the machine."""
    if ref in bundled_names():
        return ref
    target, refused = find_extended(ref, Path(log).parent)
    if target is None:
        why = f": {refused}" if refused else ""
        h = f" (rules hash {expected[:12]})" if expected else ""
        raise StateError(f"{log} names the rules '{shown(ref, 80)}'{h}, which is neither a bundled ruleset nor a .fish file "
                         f"beside the log{why}")
    return str(target)


def log_game(data: dict, log: str, strict: bool) -> tuple[api.Game, Optional[str]]:
    """The rules a log was played under, and a warning (or None).

    Carried rule text is used when the log has it, else the bundled ruleset or the file beside the
    log.  Its hash must be the one recorded: a file that differs is refused (it is another file);
    a bundled ruleset that changed in this version of fishrules is a warning for `replay`, and
    refused when `strict` (`play --resume` must go on with the very rules the game began with)."""
    expected = data.get("rules_hash")
    carried = data.get("rules")
    ref = data["ruleset"]
    if carried is not None:
        game = api.loads(carried["text"], carried["name"], variant=carried.get("variant"), base_dir=None)
        what = f"the rules carried in {log} ({carried['name']})"
        refuse = strict
    else:
        game = api.load(_log_rules(ref, log, expected), data.get("variant"))
        bundled = ref in bundled_names()
        what = f"the bundled ruleset {ref}" if bundled else f"{shown(ref, 80)} beside {log}"
        refuse = strict or not bundled
    _fits(game, data, log)
    if expected is None:
        return game, None
    found = rules_hash(rules_texts(game))
    if found == expected:
        return game, None
    msg = (f"{log} was played with rules of hash {expected[:12]}, but {what} now hash to {found[:12]}: "
           f"the rules changed since the game was played")
    if refuse:
        raise StateError(msg)
    return game, msg + "; replaying under the rules as they are now"


def _fits(game: api.Game, data: dict, log: str) -> None:
    """The log's players and options are ones its game takes: said before anything is built from them."""
    players = data["players"]
    if not game.min_players <= players <= game.max_players:
        raise StateError(f"{log}: {shown(game.title)} is for {game.min_players} to {game.max_players} players, "
                         f"not {players}")
    try:
        game._options(data.get("options") or {})
    except OptionError as e:
        raise StateError(f"{log}: {e}") from None
