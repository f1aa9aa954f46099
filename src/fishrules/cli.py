"""The `fishrules` command: check, play, simulate, explain, replay.

Only this module prints.  Bad rule files and bad arguments end with a readable message and exit
status 1 or 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from . import api
from .errors import FishrulesError, IllegalAction, OptionError, RuleError, StateError
from .limits import MAX_STATE_BYTES
from .runtime import SIMULTANEOUS, State
from .variants import bundled_names, find_extended

__all__ = ["main"]


def _esc(text: str) -> str:
    """Text from the rules or the player, to print through rich as it is, never read as markup."""
    from rich.markup import escape

    return escape(text)


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


def _load(ref: str, variant: Optional[str]) -> api.Game:
    return api.load(ref, variant=variant)


def _parse_options(game: api.Game, pairs: Sequence[str]) -> dict:
    out = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise OptionError(f"write options as NAME=VALUE, not {pair!r}")
        name, value = pair.split("=", 1)
        name = name.strip()
        info = game.options.get(name)
        if info is None:
            game._options({name: None})  # raises with a "did you mean"
        if info.kind == "number":
            try:
                out[name] = int(value)
            except ValueError:
                raise OptionError(f"option {name!r} takes a whole number, not {value!r}") from None
        elif info.kind == "yes or no":
            low = value.strip().lower()
            if low not in ("yes", "no", "true", "false"):
                raise OptionError(f"option {name!r} takes yes or no, not {value!r}")
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
            print(e.render())
            print()
            bad += 1
            continue
        warnings = list(dict.fromkeys(d for g in games for d in g.warnings))
        for w in warnings:
            print(w.render())
        extra = f", variants: {', '.join(game._resolved.variants)}" if game._resolved.variants else ""
        print(f"{ref}: ok — {game.title}, {game.min_players} to {game.max_players} players{extra}")
    if bad:
        print(f"{bad} of {len(args.files)} file(s) have errors", file=sys.stderr)
    return 1 if bad else 0


# ---- explain --------------------------------------------------------------------------------------


def cmd_explain(args) -> int:
    game = _load(args.game, args.variant)
    if args.python:
        from .compiler import source_of

        sys.stdout.write(source_of(game._model))
        return 0
    sys.stdout.write(game.explain())
    return 0


# ---- simulate -------------------------------------------------------------------------------------


def next_chooser(state: State, prefer_not: Optional[int] = None) -> Optional[int]:
    """Who acts next: the player to act, or at a simultaneous choice one still choosing (another than
    `prefer_not` when there is one); None at chance or at the end."""
    waiting = state.waiting
    if not waiting:
        return None
    others = [p for p in waiting if p != prefer_not]
    return (others or waiting)[0]


def random_step(state: State, rng: random.Random) -> None:
    """One random legal action, whoever is to act (chance and simultaneous choices included)."""
    p = next_chooser(state)
    acts = state.legal_actions(p) if state.current == SIMULTANEOUS else state.legal_actions()
    state.apply(acts[rng.randrange(len(acts))])


def play_random(state: State, rng: random.Random, max_actions: int = 1_000_000) -> State:
    """Play random legal actions until the game ends."""
    n = 0
    while not state.is_over:
        random_step(state, rng)
        n += 1
        if n > max_actions:
            raise RuntimeError(f"the game did not end within {max_actions} actions")
    return state


def simulate(game: api.Game, players: int, games: int, seed: int, options: dict, progress=None) -> dict:
    """Random games on the fast path (`State.playout`), game i seeded as `Game.simulate` seeds it."""
    wins = [0.0] * players
    scores: list[list[int]] = [[] for _ in range(players)]
    lengths: list[int] = []
    decisions: list[int] = []
    started = time.perf_counter()
    for i in range(games):
        game_seed = api.game_seed_of(seed, i)
        state = game.start(players=players, seed=game_seed, options=options)
        dealt = len(state.history)  # chance outcomes before the first decision
        result = state.playout(random.Random(game_seed))
        w = result.winners
        for p in w:
            wins[p] += 1 / len(w)
        for p, sc in enumerate(result.scores):
            scores[p].append(sc)
        lengths.append(dealt + result.decisions + result.chances)  # what the history would hold
        decisions.append(result.decisions)
        if progress is not None:
            progress()
    elapsed = time.perf_counter() - started

    def spread(xs):
        return statistics.pstdev(xs) if len(xs) > 1 else 0.0

    return {
        "game": game.title,
        "players": players,
        "games": games,
        "seed": seed,
        "options": options,
        "seats": [
            {
                "seat": p,
                "win_rate": wins[p] / games if games else 0.0,
                "mean_score": statistics.fmean(scores[p]) if games else 0.0,
                "score_spread": spread(scores[p]),
                "min_score": min(scores[p]) if games else 0,
                "max_score": max(scores[p]) if games else 0,
            }
            for p in range(players)
        ],
        "length": {
            "mean_actions": statistics.fmean(lengths) if games else 0.0,
            "spread_actions": spread(lengths),
            "min_actions": min(lengths) if games else 0,
            "max_actions": max(lengths) if games else 0,
            "mean_decisions": statistics.fmean(decisions) if games else 0.0,
        },
        "seconds": elapsed,
        "games_per_second": games / elapsed if elapsed > 0 else 0.0,
    }


def _players(game: api.Game, given: Optional[int]) -> int:
    """--players, checked against the rules' range (the fewest allowed when not given)."""
    if given is None:
        return game.min_players
    if not (game.min_players <= given <= game.max_players):
        raise OptionError(f"--players {given}: {game.title} is for {game.min_players} to {game.max_players} players")
    return given


