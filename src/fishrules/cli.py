"""The `fishrules` command: check, play, simulate, explain, replay.

Only this module prints.  Bad rule files and bad arguments end with a readable message and exit
status 1 or 2, never a traceback.  Whatever it prints from data (a rule file, a log, a command
line) goes through `terminal.printable`, so no control character of theirs reaches the terminal,
and names are cut (`terminal.shown`) so that no message floods it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import sys
import time
from typing import Optional, Sequence

from . import api
from .bots import PLAY_ITERATIONS, bot_choice, bot_rng
from .errors import FishrulesError, IllegalAction, OptionError, RuleError, StateError
from .logs import FORMAT, SEED_BOUND, LogWriter, log_game, new_log, read_log
from .runtime import SIMULTANEOUS, State
from .terminal import printable, shown
from .variants import bundled_names

__all__ = ["main"]


def _esc(text: str) -> str:
    """Text from the rules or the player, to print through rich as it is (`printable`), never
    read as markup."""
    from rich.markup import escape

    return escape(printable(text))


def _err(msg: str) -> None:
    """A message on standard error: several lines only where it is written so (a rule error and its
    source line); a control character from data in it is shown escaped."""
    print(printable(msg, lines=True), file=sys.stderr)


def _out(text: str) -> None:
    """A line of results on standard output, from data: shown escaped where it would not be text."""
    print(printable(text))


#: The most characters of a game's title a line shows.
SHOWN_TITLE = 80


def _title(game: api.Game) -> str:
    return shown(game.title, SHOWN_TITLE)


def _no_color(args) -> bool:
    """--no-color, or the NO_COLOR convention (https://no-color.org): any value but empty."""
    return bool(getattr(args, "no_color", False)) or os.environ.get("NO_COLOR", "") != ""


def _console(args, stderr: bool = False):
    """A rich console for people: no colour nor style at all with --no-color or NO_COLOR."""
    from rich.console import Console

    # emoji=False: positions such as game.fish:100:3 are not emoji codes
    if _no_color(args):
        return Console(emoji=False, color_system=None, highlight=False, stderr=stderr)
    return Console(emoji=False, stderr=stderr)


def _load(ref: str, variant: Optional[str], backend: str = "auto") -> api.Game:
    return api.load(ref, variant=variant, backend=backend)


def _parse_options(game: api.Game, pairs: Sequence[str]) -> dict:
    out = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise OptionError(f"write options as NAME=VALUE, not '{shown(pair)}'")
        name, value = pair.split("=", 1)
        name = name.strip()
        info = game.options.get(name)
        if info is None:
            game._options({name: None})  # raises with a "did you mean"
        if info.kind == "number":
            try:
                out[name] = int(value)
            except ValueError:
                raise OptionError(f"option '{shown(name)}' takes a whole number, not '{shown(value)}'") from None
        elif info.kind == "yes or no":
            low = value.strip().lower()
            if low not in ("yes", "no", "true", "false"):
                raise OptionError(f"option '{shown(name)}' takes yes or no, not '{shown(value)}'")
            out[name] = low in ("yes", "true")
        else:
            out[name] = value.strip()
    return out


# ---- check ----------------------------------------------------------------------------------------


def cmd_check(args) -> int:
    bad = 0
    for ref in args.files:
        try:
            game = _load(ref, None)
            games = [game] + [_load(ref, v) for v in game._resolved.variants]
        except RuleError as e:
            _err(e.render())
            _err("")
            bad += 1
            continue
        warnings = list(dict.fromkeys(d for g in games for d in g.warnings))
        for w in warnings:
            _err(w.render())
        extra = f", variants: {', '.join(map(shown, game._resolved.variants))}" if game._resolved.variants else ""
        if not args.quiet:
            _out(f"{ref}: ok — {_title(game)}, {game.min_players} to {game.max_players} players{extra}")
    if bad:
        print(f"{bad} of {len(args.files)} file(s) have errors", file=sys.stderr)
    return 1 if bad else 0


# ---- explain --------------------------------------------------------------------------------------


def cmd_explain(args) -> int:
    game = _load(args.game, args.variant)
    if args.python:
        from .compiler import source_of

        sys.stdout.write(printable(source_of(game.model), lines=True))
        return 0
    if args.c or args.kernel_python:
        from .kernel.emit_c import emit_c
        from .kernel.emit_python import emit_python
        from .kernel.layout import TooLarge
        from .kernel.lower import lower

        try:
            kp = lower(game.model)
        except TooLarge as exc:
            raise OptionError(f"these rules are too large for the game kernel ({exc}): the engine plays them") from None
        sys.stdout.write(printable(emit_c(kp) if args.c else emit_python(kp), lines=True))
        return 0
    sys.stdout.write(printable(game.explain(), lines=True))
    return 0


# ---- simulate -------------------------------------------------------------------------------------


def simulate(game: api.Game, players: int, games: int, seed: int, options: dict, progress=None, workers: int = 1,
             dask: Optional[str] = None) -> dict:
    """Random games on the fast path (`fishrules.simulation.simulate`), with the time they took."""
    from .simulation import simulate as run

    started = time.perf_counter()
    result = run(game, games, players, seed, options, workers=workers, dask=dask,
                 progress=(lambda k: [progress() for _ in range(k)]) if progress is not None else None)
    elapsed = time.perf_counter() - started
    # measurements, not results: they differ from run to run and machine to machine
    result["timing"] = {"seconds": elapsed, "games_per_second": games / elapsed if elapsed > 0 else 0.0}
    return result


def _players(game: api.Game, given: Optional[int]) -> int:
    """--players, checked against the rules' range (the fewest allowed when not given)."""
    if given is None:
        return game.min_players
    if not (game.min_players <= given <= game.max_players):
        raise OptionError(f"--players {given}: {_title(game)} is for {game.min_players} to {game.max_players} players")
    return given


def cmd_simulate(args) -> int:
    game = _load(args.game, args.variant, args.backend)
    players = _players(game, args.players)
    options = _parse_options(game, args.option)
    if args.games < 1:
        raise OptionError(f"--games {args.games}: play at least 1 game")
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.table import Table

    console, err = _console(args), _console(args, stderr=True)
    # the progress bar goes to standard error, and only to a terminal: standard output is the results
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=err, transient=True, disable=args.quiet or not err.is_terminal,
    ) as bar:
        task = bar.add_task(f"{_esc(_title(game))}, {players} players", total=args.games)
        result = simulate(game, players, args.games, args.seed, options, progress=lambda: bar.advance(task),
                          workers=args.workers, dask=args.dask)
    timing = result.pop("timing")
    timing["backends"] = result.pop("backends")
    if args.json:
        if args.timing:
            result["timing"] = timing
        print(json.dumps(result, indent=2))
        return 0
    t = Table(title=f"{_esc(_title(game))} — {args.games} random games, {players} players, seed {args.seed}")
    for col in ("seat", "win rate", "mean score", "spread", "min", "max"):
        t.add_column(col, justify="right")
    for s in result["seats"]:
        t.add_row(
            f"p{s['seat']}", f"{s['win_rate']:.1%}", f"{s['mean_score']:.1f}", f"{s['score_spread']:.1f}",
            str(s["min_score"]), str(s["max_score"]),
        )
    console.print(t)
    ln = result["length"]
    console.print(
        f"game length: {ln['mean_actions']:.1f} actions on average (spread {ln['spread_actions']:.1f}, "
        f"{ln['min_actions']} to {ln['max_actions']}), {ln['mean_decisions']:.1f} player decisions"
        + (f"; {timing['seconds']:.2f} s, {timing['games_per_second']:.0f} games/s" if args.timing else "")
    )
    ties = result["ties"]
    console.print(f"ties: {ties['rate']:.1%} of the games ({ties['games']} of {args.games}) ended with a shared win")
    _print_empty_draws(console, result["empty_draws"], args.games)
    console.print(_esc(_played_by(timing["backends"], game)))
    return 0


