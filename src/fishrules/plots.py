"""`fishrules compare --report`: the report's plots, drawn with matplotlib (the `report` extra).

Four figures, each drawn from the report's data alone (what `--json` prints), so a saved report can
be drawn again:

- `lengths`: how many decisions a game takes, a histogram per ruleset;
- `seats`: the win rate of each seat with its 95% interval, and the line of equal seats;
- `scores`: the distribution of final scores (every seat's), a histogram per ruleset;
- `rules`: how often each named rule fires per game, with its 95% interval;
- `ties`: the share of games that end with a shared win, with its 95% interval.

Each ruleset is named in words in the legends (`My game: the long version, 3 rounds`, see
`comparison.legends`), and each figure has a caption (`CAPTIONS`) saying what it shows and how to
read it.  `write_report(report, "out.html")` writes one page: headings, the table, and each figure
as inline SVG with its caption under it; any other path is a folder that gets `lengths.png` … (or
`.svg`).  Figures are made with
`matplotlib.figure.Figure` (no pyplot, no global state, no display) and written without dates, so
the same report gives the same files.
"""

from __future__ import annotations

import contextlib
import html
import io
import os
from pathlib import Path

from .errors import OptionError, StateError

__all__ = ["write_report", "check_report_path", "figures", "require_matplotlib", "FORMATS", "CAPTIONS"]

FORMATS = ("png", "svg")


def require_matplotlib() -> None:
    """Raise a clear `OptionError` when the `report` extra is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise OptionError("--report draws its plots with matplotlib, which is not installed: "
                          "pip install 'fishrules[report]'") from None


def _figure(width: float = 7.0, height: float = 3.6):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


def _centres(hist: dict) -> list[float]:
    return [hist["start"] + (k + 0.5) * hist["width"] - 0.5 for k in range(len(hist["counts"]))]


def _names(report: dict) -> list[str]:
    from .comparison import legends

    return legends(report)


def _histograms(report: dict, key: str, xlabel: str, title: str):
    fig, ax = _figure()
    for c, name in zip(report["contenders"], _names(report)):
        h = c[key]
        edges = [h["start"] - 0.5 + k * h["width"] for k in range(len(h["counts"]) + 1)]
        total = sum(h["counts"]) or 1
        ax.stairs([x / total for x in h["counts"]], edges, label=name, linewidth=1.6)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of games" if key == "histogram" else "share of final scores")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig


def _seats(report: dict):
    fig, ax = _figure()
    cs, n = report["contenders"], report["players"]
    width = 0.8 / len(cs)
    for j, (c, name) in enumerate(zip(cs, _names(report))):
        xs = [p + (j - (len(cs) - 1) / 2) * width for p in range(n)]
        rates = [s["win_rate"] for s in c["seats"]]
        err = [[s["win_rate"] - s["low"] for s in c["seats"]], [s["high"] - s["win_rate"] for s in c["seats"]]]
        ax.bar(xs, rates, width * 0.9, yerr=err, capsize=3, label=name)
    ax.axhline(1 / n, color="grey", linestyle="--", linewidth=1, label=f"every seat alike (1 in {n})")
    ax.set_ylim(0, max(s["high"] for c in cs for s in c["seats"]) * 1.3)
    ax.set_xticks(range(n), [f"p{p}" for p in range(n)])
    ax.set_xlabel("seat (p0 plays first)")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title("Win rate by seat")
    ax.legend(fontsize="small", loc="upper center", ncols=min(3, len(cs) + 1))
    return fig


def _rules(report: dict):
    cs = report["contenders"]
    names = list(dict.fromkeys(name for c in cs for name in c["rules"]))
    fig, ax = _figure(7.0, max(2.0, 0.5 + 0.45 * len(names) * max(1, len(cs)) ** 0.5))
    if not names:
        ax.text(0.5, 0.5, "no named rules", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    height = 0.8 / len(cs)
    for j, (c, label) in enumerate(zip(cs, _names(report))):
        ys, xs, lo, hi = [], [], [], []
        for i, name in enumerate(names):
            r = c["rules"].get(name)
            if r is None:
                continue
            ys.append(i + (j - (len(cs) - 1) / 2) * height)
            xs.append(r["per_game"]["mean"])
            lo.append(max(0.0, r["per_game"]["mean"] - r["per_game"]["low"]))
            hi.append(max(0.0, r["per_game"]["high"] - r["per_game"]["mean"]))
        ax.barh(ys, xs, height * 0.9, xerr=[lo, hi], capsize=3, label=label)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("fires per game (95% interval)")
    ax.set_title("How often each named rule fires")
    ax.legend(fontsize="small")
    return fig


def _ties(report: dict):
    cs = report["contenders"]
    names = _names(report)
    fig, ax = _figure(7.0, max(1.6, 0.6 + 0.5 * len(cs)))
    rates = [c["ties"]["rate"] for c in cs]
    err = [[c["ties"]["rate"] - c["ties"]["low"] for c in cs], [c["ties"]["high"] - c["ties"]["rate"] for c in cs]]
    colours = [f"C{j}" for j in range(len(cs))]
    ax.barh(range(len(cs)), rates, 0.6, xerr=err, capsize=3, color=colours)
    ax.set_yticks(range(len(cs)), names)
    ax.invert_yaxis()
    ax.set_xlim(0, max(0.05, max(c["ties"]["high"] for c in cs) * 1.2))
    ax.xaxis.set_major_formatter(_percent())
    ax.set_xlabel("share of games ending in a shared win (95% interval)")
    ax.set_title("Ties")
    return fig


def _percent():
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=0)


#: What each figure shows and how to read it, under it on the report's page.
CAPTIONS = {
    "lengths": ("Game length: how many decisions the players made in a game, as the share of games of each "
                "length, one line per ruleset. A line further right means longer games; a wider one, lengths "
                "that vary more from game to game."),
    "seats": ("Win rate by seat: the share of games each seat won (a shared win counts as a part), with its "
              "95% interval as a black bar. The dashed line is what every seat would win if no seat had an "
              "advantage; a seat whose bar stays clear of it has one."),
    "scores": ("Score distribution: every player's final score, as the share of scores of each size, one line "
               "per ruleset. A line further left means lower scores; a tall peak at one score, many players "
               "ending on it."),
    "rules": ("How often each named rule fires in a game, on average, with its 95% interval. A rule that is "
              "one `if` fires when its condition holds; any other, each time the game reaches it. A rule a "
              "ruleset does not have has no bar."),
    "ties": ("Ties: the share of games that ended with two or more players sharing the win, with its 95% "
             "interval. Intervals that do not overlap mean a real difference; the table's `vs first` row "
             "gives the test."),
}


def figures(report: dict) -> dict:
    """The report's figures by name (matplotlib `Figure`s)."""
    require_matplotlib()
    return {
        "lengths": _histograms(report, "histogram", "decisions per game", "Game length"),
        "seats": _seats(report),
        "scores": _histograms(report, "score_histogram", "final score", "Score distribution (every seat)"),
        "rules": _rules(report),
        "ties": _ties(report),
    }