def cmd_simulate(args) -> int:
    game = _load(args.game, args.variant)
    players = _players(game, args.players)
    options = _parse_options(game, args.option)
    if args.games < 1:
        raise OptionError(f"--games {args.games}: play at least 1 game")
    if args.json:
        result = simulate(game, players, args.games, args.seed, options)
        print(json.dumps(result, indent=2))
        return 0
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.table import Table

    console = Console(emoji=False)  # positions such as game.fish:100:3 are not emoji codes
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, transient=True,
    ) as bar:
        task = bar.add_task(f"{_esc(game.title)}, {players} players", total=args.games)
        result = simulate(game, players, args.games, args.seed, options, progress=lambda: bar.advance(task))
    t = Table(title=f"{_esc(game.title)} — {args.games} random games, {players} players, seed {args.seed}")
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
        f"{ln['min_actions']} to {ln['max_actions']}), {ln['mean_decisions']:.1f} player decisions; "
        f"{result['games_per_second']:.0f} games/s"
    )
    return 0


# ---- play -----------------------------------------------------------------------------------------


def _show(console, state: State, me: int) -> None:
    from rich.table import Table

    v = state.view(me)
    t = Table(show_header=True, header_style="bold")
    t.add_column("player")
    names = [k for k in v["seats"][0] if k not in ("player",)]
    for k in names:
        t.add_column(k, justify="right")
    for row in v["seats"]:
        label = f"p{row['player']}" + (" (you)" if row["player"] == me else "")
        t.add_row(label, *[_esc(_fmt(row.get(k))) for k in names])
    console.print(t)
    if "dice" in v:
        console.print("dice: " + "  ".join(f"[bold]{i + 1}[/]:{_esc(f or '-')}" for i, f in enumerate(v["dice"])))
    shown = {k: x for k, x in v["values"].items()}
    shown.update({k: x for k, x in v.get("derived", {}).items()})
    if shown:
        console.print(_esc("  ".join(f"{k}: {_fmt(x)}" for k, x in shown.items())), style="dim")


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, list):
        return "[" + ", ".join(_fmt(i) for i in x) + "]" if x else "[]"
    return str(x)