def _played_by(backends: list, game: api.Game) -> str:
    """What played the games: the native kernel, or the Python one (and why, if it had to be)."""
    words = {"native": "the native kernel (compiled C)", "python": "the Python kernel", "engine": "the engine"}
    said = " and ".join(words.get(b, b) for b in backends)
    why = game._kernel.why_not_native if game._kernel is not None else None
    return f"played by {said}" + (f" ({why})" if why and "python" in backends else "")


def _print_empty_draws(console, empty: dict, games: int) -> None:
    """The zones some draw found empty: a deal that ran out during the set-up is said in bold (the
    rules allow more players than the cards serve); later, it is often how the game ends."""
    if not empty:
        return
    console.print("draws from an empty zone (a draw takes what is there, maybe nothing):")
    for name, row in empty.items():
        if row["setup_games"]:
            k = row["setup_games"]
            console.print(f"  [bold]`{_esc(shown(name))}` ran out during the set-up in {k} of {games} games ({k / games:.0%}):"
                          " some players were dealt fewer cards[/]")
        if row["later_games"]:
            k = row["later_games"]
            console.print(f"  `{_esc(shown(name))}` was empty when drawn from later in {k} of {games} games ({k / games:.0%})")


_NAME_VALUE = re.compile(r"[A-Za-z_]\w*=\S*")


def _joined_options(texts: Sequence[str]) -> list[str]:
    """The rulesets of `compare` as written; an option written as a ruleset of its own (a space
    where a comma belongs: `my-game rounds=3`) is refused with the form it takes."""
    from .variants import find_ruleset

    for i, text in enumerate(texts):
        if _NAME_VALUE.fullmatch(text) and find_ruleset(text) is None:
            before = texts[i - 1] if i else "RULESET"
            raise OptionError(f"`{shown(text)}` is an option, not a ruleset: an option goes after its ruleset, joined by a "
                              f"comma with no space, as in `fishrules compare {shown(before)},{shown(text)} …`")
    return list(texts)