def _save(fig, target, fmt: str) -> None:
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "fishrules", "svg.fonttype": "path"}):
        fig.savefig(target, format=fmt, metadata={"Date": None} if fmt == "svg" else {"Software": None}, dpi=100)


#: The headings of the report's page, in its order: (heading, the figures under it).
SECTIONS = (
    ("Who wins", ("seats", "ties")),
    ("Scores", ("scores",)),
    ("How long a game lasts", ("lengths",)),
    ("Which rules are used", ("rules",)),
)


def _page(report: dict, figs: dict) -> str:
    from .comparison import legends, render_text

    e = html.escape
    names = legends(report)
    title = "Does the rule change the game? " + " against ".join(names)
    bots = report["bots"] + (f", {report['iterations']} iterations" if "iterations" in report else "")
    intro = (f"{report['games']} games of each ruleset, {report['players']} players, seed {report['seed']}, "
             f"bots: {bots}. Game <i>i</i> of every ruleset is played from the same seed, so the differences "
             "come from the rules, not from luck.")
    rulesets = "".join(f"<li><b>{e(name)}</b> — <code>{e(c['label'])}</code>{' (the first: the others are compared with it)' if j == 0 else ''}</li>"
                       for j, (name, c) in enumerate(zip(names, report["contenders"])))
    body = [f"<h1>{e(title)}</h1>", f"<p>{intro}</p>", f"<h2>The rulesets</h2><ul>{rulesets}</ul>",
            "<h2>Every figure</h2>",
            "<p>Each figure with its 95% interval in brackets; under each row of a later ruleset, <code>vs first</code> "
            "gives the difference from the first ruleset, its interval, the p-value of the test, and a * when the "
            "difference is significant at 5%.</p>",
            f"<pre>{e(render_text(report))}</pre>"]
    for heading, keys in SECTIONS:
        body.append(f"<h2>{e(heading)}</h2>")
        for key in keys:
            buf = io.StringIO()
            _save(figs[key], buf, "svg")
            svg = buf.getvalue()
            body.append(f'<figure id="{key}">{svg[svg.index("<svg"):]}<figcaption>{e(CAPTIONS[key])}</figcaption></figure>')
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>'
            '<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}'
            'pre{font-size:.8em;overflow:auto}figure{margin:1em 0}figcaption{font-size:.9em;color:#333}'
            'svg{max-width:100%;height:auto}</style></head><body>\n' + "\n".join(body) + "\n</body></html>\n")