def cmd_play(args) -> int:
    from rich.console import Console

    console = Console(emoji=False)  # positions such as game.fish:100:3 are not emoji codes
    game = _load(args.game, args.variant)
    players = _players(game, args.players)
    options = _parse_options(game, args.option)
    me = args.seat
    if not (0 <= me < players):
        raise OptionError(f"--seat must be from 0 to {players - 1}")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    state = game.start(players=players, seed=seed, options=options)
    rng = random.Random(seed)
    console.print(f"[bold]{_esc(game.title)}[/] — {players} players, you are p{me} (seed {seed}). Type a number, an action, or q to quit.")
    seen = 0
    while not state.is_over:
        new = state.history_for(me)[seen:]
        for h in new:
            console.print(f"  · {_esc(h)}", style="dim")
        seen = len(state.history)
        chooser = next_chooser(state, prefer_not=me)
        together = state.current == SIMULTANEOUS
        if chooser != me:
            acts = state.legal_actions(chooser) if together else state.legal_actions()
            a = acts[rng.randrange(len(acts))]
            who, at = state.current if not together else chooser, len(state.history)
            state.apply(a)
            # announce it as this player may know it: another's secret choice reads `?`
            console.print(f"p{who} chooses [bold]{_esc(state.history_for(me)[at])}[/]")
            seen += 1  # announced; what it caused (dice, draws) follows in the history
            continue
        _show(console, state, me)
        acts = state.legal_actions(me) if together else state.legal_actions()
        if together:
            console.print("[bold]Everybody chooses at once[/]: nobody sees your choice until all have chosen.")
        for i, a in enumerate(acts, 1):
            console.print(f"  [bold]{i:>3}[/]  {_esc(str(a))}")
        try:
            answer = input("your choice> ").strip()
        except EOFError:
            console.print("\nbye")
            return 0
        if answer.lower() in ("q", "quit", "exit"):
            return 0
        try:
            if answer.isascii() and answer.isdigit() and len(answer) <= 6 and 1 <= int(answer) <= len(acts):
                state.apply(acts[int(answer) - 1])
                seen += 1
            else:
                if together and not answer.lower().startswith(f"p{me}:"):
                    answer = f"p{me}: {answer}"
                state.apply(answer)
                seen += 1
        except IllegalAction as e:
            console.print(f"[red]{_esc(str(e))}[/]")
            if answer.isascii() and answer.isdigit():
                console.print(f"[red]choose a number from 1 to {len(acts)}, or write the action[/]")
    for h in state.history_for(me)[seen:]:
        console.print(f"  · {_esc(h)}", style="dim")
    _show(console, state, me)
    w = state.winners()
    console.print(f"[bold]Game over.[/] Winner{'s' if len(w) != 1 else ''}: " + ", ".join(f"p{p}" for p in w))
    if args.log:
        write_log(args.log, game, args.game, state, options, seed)
        console.print(f"log written to {_esc(args.log)}")
    return 0


# ---- replay ---------------------------------------------------------------------------------------


def write_log(path: str, game: api.Game, ref: str, state: State, options: dict, seed: Optional[int]) -> None:
    if ref not in bundled_names():  # a file: named from the log's folder, where `replay` looks for it
        ref = os.path.relpath(os.path.abspath(ref), os.path.dirname(os.path.abspath(path)))
    data = {
        "format": "fishrules-log/1",
        "ruleset": ref,
        "variant": game.variant,
        "players": state.n,
        "options": options,
        "seed": seed,
        "history": list(state.history),
    }
    Path(path).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def read_log(path: str) -> dict:
    """A log written by `play --log`, checked field by field (a log may come from anybody)."""
    try:
        with open(path, "rb") as f:
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
    if not isinstance(data, dict) or data.get("format") != "fishrules-log/1":
        raise StateError(f"{path} is not a fishrules log (format fishrules-log/1)")
    problems = []
    if not isinstance(data.get("ruleset"), str) or not data.get("ruleset"):
        problems.append("a ruleset (a name or a path)")
    if type(data.get("players")) is not int:
        problems.append("a whole number of players")
    if data.get("variant") is not None and not isinstance(data.get("variant"), str):
        problems.append("a variant that is a name")
    if not isinstance(data.get("options") or {}, dict):
        problems.append("options as names and values")
    if not isinstance(data.get("history"), list):
        problems.append("a history (a list of actions)")
    if data.get("seed") is not None and type(data.get("seed")) is not int:
        problems.append("a seed that is a whole number")
    if problems:
        raise StateError(f"{path} is a broken fishrules log: it needs " + ", ".join(problems))
    return data


def _log_rules(ref: str, log: str) -> str:
    """The rules a log names, under the rule `extends` follows: a bundled ruleset, or a .fish file
    beside the log (or in a folder below it).  A log may come from anybody: it must not make
    fishrules read a file elsewhere on the machine."""
    if ref in bundled_names():
        return ref
    target, refused = find_extended(ref, Path(log).parent)
    if target is None:
        why = f": {refused}" if refused else ""
        raise StateError(f"{log} names the rules {ref[:80]!r}, which is neither a bundled ruleset nor a .fish file "
                         f"beside the log{why}")
    return str(target)


