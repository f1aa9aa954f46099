"""`fishrules compare --report`: the report's plots, drawn with matplotlib (the `report` extra).

Four figures, each drawn from the report's data alone (what `--json` prints), so a saved report can
be drawn again:

- `lengths`: how many decisions a game takes, a histogram per ruleset;
- `seats`: the win rate of each seat with its 95% interval, and the line of equal seats;
- `scores`: the distribution of final scores (every seat's), a histogram per ruleset;
- `rules`: how often each named rule fires per game, with its 95% interval.

`write_report(report, "out.html")` writes one page: the table and the four figures as inline SVG;
any other path is a folder that gets `lengths.png` … (or `.svg`).  Figures are made with
`matplotlib.figure.Figure` (no pyplot, no global state, no display) and written without dates, so
the same report gives the same files.
"""

from __future__ import annotations

import html
import io
from pathlib import Path

from .errors import OptionError, StateError

__all__ = ["write_report", "figures", "require_matplotlib", "FORMATS"]

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


def _histograms(report: dict, key: str, xlabel: str, title: str):
    fig, ax = _figure()
    for c in report["contenders"]:
        h = c[key]
        edges = [h["start"] - 0.5 + k * h["width"] for k in range(len(h["counts"]) + 1)]
        total = sum(h["counts"]) or 1
        ax.stairs([x / total for x in h["counts"]], edges, label=c["label"], linewidth=1.6)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of games" if key == "histogram" else "share of final scores")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig


def _seats(report: dict):
    fig, ax = _figure()
    cs, n = report["contenders"], report["players"]
    width = 0.8 / len(cs)
    for j, c in enumerate(cs):
        xs = [p + (j - (len(cs) - 1) / 2) * width for p in range(n)]
        rates = [s["win_rate"] for s in c["seats"]]
        err = [[s["win_rate"] - s["low"] for s in c["seats"]], [s["high"] - s["win_rate"] for s in c["seats"]]]
        ax.bar(xs, rates, width * 0.9, yerr=err, capsize=3, label=c["label"])
    ax.axhline(1 / n, color="grey", linestyle="--", linewidth=1, label="equal seats")
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
    for j, c in enumerate(cs):
        ys, xs, lo, hi = [], [], [], []
        for i, name in enumerate(names):
            r = c["rules"].get(name)
            if r is None:
                continue
            ys.append(i + (j - (len(cs) - 1) / 2) * height)
            xs.append(r["per_game"]["mean"])
            lo.append(max(0.0, r["per_game"]["mean"] - r["per_game"]["low"]))
            hi.append(max(0.0, r["per_game"]["high"] - r["per_game"]["mean"]))
        ax.barh(ys, xs, height * 0.9, xerr=[lo, hi], capsize=3, label=c["label"])
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("fires per game (95% interval)")
    ax.set_title("How often each named rule fires")
    ax.legend(fontsize="small")
    return fig


def figures(report: dict) -> dict:
    """The report's figures by name (matplotlib `Figure`s)."""
    require_matplotlib()
    return {
        "lengths": _histograms(report, "histogram", "decisions per game", "Game length"),
        "seats": _seats(report),
        "scores": _histograms(report, "score_histogram", "final score", "Score distribution (every seat)"),
        "rules": _rules(report),
    }


def _save(fig, target, fmt: str) -> None:
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "fishrules", "svg.fonttype": "path"}):
        fig.savefig(target, format=fmt, metadata={"Date": None} if fmt == "svg" else {"Software": None}, dpi=100)


def write_report(report: dict, out: str, fmt: str = "png") -> str:
    """Write the report's plots: `out` ending in .html is one page (the table and the figures as
    inline SVG); anything else is a folder of `lengths.png`, `seats.png`, `scores.png`,
    `rules.png` (`fmt="svg"`: .svg).  Returns what was written."""
    from .comparison import render_text

    if fmt not in FORMATS:
        raise OptionError(f"a report's pictures are {' or '.join(FORMATS)}, not {fmt!r}")
    figs = figures(report)
    path = Path(out)
    try:
        if path.suffix.lower() in (".html", ".htm"):
            parts = []
            for name, fig in figs.items():
                buf = io.StringIO()
                _save(fig, buf, "svg")
                svg = buf.getvalue()
                parts.append(f'<figure id="{name}">{svg[svg.index("<svg"):]}</figure>')
            title = "fishrules compare: " + ", ".join(c["label"] for c in report["contenders"])
            page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
                    '<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}pre{font-size:.8em;overflow:auto}'
                    'figure{margin:1em 0}svg{max-width:100%;height:auto}</style></head><body>\n'
                    f"<h1>{html.escape(title)}</h1>\n<pre>{html.escape(render_text(report))}</pre>\n"
                    + "\n".join(parts) + "\n</body></html>\n")
            path.write_text(page, encoding="utf-8")
            return str(path)
        path.mkdir(parents=True, exist_ok=True)
        for name, fig in figs.items():
            _save(fig, path / f"{name}.{fmt}", fmt)
    except OSError as e:
        raise StateError(f"cannot write the report {out}: {e.strerror or e}") from None
    return str(path)