#: The pictures of a report written as a folder, by name (`NAME.png` or `NAME.svg`).
PICTURES = ("lengths", "seats", "scores", "rules", "ties")


def _is_page(out: str) -> bool:
    return Path(out).suffix.lower() in (".html", ".htm")


def check_report_path(out: str, fmt: str = "png") -> None:
    """Refuse, with an OptionError and before any game is played, a report that could not be
    written where `out` says: a page (OUT.html) that is a folder or another kind of file than a
    regular one (a pipe would block), a folder of pictures that is a file, a picture there that is a
    folder, or anything in a folder that does not exist (no folder is made but the report's own)."""
    if fmt not in FORMATS:
        raise OptionError(f"a report's pictures are {' or '.join(FORMATS)}, not {fmt!r}")
    if not isinstance(out, str) or not out or "\0" in out:
        raise OptionError(f"--report names a file OUT.html or a folder OUT, not {str(out)[:60]!r}")
    path = Path(out)
    shown = out if len(out) <= 120 else out[:117] + "…"
    parent = path.parent
    if not parent.is_dir():
        raise OptionError(f"--report {shown}: the folder {str(parent)[:120]} does not exist (make it first)")
    targets = [path] if _is_page(out) else [path / f"{name}.{fmt}" for name in PICTURES]
    if not _is_page(out) and path.exists() and not path.is_dir():
        raise OptionError(f"--report {shown}: not a folder (a report ending in .html is one page; any other is a "
                          "folder of pictures)")
    for target in targets:
        if target.is_dir():
            raise OptionError(f"--report {shown}: {str(target)[:120]} is a folder, where the report writes a file")
        if target.exists() and not target.is_file():
            raise OptionError(f"--report {shown}: {str(target)[:120]} is not a regular file")
    where = parent if _is_page(out) or not path.is_dir() else path
    if not os.access(where, os.W_OK | os.X_OK):
        raise OptionError(f"--report {shown}: cannot write in the folder {str(where)[:120]}")


def _replace(target: Path, write) -> None:
    """Write a file whole or not at all: `write(f)` to a temporary file beside `target`, then
    renamed over it (a report cut short by a full disk leaves the last one as it was)."""
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_report(report: dict, out: str, fmt: str = "png") -> str:
    """Write the report's plots: `out` ending in .html is one page (headings, the table, and each
    figure as inline SVG with its caption); anything else is a folder of `lengths.png`,
    `seats.png`, `scores.png`, `rules.png`, `ties.png` (`fmt="svg"`: .svg), made if it is not there
    (in a folder that is).  Each file is written whole or not at all.  Returns what was written;
    a path it cannot be written at, or a failure while writing, is a StateError (`cannot write the
    report …`): the command line checks the path before it plays (`check_report_path`), and this is
    what may have changed since."""
    try:
        check_report_path(out, fmt)
    except OptionError as e:
        raise StateError(f"cannot write the report: {e}") from None
    figs = figures(report)
    path = Path(out)
    try:
        if _is_page(out):
            page = _page(report, figs).encode("utf-8")
            _replace(path, lambda f: f.write(page))
            return str(path)
        path.mkdir(exist_ok=True)
        for name in PICTURES:
            _replace(path / f"{name}.{fmt}", lambda f, fig=figs[name]: _save(fig, f, fmt))
    except OSError as e:
        raise StateError(f"cannot write the report {out}: {e.strerror or e}") from None
    return str(path)