def cmd_replay(args) -> int:
    try:
        data = read_log(args.log)
    except StateError as e:  # not a log at all: the wrong file was given
        _err(f"fishrules: {e}")
        return 2
    history = data["history"]
    game = _load(_log_rules(data["ruleset"], args.log), data.get("variant"))
    try:
        state = game.replay(history, players=data["players"], options=data.get("options") or {})
    except StateError as e:
        _err(f"fishrules: {args.log}: {e}")
        return 1
    if args.verbose:
        for i, text in enumerate(history, 1):
            print(f"{i:>5}  {text}")
    print(f"{game.title}: {len(history)} actions replayed; scores {state.scores()}", end="")
    print(f"; winners {['p%d' % p for p in state.winners()]}" if state.is_over else "; not over")
    return 0


# ---- fmt and lsp ----------------------------------------------------------------------------------


def cmd_fmt(args) -> int:
    from .fmt import format_files

    return format_files(args.files, check=args.check)


def cmd_lsp(args) -> int:
    from .lsp import main as lsp_main

    return lsp_main()


# ---- main -----------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fishrules", description="Play, check and simulate games written as .fish rule files.")
    sub = p.add_subparsers(dest="command", required=True)
    names = ", ".join(bundled_names())

    c = sub.add_parser("check", help="check rule files and print every problem")
    c.add_argument("files", nargs="+", help="a .fish file or a bundled ruleset name")
    c.set_defaults(func=cmd_check)

    def game_args(sp):
        sp.add_argument("game", help=f"a .fish file or a bundled ruleset ({names})")
        sp.add_argument("--variant", help="a variant of the ruleset")
        sp.add_argument("--players", type=int, help="how many play (default: the fewest allowed)")
        sp.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="set an option (repeatable)")

    s = sub.add_parser("simulate", help="play many random games and report win rates, scores and lengths")
    game_args(s)
    s.add_argument("--games", type=int, default=1000)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--json", action="store_true", help="print the results as JSON")
    s.set_defaults(func=cmd_simulate)

    pl = sub.add_parser("play", help="play a game in the terminal against random bots")
    game_args(pl)
    pl.add_argument("--seat", type=int, default=0, help="your seat (0 first)")
    pl.add_argument("--seed", type=int)
    pl.add_argument("--log", help="write the game's log to this file, for `fishrules replay`")
    pl.set_defaults(func=cmd_play)

    e = sub.add_parser("explain", help="print the effective rules, after overlays and variants")
    e.add_argument("game")
    e.add_argument("--variant")
    e.add_argument("--python", action="store_true", help="print the Python source the rules compile to instead")
    e.set_defaults(func=cmd_explain)

    r = sub.add_parser("replay", help="replay a game log written by `fishrules play --log`")
    r.add_argument("log")
    r.add_argument("--verbose", "-v", action="store_true", help="print every action")
    r.set_defaults(func=cmd_replay)

    f = sub.add_parser("fmt", help="lay rule files out in the one canonical layout, keeping every comment")
    f.add_argument("files", nargs="+", help="a .fish file (`-`: standard input to standard output)")
    f.add_argument("--check", action="store_true", help="change nothing; fail if a file would be laid out again")
    f.set_defaults(func=cmd_fmt)

    ls = sub.add_parser("lsp", help="run the language server over standard input and output (for editors)")
    ls.set_defaults(func=cmd_lsp)
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except RuleError as e:
        print(e.render(), file=sys.stderr)
        return 1
    except StateError as e:
        _err(f"fishrules: {e}")
        return 1
    except (OptionError, IllegalAction) as e:
        _err(f"fishrules: {e}")
        return 2
    except FishrulesError as e:  # pragma: no cover - every kind is handled above
        _err(f"fishrules: {e}")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # pragma: no cover - a bug in fishrules: said in one line, never a traceback
        _err(f"fishrules: internal error ({type(e).__name__}: {str(e)[:200]}); this is a bug in fishrules, please report it")
        return 70


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