def cmd_compare(args) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from . import comparison as cmp

    if args.report is not None:
        from .plots import check_report_path, require_matplotlib

        require_matplotlib()  # before the games are played, not after
        check_report_path(args.report, args.report_format)  # a folder, a missing folder: said now
    contenders = [cmp.parse_contender(text, backend=args.backend) for text in _joined_options(args.rulesets)]
    players = args.players
    if players is None:  # the fewest players every ruleset allows
        players = max(c.game.min_players for c in contenders)
        if any(players > c.game.max_players for c in contenders):
            raise OptionError("these rulesets allow no player count in common: " + "; ".join(
                f"{shown(c.label)} is for {c.game.min_players} to {c.game.max_players}" for c in contenders))
    err = _console(args, stderr=True)
    # the progress bar goes to standard error, and only to a terminal: standard output is the results
    with Progress(TextColumn("[bold]playing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=err,
                  transient=True, disable=args.quiet or not err.is_terminal) as bar:
        task = bar.add_task("playing", total=args.games * len(contenders))
        report = cmp.compare(contenders, players, args.games, args.seed, args.bots, args.iterations,
                             progress=lambda k: bar.advance(task, k), workers=args.workers, dask=args.dask)
    # JSON escapes every character that is not ASCII; the text's cells are shown escaped
    print(json.dumps(report, indent=2) if args.json else printable(cmp.render_text(report), lines=True))
    if args.report is not None:
        from .plots import write_report

        written = write_report(report, args.report, args.report_format)
        if not args.quiet:
            _err(f"fishrules: report written to {written}")
    return 0


# ---- play -----------------------------------------------------------------------------------------


def _show(console, state: State, me: Optional[int]) -> None:
    """The table as `me` may see it (None: as anybody at the table may), in words and rows
    (`fishrules.terminal.tables`)."""
    from .terminal import tables

    players, values, dice = tables(state, me)
    console.print(players)
    if dice:
        console.print(dice)
    if values is not None:
        console.print(values)


# The bots of the command line and of `fishrules serve` (`bot_choice`, `bot_rng`,
# `PLAY_ITERATIONS`) are in fishrules.bots.
BOTS = ("random", "greedy", "mcts", "ismcts")


def _seats_of(args, players: int) -> list[str]:
    """`--seat` (repeatable: every one a person at this keyboard) and `--bot [SEAT=]KIND` -> a kind per seat."""
    humans = args.seat or [0]
    for k in humans:
        if not (0 <= k < players):
            raise OptionError(f"--seat {k}: the seats are 0 to {players - 1}")
    seats = ["human" if p in humans else "random" for p in range(players)]
    default = None
    for spec in args.bot or ():
        seat, kind = spec
        if seat is None:
            default = kind
            continue
        if not (0 <= seat < players):
            raise OptionError(f"--bot {seat}={kind}: the seats are 0 to {players - 1}")
        if seat in humans:
            raise OptionError(f"--bot {seat}={kind}: seat {seat} is played at the keyboard (--seat {seat})")
        seats[seat] = kind
    if default is not None:
        given = {seat for seat, _ in args.bot if seat is not None}
        seats = [default if k != "human" and p not in given else k for p, k in enumerate(seats)]
    return seats


def _bot_spec(text: str):
    """`random`, `greedy`, or `SEAT=KIND` for one seat."""
    seat, _, kind = text.rpartition("=")
    if kind not in BOTS:
        raise argparse.ArgumentTypeError(f"'{shown(text)}': a bot is {' or '.join(BOTS)}, or SEAT=KIND for one seat")
    if not seat:
        return (None, kind)
    if not (seat.isascii() and seat.isdigit() and len(seat) <= 6):
        raise argparse.ArgumentTypeError(f"'{shown(text)}': write SEAT=KIND with a seat number, such as 1=greedy")
    return (int(seat), kind)


class _Quit(Exception):
    """The player typed q, or the input ended."""


class _Table:
    """One game at the terminal: who sits where, what is on the screen, and the log kept after every
    action.  With more than one person at the keyboard (hot seat), the screen is cleared when one's
    turn ends and the next is asked to take the keyboard, so nobody's hidden cards stay in sight."""

    def __init__(self, console, state: State, seats: list[str], seed, log_path, log_data, shown: int = 0,
                 writer: Optional[LogWriter] = None):
        self.console, self.state, self.seats, self.seed = console, state, seats, seed
        self.log_path, self.log_data = log_path, log_data
        self.writer = writer
        self.humans = [p for p, k in enumerate(seats) if k == "human"]
        self.hot = len(self.humans) > 1
        # whose information is on the screen (None: only what anybody may see)
        self.screen: Optional[int] = None if self.hot else self.humans[0]
        self.printed = shown  # history entries already shown (a resumed game does not show its past again)
        self.seen = {p: shown for p in self.humans}  # what each person has seen, when their screen was last cleared
        self.actor: dict[int, int] = {}  # history index -> the player who chose it, this session
        self.typed: set[int] = set()  # history indices the person at the keyboard typed: not said again
        self.broke: dict[int, str] = {}  # history index -> what is said of a rule the choice broke
        self.told_setup: set = set() if shown == 0 else {None, *self.humans}  # whom the set-up was told
        from .terminal import scored_names

        self.scored = scored_names(state.game.model)
        self.score_at: dict[int, list] = {-1: state.scores()}  # decision -> the scores once it was played
        self.kinds = {v.name: v.type.kind for v in (*state.game.model.game_vars, *state.game.model.player_vars)}

    def save(self) -> None:
        if self.log_path:
            self.log_data["history"] = list(self.state.history)
            self.log_data["over"] = self.state.is_over
            assert self.writer is not None
            self.writer.save(self.log_data)

    def tell(self, start: int, viewer: Optional[int]) -> None:
        """Print what happened from history entry `start` on, as `viewer` may know it: cards dealt
        in secret summed up, dice rolled together on one line, what each choice did."""
        from .terminal import narrate

        for line in narrate(self.state, viewer, start, frozenset(self.typed), self.actor, self.kinds, self.score_at,
                            self.broke, setup=viewer not in self.told_setup, scored=self.scored):
            self.console.print(line)
        self.told_setup.add(viewer)

    def show_new(self) -> None:
        """Print what happened since the last line, as the person on screen may know it, with the
        scores where they changed (who got what)."""
        hist_len = len(self.state.history)
        if self.printed < hist_len or self.screen not in self.told_setup:
            self.tell(self.printed, self.screen)
        self.printed = hist_len

    def next_chooser(self) -> Optional[int]:
        waiting = self.state.waiting
        if not waiting:
            return None
        bots = [p for p in waiting if self.seats[p] != "human"]  # bots first: nobody sees their secret
        if bots:
            return bots[0]
        return self.screen if self.screen in waiting else waiting[0]

    def clear(self) -> None:
        """The end of a person's turn at a shared keyboard: nothing of theirs stays on the screen."""
        p = self.screen
        self.seen[p] = self.printed  # what they have seen; the rest waits for their next turn
        self._wipe()
        self.console.print(f"[bold]p{p}'s turn is over.[/]")
        self.screen = None

    def _wipe(self) -> None:
        """Clear the screen: a terminal's own clear, or a dumb terminal's screenful of blank lines.
        Output that is not a terminal (a file, a pipe) is nobody's screen, and keeps everything."""
        console = self.console
        if console.is_dumb_terminal:
            console.print("\n" * console.height, end="")
        elif console.is_terminal:
            console.clear()

    def pass_to(self, p: int) -> None:
        self.console.print(f"[bold]Pass the keyboard to p{p}.[/] p{p}, press Enter when nobody else can see the screen.")
        answer = _ask(f"p{p} ready> ")
        if answer.lower() in ("q", "quit", "exit"):
            raise _Quit
        self._wipe()
        self.screen = p
        hist = self.state.history_for(p)
        if self.seen[p] < len(hist):
            self.console.print(f"[bold]p{p}[/], since your last turn:")
            self.tell(self.seen[p], p)
        self.printed = len(hist)

    def bot_turn(self, p: int) -> None:
        state = self.state
        at = len(state.history)
        a = bot_choice(self.seats[p], state, p, bot_rng(self.seed, at))
        self.show_new()
        state.apply(a)
        self.actor[at] = p
        self.score_at[at] = state.scores()
        self.announce(a, p, at)
        self.save()

    def announce(self, action, p: int, at: int) -> None:
        """A choice the rules accepted though it breaks a rule is said with it, as it happens."""
        from .terminal import breaking_note

        if getattr(action, "breaks", None) is None:
            return
        instead = breaking_note(self.state, action)
        who = "you" if p == self.screen else f"p{p}"
        self.broke[at] = (f'[bold yellow]  ✗ {who} broke the rule "{_esc(action.breaks)}" with {_esc(str(action))}[/]'
                          + (f": {_esc(instead)}" if instead else ""))

    def human_turn(self, me: int) -> None:
        state, console = self.state, self.console
        if self.screen != me:
            self.pass_to(me)
        self.show_new()
        if self.hot:
            console.print(f"[bold]p{me}, your turn.[/]")
        together = state.current == SIMULTANEOUS
        acts = state.legal_actions(me) if together else state.legal_actions()
        self.show_table(me, acts, together)
        while True:
            answer = _ask("your choice> ")
            low = answer.lower()
            if low in ("q", "quit", "exit"):
                raise _Quit
            if low in ("?", "help", "h"):
                from .terminal import HELP

                console.print(HELP, markup=False)  # fishrules' own text, several lines
                continue
            if low in ("t", "table"):
                self.show_table(me, acts, together)
                continue
            at = len(state.history)
            try:
                if answer.isascii() and answer.isdigit() and len(answer) <= 6 and 1 <= int(answer) <= len(acts):
                    chosen = acts[int(answer) - 1]
                    state.apply(chosen)
                else:
                    if together and not low.startswith(f"p{me}:"):
                        answer = f"p{me}: {answer}"
                    chosen = next((a for a in acts if str(a) == answer), None)
                    state.apply(answer)
            except IllegalAction as e:
                console.print(f"[red]{_esc(str(e))}[/]")
                if answer.isascii() and answer.isdigit():
                    console.print(f"[red]choose a number from 1 to {len(acts)}, or write the action; ? lists what you can type[/]")
                else:
                    console.print("[red]? lists what you can type[/]")
                continue
            self.actor[at] = me
            self.score_at[at] = state.scores()
            self.typed.add(at)  # the player typed it: not said again, but what it did is
            if chosen is not None:
                self.announce(chosen, me, at)
            self.save()
            return

    def show_table(self, me: int, acts: list, together: bool) -> None:
        """The table, then the numbered choices; a choice that breaks a rule is marked with what
        happens instead and what it costs."""
        from .terminal import choice_notes

        console, state = self.console, self.state
        _show(console, state, me)
        if together:
            console.print("[bold]Everybody chooses at once[/]: nobody sees your choice until all have chosen.")
        notes = choice_notes(state, acts, me, lambda: bot_rng(self.seed, -len(state.history) - 1))
        if notes:
            console.print("Your choices (✗: the rules accept it, but it breaks a rule):")
        for i, a in enumerate(acts, 1):
            note = f"  [yellow]{_esc(notes[i - 1])}[/]" if i - 1 in notes else ""
            console.print(f"  [bold]{i:>3}[/]  {_esc(str(a))}{note}")

    def play(self) -> None:
        while not self.state.is_over:
            p = self.next_chooser()
            if p is None:  # pragma: no cover - seeded chance never waits
                raise StateError("the game waits for chance, which the command line resolves itself")
            if self.hot and self.screen is not None and p != self.screen:
                self.clear()
            if self.seats[p] == "human":
                self.human_turn(p)
            else:
                self.bot_turn(p)

    def finish(self) -> None:
        state, console = self.state, self.console
        if self.hot and self.screen is not None:
            self.clear()
        self.show_new()
        _show(console, state, self.screen)
        w = state.winners()
        console.print(f"[bold]Game over.[/] Winner{'s' if len(w) != 1 else ''}: " + ", ".join(f"p{p}" for p in w))


def _ask(prompt: str) -> str:
    try:
        return input(prompt).strip()
    except EOFError:
        raise _Quit from None


_RESUME_ALONE = ("game", "variant", "players", "option", "seat", "bot", "seed", "log", "embed_rules")


def cmd_play(args) -> int:
    writers: list[LogWriter] = []
    try:
        return _play(args, writers)
    finally:
        for w in writers:  # the log's lock goes with the game
            w.close()


def _play(args, writers: list) -> int:
    console = _console(args)
    if args.resume:
        given = [name for name in _RESUME_ALONE if getattr(args, name) not in (None, [], False)]
        if given:
            flag = "GAME" if given[0] == "game" else "--" + given[0].replace("_", "-")
            raise OptionError(f"--resume goes on as the log says: give it without {flag}")
        log_path = args.resume
        writer = LogWriter(log_path, resume=True)  # before reading: nobody else plays it from now on
        writers.append(writer)
        data = read_log(log_path)
        game, _ = log_game(data, log_path, strict=True)
        if data.get("over"):
            raise StateError(f"the game in {log_path} is over: `fishrules replay {log_path}` shows it")
        players, options, seed = data["players"], data.get("options") or {}, data.get("seed")
        if seed is None:  # a log without a seed: the dice to come are new ones
            seed = data["seed"] = random.randrange(1 << 30)
        seats = data.get("seats") or ["human"] + ["random"] * (players - 1)
        state = game.replay(data["history"], players=players, options=options, seed=seed)
        if state.is_over:
            raise StateError(f"the game in {log_path} is over: `fishrules replay {log_path}` shows it")
        log_data = data
        log_data["format"] = FORMAT
        log_data["seats"] = seats
        log_data.setdefault("over", False)
    else:
        if args.game is None:
            raise OptionError("play needs a GAME, or --resume LOG to go on with a saved game")
        game = _load(args.game, args.variant)
        players = _players(game, args.players)
        options = _parse_options(game, args.option)
        seats = _seats_of(args, players)
        if args.seed is not None and not -SEED_BOUND < args.seed < SEED_BOUND:  # as a log may hold it
            raise OptionError("--seed: a whole number within ±2**64")
        seed = args.seed if args.seed is not None else random.randrange(1 << 30)
        state = game.start(players=players, seed=seed, options=options)
        log_path, log_data = args.log, None
        writer = LogWriter(log_path, resume=False) if log_path else None
        writers += [writer] if writer is not None else []
        if log_path:
            log_data, note = new_log(game, args.game, args.variant, log_path, players, options, seed, seats,
                                     args.embed_rules)
            if note and not args.quiet:
                _err(f"fishrules: note: {printable(note)}")
    table = _Table(console, state, seats, seed, log_path, log_data, shown=len(state.history) if args.resume else 0,
                   writer=writer)
    table.save()  # at once: a log that cannot be written is said before anything is played
    humans = table.humans
    bots = {p: k for p, k in enumerate(seats) if k != "human"}
    if len(humans) == 1:
        who = f"you are p{humans[0]}"
    else:
        who = "at this keyboard: " + ", ".join(f"p{p}" for p in humans)
    if any(k != "random" for k in bots.values()):
        who += "; bots: " + ", ".join(f"p{p} {k}" for p, k in bots.items())
    resumed = f", resumed after {len(state.history)} actions" if args.resume else ""
    console.print(f"[bold]{_esc(_title(game))}[/] — {players} players, {who} (seed {seed}{resumed}). "
                  "Type a number, an action, ? for help, or q to quit.")
    try:
        table.play()
    except _Quit:
        table.save()
        console.print("\nbye")
        _resume_hint(args, log_path)
        return 0
    except KeyboardInterrupt:  # the log already holds every action completed: an action cut short is not saved
        _resume_hint(args, log_path, interrupted=True)
        return 130
    table.finish()
    table.save()
    if log_path and not args.quiet:
        _err(f"fishrules: log written to {log_path}")
    return 0


def _resume_hint(args, log_path, interrupted: bool = False) -> None:
    head = "fishrules: interrupted; " if interrupted else "fishrules: "
    if log_path:
        _err(f"{head}the game is saved in {log_path}: `fishrules play --resume {log_path}` goes on with it")
    elif not args.quiet or interrupted:
        _err(f"{head}the game was not saved (play with --log FILE to keep it)")


# ---- replay ---------------------------------------------------------------------------------------


def cmd_replay(args) -> int:
    data = read_log(args.log)
    history = data["history"]
    game, warning = log_game(data, args.log, strict=False)
    if warning:
        _err(f"fishrules: warning: {printable(warning)}")
    try:
        state = game.replay(history, players=data["players"], options=data.get("options") or {})
    except StateError as e:
        raise StateError(f"{args.log}: {e}") from None
    if args.verbose:
        for i, text in enumerate(history, 1):
            _out(f"{i:>5}  {text}")  # as the log has it: an entry need not be written as the rules write it
    print(f"{printable(_title(game))}: {len(history)} actions replayed; scores {state.scores()}", end="")
    print(f"; winners {['p%d' % p for p in state.winners()]}" if state.is_over else "; not over")
    return 0


# ---- fmt and lsp ----------------------------------------------------------------------------------


def cmd_fmt(args) -> int:
    from .fmt import format_files

    # (the text laid out, written to standard output for `fmt -`, is the rule file itself: not escaped)
    return format_files(args.files, check=args.check, write=_out, error=_err, quiet=args.quiet)


def cmd_lsp(args) -> int:
    from .lsp import main as lsp_main

    return lsp_main()


# ---- main -----------------------------------------------------------------------------------------


EPILOG = """\
exit status: 0 success; 1 a rule file, a log or a replayed action is wrong (the
problem is printed); 2 a wrong command line (an unknown flag or option, a value
out of range); 70 a bug in fishrules; 130 interrupted (Ctrl-C); 143 simulate or
compare stopped by SIGTERM.
Errors go to standard error, results to standard output."""


def cmd_serve(args) -> int:
    try:
        from .web import serve
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        _err("fishrules: `fishrules serve` needs the web extra: pip install 'fishrules[web]'")
        return 1
    from .web.store import StoreError

    if not (0 <= args.port <= 65535):
        raise OptionError(f"--port {args.port}: a port is 0 to 65535")
    if not (0 <= args.bot_delay <= 60):
        raise OptionError(f"--bot-delay {args.bot_delay}: from 0 to 60 seconds")
    if not (0.1 <= args.header_timeout <= 600):
        raise OptionError(f"--header-timeout {args.header_timeout}: from 0.1 to 600 seconds")
    if not (1 <= args.workers <= 64):
        raise OptionError(f"--workers {args.workers}: from 1 to 64")
    if not (0 <= args.house_nice <= 19):
        raise OptionError(f"--house-nice {args.house_nice}: from 0 (the server's own games' priority) to 19 (the lowest)")
    if args.public_url is not None and not re.fullmatch(r"https?://[^/\s?#]+/?", args.public_url):
        raise OptionError(f"--public-url {args.public_url[:80]!r}: an address like https://games.example.org")
    if not args.quiet:
        where = f"http://{args.host}:{args.port}/" if ":" not in args.host else f"http://[{args.host}]:{args.port}/"
        _console(args, stderr=True).print(f"fishrules serve: the lobby is at {_esc(where)} (tables kept in {_esc(_db_shown(args.db))}); "
                                          "Ctrl-C stops it")
    try:
        serve(args.host, args.port, args.db, bot_delay=args.bot_delay, bot_iterations=args.bot_iterations, seed=args.seed,
              allowed_hosts=tuple(args.allowed_host or ()), public_url=args.public_url, workers=args.workers,
              most_connections=args.most_connections, most_per_address=args.most_per_address,
              header_timeout=args.header_timeout, tables_per_hour=args.tables_per_hour,
              house_nice=args.house_nice)
    except StoreError as e:
        _err(f"fishrules: {e}")
        return 1
    return 0


def _db_shown(db: str) -> str:
    """A database URL without its password."""
    import re as _re

    return _re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", db)


def _positive(text: str) -> int:
    said = shown(text, 40)
    try:
        n = int(text)
    except ValueError:  # also a number of more than 4,300 digits
        raise argparse.ArgumentTypeError(f"'{said}' is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{said}: at least 1")
    return n


#: The longest line of argparse's own messages shown whole (they quote the arguments given).
_ARGPARSE_LINE = 300


class _Parser(argparse.ArgumentParser):
    """argparse, its messages (which quote the arguments given, `--seed 999…` of 5,000 digits
    included) shown `printable`, each line cut to `_ARGPARSE_LINE` characters."""

    def _print_message(self, message, file=None):
        if message:
            message = "\n".join(line if len(line) <= _ARGPARSE_LINE else line[:_ARGPARSE_LINE - 1] + "…"
                                 for line in printable(message, lines=True).split("\n"))
        super()._print_message(message, file)


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser.  (Long, and kept whole: it is a flat list of declarations, each
    command's flags beside its name, in the order `fishrules --help` shows them.)"""
    # the flags every command takes, before or after its name (`fishrules -q check …`, `fishrules check -q …`)
    common = _Parser(add_help=False)
    common.add_argument("--quiet", "-q", action="store_true", default=argparse.SUPPRESS,
                        help="print only results, warnings and errors: no progress, no notes")
    common.add_argument("--no-color", action="store_true", default=argparse.SUPPRESS,
                        help="no colour or styles (also when NO_COLOR is set)")
    p = _Parser(prog="fishrules", description="Play, check and simulate games written as .fish rule files.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter, parents=[common])
    sub = p.add_subparsers(dest="command", required=True)
    names = ", ".join(bundled_names())

    c = sub.add_parser("check", help="check rule files and print every problem", parents=[common])
    c.add_argument("files", nargs="+", help="a .fish file or a bundled ruleset name")
    c.set_defaults(func=cmd_check)

    def game_args(sp, required: bool = True):
        sp.add_argument("game", nargs=None if required else "?", help=f"a .fish file or a bundled ruleset ({names})")
        sp.add_argument("--variant", help="a variant of the ruleset")
        sp.add_argument("--players", type=int, help="how many play (default: the fewest allowed)")
        sp.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="set an option (repeatable)")

    def run_args(sp, report: bool = False):
        sp.add_argument("--workers", type=_positive, default=1, metavar="N",
                        help="play on N local processes (or, with --dask local, N Dask workers); the same results "
                             "(default 1: this process)")
        sp.add_argument("--dask", metavar="ADDRESS", help="play on the Dask cluster at ADDRESS (tcp://host:8786), "
                        "or `local` for a LocalCluster; needs fishrules[dask]")
        sp.add_argument("--backend", choices=("auto", "native", "python"), default="auto",
                        help="what plays the games: the game kernel as native code (compiled on first use) or as "
                             "Python; the same games either way (default auto: native where a C compiler is found)")
        if report:
            sp.add_argument("--report", metavar="OUT", help="also draw plots: OUT.html (one page), or the folder OUT of .png "
                            "or .svg (--report-format); needs fishrules[report]")
            sp.add_argument("--report-format", choices=("png", "svg"), default="png",
                            help="the pictures of a --report folder (default png)")

    s = sub.add_parser("simulate", help="play many random games and report win rates, scores and lengths", parents=[common])
    game_args(s)
    s.add_argument("--games", type=int, default=1000, help="how many games (default 1000)")
    s.add_argument("--seed", type=int, default=0, help="the same seed plays the same games (default 0)")
    s.add_argument("--json", action="store_true", help="print the results as JSON")
    s.add_argument("--timing", action="store_true", help="also give the time taken and games per second")
    run_args(s)
    s.set_defaults(func=cmd_simulate)

    cm = sub.add_parser("compare", help="play the same seeds under several rulesets and compare them", parents=[common])
    cm.add_argument("rulesets", nargs="+", metavar="RULESET[:VARIANT][,NAME=VALUE...]",
                    help="a .fish file or a bundled ruleset, its options joined by commas with no space "
                         "(my-game,rounds=3); the first is the one the others are compared with")
    cm.add_argument("--players", type=int, help="how many play (default: the fewest every ruleset allows)")
    cm.add_argument("--games", type=int, default=1000, help="how many games of each (default 1000)")
    cm.add_argument("--seed", type=int, default=0,
                    help="the same seed plays the same games, as `simulate` does with it (default 0)")
    cm.add_argument("--bots", default="random", help="random, greedy, mcts, ismcts or mixed (default random)")
    cm.add_argument("--iterations", type=int, default=50, help="the search bots' budget per decision (default 50)")
    cm.add_argument("--json", action="store_true", help="print the report as JSON")
    run_args(cm, report=True)
    cm.set_defaults(func=cmd_compare)

    pl = sub.add_parser("play", help="play a game in the terminal, against bots or at one keyboard", parents=[common])
    game_args(pl, required=False)
    pl.add_argument("--seat", type=int, action="append", metavar="SEAT",
                    help="a seat played at this keyboard (0 first; repeat it for several people: hot seat)")
    pl.add_argument("--bot", type=_bot_spec, action="append", metavar="[SEAT=]KIND",
                    help=f"the bot of the other seats, or of one seat: {', '.join(BOTS)} (default random)")
    pl.add_argument("--seed", type=int, help="the same seed deals the same dice and cards, and the bots choose alike "
                    "(default: a random seed, printed on the first line)")
    pl.add_argument("--log", help="keep the game's log in this file, saved after every action")
    pl.add_argument("--embed-rules", action=argparse.BooleanOptionalAction, default=None,
                    help="carry the rule text in the log (the default for a file that is not bundled)")
    pl.add_argument("--resume", metavar="LOG", help="go on with the unfinished game saved in LOG")
    pl.set_defaults(func=cmd_play)

    e = sub.add_parser("explain", help="print the effective rules, after overlays and variants", parents=[common])
    e.add_argument("game", help=f"a .fish file or a bundled ruleset ({names})")
    e.add_argument("--variant", help="a variant of the ruleset")
    shown = e.add_mutually_exclusive_group()
    shown.add_argument("--python", action="store_true", help="print the Python source the rules compile to instead")
    shown.add_argument("--c", action="store_true", help="print the C of the game kernel (what plays many games) instead")
    shown.add_argument("--kernel-python", action="store_true",
                       help="print the game kernel as Python (what plays many games with no C compiler) instead")
    e.set_defaults(func=cmd_explain)

    r = sub.add_parser("replay", help="replay a game log written by `fishrules play --log`", parents=[common])
    r.add_argument("log", help="a log written by `fishrules play --log LOG`")
    r.add_argument("--verbose", "-v", action="store_true", help="print every action")
    r.set_defaults(func=cmd_replay)

    f = sub.add_parser("fmt", help="lay rule files out in the one canonical layout, keeping every comment")
    f.add_argument("files", nargs="+", help="a .fish file (`-`: standard input to standard output)")
    f.add_argument("--check", action="store_true", help="change nothing; fail if a file would be laid out again")
    f.set_defaults(func=cmd_fmt)

    ls = sub.add_parser("lsp", help="run the language server over standard input and output (for editors)")
    ls.set_defaults(func=cmd_lsp)

    sv = sub.add_parser("serve", help="serve tables in the browser: a lobby, a secret link per seat, live updates",
                        parents=[common])
    sv.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this machine only)")
    sv.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    sv.add_argument("--db", default="fishrules.sqlite",
                    help="where tables are kept: a SQLite file (default fishrules.sqlite) or a postgresql:// URL")
    sv.add_argument("--bot-delay", type=float, default=1.5, metavar="SECONDS",
                    help="how long the table shows a change before a bot plays, so people can follow it (default 1.5; 0: at once)")
    sv.add_argument("--bot-iterations", type=_positive, default=PLAY_ITERATIONS, metavar="N",
                    help=f"the search bots' budget per decision (default {PLAY_ITERATIONS})")
    sv.add_argument("--seed", type=int, help="seed new tables SEED, SEED+1, … (the same games again: for tests and "
                    "demonstrations; by default every table gets a random seed)")
    sv.add_argument("--allowed-host", action="append", metavar="NAME",
                    help="a name this server is reached by, besides its addresses and localhost (repeat for more); "
                    "requests naming any other host are refused")
    sv.add_argument("--public-url", metavar="URL",
                    help="the address people reach this server at (https://games.example.org): its links are built on it")
    sv.add_argument("--workers", type=int, default=2, metavar="N",
                    help="worker processes for the rules' work, for each of the server's own games and house rules "
                    "(default 2)")
    sv.add_argument("--house-nice", type=int, default=19, metavar="N",
                    help="CPU priority of house rules' work, 0 to 19 (default 19, the lowest: it runs only on a core "
                    "nobody else wants; on a machine busy with other programs, lower it or house tables wait for them)")
    sv.add_argument("--most-connections", type=_positive, metavar="N", help="connections at once, in all (default 1000)")
    sv.add_argument("--most-per-address", type=_positive, metavar="N",
                    help="connections at once from one address (default 256)")
    sv.add_argument("--tables-per-hour", type=_positive, metavar="N",
                    help="new tables one address may set up in an hour (default 60)")
    sv.add_argument("--header-timeout", type=float, default=10.0, metavar="SECONDS",
                    help="a connection that has not sent a whole request's headers this long after it opened is "
                    "closed (default 10)")
    sv.set_defaults(func=cmd_serve)
    return p


class Terminated(KeyboardInterrupt):
    """SIGTERM, while `simulate` or `compare` runs: stopped as Ctrl-C stops it (its worker
    processes with it), then status 143."""


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM (`kill`, a job scheduler) ends a run of many games as Ctrl-C does, instead of killing
    this process alone and leaving its worker processes to finish the chunks nobody will read."""
    import signal
    import threading

    def stop(signum, frame):
        raise Terminated()

    if threading.current_thread() is not threading.main_thread():  # pragma: no cover - only main() sets it
        yield
        return
    old = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:
        _err("fishrules: interrupted")
        return 130
    args.quiet = getattr(args, "quiet", False)
    args.no_color = getattr(args, "no_color", False)
    try:
        if args.func in (cmd_simulate, cmd_compare):
            with _terminate_as_interrupt():
                return args.func(args)
        return args.func(args)
    except RuleError as e:
        _err(e.render())
        return 1
    except StateError as e:  # these are one line: a new line from data in one is shown escaped
        _err(f"fishrules: {printable(e)}")
        return 1
    except (OptionError, IllegalAction) as e:
        _err(f"fishrules: {printable(e)}")
        return 2
    except FishrulesError as e:  # pragma: no cover - every kind is handled above
        _err(f"fishrules: {printable(e)}")
        return 1
    except Terminated:
        _err("fishrules: terminated")
        return 143
    except KeyboardInterrupt:
        _err("fishrules: interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # pragma: no cover - a bug in fishrules: said in one line, never a traceback
        from .kernel import NativeError

        if isinstance(e, NativeError):  # --backend native, and no native code can be built here
            _err(f"fishrules: --backend native: {printable(e)}")
            return 2
        _err(f"fishrules: internal error ({type(e).__name__}: {printable(str(e)[:200])}); this is a bug in fishrules, please report it")
        return 70


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
