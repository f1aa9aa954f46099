"""`fishrules compare`: play the same seeds under several rulesets and say what differs.

A house-rule writer asks: does my variant make the game longer?  Does it favour the first
player?  `compare` plays game i of every ruleset from the same seed (`api.game_seed_of(seed, i)`:
common random numbers, so differences are the rules', not luck's) and reports, for each ruleset,
game length, win rate by seat, tie rate and scores, each with a 95% interval; and, for every
ruleset after the first, whether each difference from the first is significant, with the test
used and its p-value.  The result is plain data (`compare(...)` returns a dict; `--json` prints
it), identical for the same arguments.

Tests used (all two-sided, at 5%):

- means (length in decisions and in actions, mean score): Welch's t test;
- win rate by seat: chi-square test of homogeneity on the table ruleset x winning seat (a tie
  shares its game among the winners), and within one ruleset a chi-square goodness of fit against
  equal seats ("seat advantage");
- tie rate: chi-square test on the 2x2 table (ties, not ties).

Intervals: Wilson's score interval for rates, Student's t for means.  The arithmetic (the t and
chi-square distributions) is done here, with no dependency.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Optional, Sequence

from .errors import OptionError
from .runtime.text import short
from .terminal import shown

__all__ = ["compare", "compare_rulesets", "Contender", "wilson", "welch", "chi_square", "MAX_COMPARE_GAMES"]

#: How close to 0 a p-value must be for a difference to be called significant.
ALPHA = 0.05
#: The most games one comparison plays, every ruleset's together: it keeps each game's record (for
#: medians, histograms and tests), about a kilobyte.
MAX_COMPARE_GAMES = 1_000_000


# ---- statistics ----------------------------------------------------------------------------------


def wilson(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate `successes / n`."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(1 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(1 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-14:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbeta) * _betacf(a, b, x) / a
    return 1 - math.exp(lbeta) * _betacf(b, a, 1 - x) / b


def t_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with `df` degrees of freedom."""
    if math.isnan(t):
        return 1.0
    if math.isinf(t):
        return 0.0
    return _betainc(df / 2, 0.5, df / (df + t * t))


def t_quantile(df: float, p: float = 0.975) -> float:
    """The p-quantile of Student's t (by bisection on the distribution above)."""
    lo, hi = 0.0, 1000.0
    target = 2 * (1 - p)
    for _ in range(100):
        mid = (lo + hi) / 2
        if t_two_sided(mid, df) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _gammainc_upper(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x)."""
    if x <= 0:
        return 1.0
    if x < a + 1:  # the series of P
        term = total = 1 / a
        ap = a
        for _ in range(1000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1 - total * math.exp(-x + a * math.log(x) - math.lgamma(a)))
    tiny = 1e-300  # the continued fraction of Q
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi_square(table: Sequence[Sequence[float]]) -> tuple[float, int, float]:
    """Chi-square test of homogeneity of the rows of `table`: (statistic, degrees of freedom,
    p-value).  Columns that are empty throughout are left out."""
    cols = [j for j in range(len(table[0])) if sum(row[j] for row in table) > 0]
    rows = [row for row in table if sum(row[j] for j in cols) > 0]
    if len(cols) < 2 or len(rows) < 2:
        return (0.0, 0, 1.0)
    total = sum(row[j] for row in rows for j in cols)
    stat = 0.0
    for row in rows:
        rs = sum(row[j] for j in cols)
        for j in cols:
            expected = rs * sum(r[j] for r in rows) / total
            stat += (row[j] - expected) ** 2 / expected
    df = (len(rows) - 1) * (len(cols) - 1)
    return (stat, df, _gammainc_upper(df / 2, stat / 2))


def chi_square_uniform(counts: Sequence[float]) -> tuple[float, int, float]:
    """Chi-square goodness of fit of `counts` against equal shares: (statistic, df, p-value)."""
    total = sum(counts)
    k = len(counts)
    if k < 2 or total <= 0:
        return (0.0, 0, 1.0)
    e = total / k
    stat = sum((c - e) ** 2 / e for c in counts)
    return (stat, k - 1, _gammainc_upper((k - 1) / 2, stat / 2))


def mean_interval(xs: Sequence[float]) -> dict:
    """Mean, standard deviation and the 95% t interval of the mean."""
    n = len(xs)
    mean = sum(xs) / n if n else 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    half = t_quantile(n - 1) * sd / math.sqrt(n) if n > 1 else 0.0
    return {"mean": _r(mean), "sd": _r(sd), "low": _r(mean - half), "high": _r(mean + half)}


def welch(a: Sequence[float], b: Sequence[float]) -> dict:
    """Welch's t test of the difference of means b - a: the difference, its 95% interval and the
    p-value."""
    na, nb = len(a), len(b)
    ma, mb = sum(a) / na, sum(b) / nb
    va = sum((x - ma) ** 2 for x in a) / (na - 1) if na > 1 else 0.0
    vb = sum((x - mb) ** 2 for x in b) / (nb - 1) if nb > 1 else 0.0
    se2 = va / na + vb / nb
    diff = mb - ma
    if se2 == 0:
        p = 1.0 if diff == 0 else 0.0
        return {"difference": _r(diff), "low": _r(diff), "high": _r(diff), "test": "welch t", "p_value": p,
                "significant": p < ALPHA}
    se = math.sqrt(se2)
    df = se2 ** 2 / ((va / na) ** 2 / max(na - 1, 1) + (vb / nb) ** 2 / max(nb - 1, 1))
    p = t_two_sided(diff / se, df)
    half = t_quantile(df) * se
    return {"difference": _r(diff), "low": _r(diff - half), "high": _r(diff + half), "test": "welch t",
            "p_value": _p(p), "significant": p < ALPHA}


def two_rates(a: float, n1: int, b: float, n2: int) -> dict:
    """The difference of two rates b/n2 - a/n1: its 95% interval (Newcombe's, from the two Wilson
    intervals) and the p-value of the chi-square test on the 2x2 table."""
    p1, p2 = a / n1, b / n2
    l1, u1 = wilson(a, n1)
    l2, u2 = wilson(b, n2)
    d = p2 - p1
    low = d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    stat, _, p = chi_square([[a, n1 - a], [b, n2 - b]])
    return {"difference": _r(d), "low": _r(low), "high": _r(high), "test": "chi-square 2x2", "statistic": _r(stat),
            "p_value": _p(p), "significant": p < ALPHA}


def _r(x: float) -> float:
    return round(x, 4)


def _p(p: float) -> float:
    return float(f"{p:.4g}")


# ---- playing ---------------------------------------------------------------------------------------


class Contender:
    """One ruleset to compare: a bundled name or a path, with a variant and options, and the label
    the report gives it."""

    def __init__(self, ruleset: str, variant: Optional[str] = None, options: Optional[Mapping[str, Any]] = None,
                 label: Optional[str] = None, backend: str = "auto"):
        from .api import load

        self.game = load(ruleset, variant, backend=backend)
        self.options = dict(options or {})
        self.game._options(self.options)  # wrong options fail now, before anything is played
        self.label = label or (ruleset if variant is None else f"{ruleset}:{variant}") + "".join(
            f" {k}={v}" for k, v in sorted(self.options.items()))


#: The bots `compare(bots=...)` accepts; `mixed` seats them in turn (seat p of game i plays
#: MIXED[(i + p) % 4]).
BOT_CHOICES = ("random", "greedy", "mcts", "ismcts", "mixed")


def _summary(results: list[dict], players: int, bot_kinds: Optional[list[list[str]]], rules: dict) -> dict:
    n = len(results)
    wins = [0.0] * players
    ties = 0
    for r in results:
        w = r["winners"]
        if len(w) > 1:
            ties += 1
        for p in w:
            wins[p] += 1 / len(w)
    seats = []
    for p in range(players):
        sc = sorted(r["scores"][p] for r in results)
        lo, hi = wilson(wins[p], n)
        seats.append({"seat": p, "wins": _r(wins[p]), "win_rate": _r(wins[p] / n), "low": _r(lo), "high": _r(hi),
                      "score": {**mean_interval(sc), "min": sc[0], "median": sc[len(sc) // 2], "max": sc[-1]}})
    stat, df, p = chi_square_uniform(wins)
    tl, th = wilson(ties, n)
    lengths = [r["decisions"] for r in results]
    out = {
        "games": n,
        "length": {"decisions": mean_interval(lengths), "actions": mean_interval([r["actions"] for r in results]),
                   "min_decisions": min(lengths), "max_decisions": max(lengths)},
        "seats": seats,
        "seat_advantage": {"test": "chi-square goodness of fit (equal seats)", "statistic": _r(stat), "df": df,
                           "p_value": _p(p), "significant": p < ALPHA},
        "ties": {"games": ties, "rate": _r(ties / n), "low": _r(tl), "high": _r(th)},
        "histogram": _histogram(lengths),
        "score_histogram": _histogram([s for r in results for s in r["scores"]]),
        "rules": {},
        "empty_draws": _empty_draws(results),
    }
    for name, k in rules.items():
        fired = [r["fires"][k] for r in results]
        some = sum(1 for x in fired if x)
        lo, hi = wilson(some, n)
        out["rules"][name] = {"per_game": mean_interval(fired), "games": some, "share": _r(some / n), "low": _r(lo),
                              "high": _r(hi)}
    if bot_kinds is not None:
        by: dict = {}
        for r, kinds in zip(results, bot_kinds):
            for p, k in enumerate(kinds):
                played, won = by.get(k, (0, 0.0))
                by[k] = (played + 1, won + (1 / len(r["winners"]) if p in r["winners"] else 0.0))
        out["bots"] = {k: {"seats_played": pl, "wins": _r(w), "win_rate": _r(w / pl),
                           "low": _r(wilson(w, pl)[0]), "high": _r(wilson(w, pl)[1])} for k, (pl, w) in sorted(by.items())}
    return out


def _empty_games(results: list[dict]) -> dict[tuple[str, int], int]:
    """(zone, 0 for the set-up or 1 for later) -> in how many games a draw found that zone empty."""
    out: dict[tuple[str, int], int] = {}
    for r in results:
        for name, counts in r.get("empty", {}).items():
            for when in (0, 1):
                if counts[when]:
                    out[(name, when)] = out.get((name, when), 0) + 1
    return out


def _empty_draws(results: list[dict]) -> dict:
    """For each zone a draw found empty: the share of games where it happened during the set-up
    (a deal that ran out) and later, each with its 95% interval."""
    n = len(results)
    out: dict = {}
    for (name, when), k in sorted(_empty_games(results).items()):
        lo, hi = wilson(k, n)
        out.setdefault(name, {})["setup" if when == 0 else "later"] = {"games": k, "rate": _r(k / n), "low": _r(lo),
                                                                       "high": _r(hi)}
    return out


def _histogram(xs: list[int], bins: int = 20) -> dict:
    lo, hi = min(xs), max(xs)
    width = max(1, math.ceil((hi - lo + 1) / bins))
    counts = [0] * ((hi - lo) // width + 1)
    for x in xs:
        counts[(x - lo) // width] += 1
    return {"start": lo, "width": width, "counts": counts}


def _differences(base: dict, other: dict, a: list[dict], b: list[dict], players: int, base_rules: dict,
                 rules: dict) -> dict:
    stat, df, p = chi_square([[s["wins"] for s in base["seats"]], [s["wins"] for s in other["seats"]]])
    ta, tb = base["ties"]["games"], other["ties"]["games"]
    out = {
        "decisions": welch([r["decisions"] for r in a], [r["decisions"] for r in b]),
        "actions": welch([r["actions"] for r in a], [r["actions"] for r in b]),
        "win_rate_by_seat": {"test": "chi-square homogeneity", "statistic": _r(stat), "df": df, "p_value": _p(p),
                             "significant": p < ALPHA},
        # each seat's share of each game (a shared win is shared), compared as a mean
        "win_rate": [welch([_share(r, q) for r in a], [_share(r, q) for r in b]) for q in range(players)],
        "tie_rate": two_rates(ta, base["games"], tb, other["games"]),
        "score": [welch([r["scores"][q] for r in a], [r["scores"][q] for r in b]) for q in range(players)],
        "rules": {},
        "empty_draws": {},
    }
    ea, eb = _empty_games(a), _empty_games(b)
    for key in sorted(set(ea) | set(eb)):
        name, when = key
        out["empty_draws"].setdefault(name, {})["setup" if when == 0 else "later"] = two_rates(
            ea.get(key, 0), len(a), eb.get(key, 0), len(b))
    for name, k in rules.items():  # the rules both have, by name
        if name in base_rules:
            out["rules"][name] = welch([r["fires"][base_rules[name]] for r in a], [r["fires"][k] for r in b])
    return out


def _share(r: dict, seat: int) -> float:
    return 1 / len(r["winners"]) if seat in r["winners"] else 0.0


def compare(contenders: Sequence[Contender | str], players: int, games: int, seed: int = 0, bots: str = "random",
            iterations: int = 50, progress: Optional[Callable[[int], None]] = None, workers: int = 1,
            dask: Optional[str] = None) -> dict:
    """Play `games` games of each contender (a `Contender` or a ruleset name) at `players`
    players, game i of each from the seed `api.game_seed_of(seed, i)`, with `bots` at every seat
    (`random` on the fast path; `greedy`, `mcts`, `ismcts` with `iterations`; `mixed`: the four
    in turn).  Returns plain data: each contender's summary (how often each named rule fired
    included), and each later one's differences from the first.  `progress(k)` is called as k more
    games are done.  `workers` local processes, or the Dask cluster at `dask` (`"local"` starts
    one), play the same games with the same results (see `fishrules.simulation`)."""
    from .simulation import Runner, seat_bots

    if isinstance(games, bool) or not isinstance(games, int) or games < 2:
        raise OptionError(f"compare needs at least 2 games of each, not {short(games)}")
    if bots not in BOT_CHOICES:
        raise OptionError(f"there is no bot {short(bots)} (choose {', '.join(BOT_CHOICES)})")
    cs = [c if isinstance(c, Contender) else Contender(c) for c in contenders]
    if not cs:
        raise OptionError("name at least one ruleset to compare")
    if games * len(cs) > MAX_COMPARE_GAMES:
        said = f"{games:,}" if games.bit_length() <= 128 else "more than 10**38"  # str() of 5,000 digits fails
        raise OptionError(f"compare plays at most {MAX_COMPARE_GAMES:,} games in all, keeping each one's record: "
                          f"{said} games of {len(cs)} ruleset{'s' if len(cs) > 1 else ''} is more (`fishrules simulate` "
                          "plays any number)")
    for c in cs:
        if not (c.game.min_players <= players <= c.game.max_players):
            raise OptionError(f"{shown(c.label)} is for {c.game.min_players} to {c.game.max_players} players, not {players}")
    runs = []
    with Runner(workers, dask) as runner:
        played = [runner.play(c.game, {"players": players, "options": c.options, "seed": seed, "bots": bots,
                                       "iterations": iterations}, games, progress) for c in cs]
    for c, results in zip(cs, played):
        kinds = [seat_bots(bots, i, players) for i in range(games)] if bots == "mixed" else None
        rules = c.game.program.rules
        runs.append((c, results, _summary(results, players, kinds, rules), rules))
    base_c, base_r, base_s, base_rules = runs[0]
    report: dict = {
        "format": "fishrules-compare/1",
        "players": players, "games": games, "seed": seed, "bots": bots,
        "contenders": [],
    }
    if bots != "random":
        report["iterations"] = iterations
    for c, results, summary, rules in runs:
        entry = {"label": c.label, "title": c.game.title, "ruleset": c.game.name, "options": c.options, **summary}
        if c is not base_c:
            entry["versus_first"] = _differences(base_s, summary, base_r, results, players, base_rules, rules)
        report["contenders"].append(entry)
    return report


def compare_rulesets(rulesets: Sequence[str], players: int, games: int = 1000, seed: int = 0, bots: str = "random",
                     iterations: int = 50, workers: int = 1, dask: Optional[str] = None,
                     progress: Optional[Callable[[int], None]] = None) -> dict:
    """`fishrules.compare`: `compare` with each ruleset written as on the command line,
    `RULESET[:VARIANT][,NAME=VALUE...]` (or given as a `Contender`)."""
    if isinstance(rulesets, str):
        rulesets = [rulesets]
    cs = [r if isinstance(r, Contender) else parse_contender(r) for r in rulesets]
    return compare(cs, players, games, seed, bots, iterations, progress, workers, dask)


# ---- the command line's side ------------------------------------------------------------------------


def parse_contender(text: str, players_option: Sequence[str] = (), backend: str = "auto") -> Contender:
    """A contender written as `RULESET[:VARIANT][,NAME=VALUE...]` (`base-game:strict,rounds=3`,
    `my-rules.fish:strict`); `players_option` adds NAME=VALUE options to it; its random games are
    played by `backend` (see `fishrules.load`)."""
    head, *pairs = text.split(",")
    pairs = [*pairs, *players_option]
    ruleset, variant = head, None
    if ":" in head and not head.endswith(".fish"):
        ruleset, variant = head.rsplit(":", 1)
    from .api import load

    game = load(ruleset, variant, backend=backend)
    options: dict = {}
    for pair in pairs:
        if "=" not in pair:
            raise OptionError(f"write options as NAME=VALUE, not '{shown(pair)}'")
        name, value = (x.strip() for x in pair.split("=", 1))
        info = game.options.get(name)
        if info is None:
            game._options({name: None})  # raises, with a "did you mean"
        if info.kind == "number":
            try:
                options[name] = int(value)
            except ValueError:
                raise OptionError(f"option '{shown(name)}' takes a whole number, not '{shown(value)}'") from None
        elif info.kind == "yes or no":
            if value.lower() not in ("yes", "no", "true", "false"):
                raise OptionError(f"option '{shown(name)}' takes yes or no, not '{shown(value)}'")
            options[name] = value.lower() in ("yes", "true")
        else:
            options[name] = value
    return Contender(ruleset, variant, options, label=text if not players_option else None, backend=backend)


def _pm(iv: dict, digits: int = 1) -> str:
    return f"{iv['mean']:.{digits}f} [{iv['low']:.{digits}f}, {iv['high']:.{digits}f}]"


def _rate(x: dict) -> str:
    return f"{x['win_rate'] if 'win_rate' in x else x['rate']:.1%} [{x['low']:.1%}, {x['high']:.1%}]"


def _fired(x: dict) -> str:
    return f"{x['per_game']['mean']:.2f}/game, in {x['share']:.0%} of games"


def _sig(d: dict) -> str:
    return f"p={d['p_value']:.3g}" + (" *" if d["significant"] else "")


def _diff(d: dict, digits: int = 1, percent: bool = False) -> str:
    """A difference from the first ruleset: its size, 95% interval, p-value and * when significant."""
    if percent:
        return f"{d['difference']:+.1%} [{d['low']:+.1%}, {d['high']:+.1%}] {_sig(d)}"
    return f"{d['difference']:+.{digits}f} [{d['low']:+.{digits}f}, {d['high']:+.{digits}f}] {_sig(d)}"


def option_words(options: Mapping[str, Any]) -> list[str]:
    """Options as words: `3 rounds`, `max score 50`, `scoring strict`, `no bonus`."""
    out = []
    for name, value in options.items():
        words = name.replace("_", " ")
        if isinstance(value, bool):
            out.append(words if value else f"no {words}")
        elif isinstance(value, int) and name.endswith("s"):
            out.append(f"{value} {words}")
        else:
            out.append(f"{words} {value}")
    return out


def legends(report: dict) -> list[str]:
    """What each ruleset of a report is called in words (plots, headings): its title and options,
    `My game: the long version, 3 rounds`; two alike are told apart by how they were named."""
    names = [", ".join([c["title"], *option_words(c["options"])]) for c in report["contenders"]]
    return [f"{x} ({c['label']})" if names.count(x) > 1 else x for x, c in zip(names, report["contenders"])]


def render_text(report: dict) -> str:
    """The report as a plain-text table, side by side: each figure with its 95% interval, and under
    it, for every ruleset after the first, `vs first`: the difference, its interval, the p-value of
    the test and a * when it is significant at 5%."""
    cs = report["contenders"]
    # labels and names as written in the rules, cut and escaped: a terminal shows the table
    rows: list[list[str]] = [["", *[shown(c["label"], 80) for c in cs]]]
    later = cs[1:]

    def row(name, cells):
        rows.append([name, *cells])

    def versus(cells):
        if later:
            row("  vs first", ["", *cells])

    row("decisions per game", [_pm(c["length"]["decisions"]) for c in cs])
    versus([_diff(c["versus_first"]["decisions"]) for c in later])
    row("actions per game", [_pm(c["length"]["actions"]) for c in cs])
    versus([_diff(c["versus_first"]["actions"]) for c in later])
    for p in range(report["players"]):
        row(f"p{p} wins", [_rate(c["seats"][p]) for c in cs])
        versus([_diff(c["versus_first"]["win_rate"][p], percent=True) for c in later])
    row("seat advantage", [_sig(c["seat_advantage"]) for c in cs])
    if later:
        row("  wins vs first", ["", *[_sig(c["versus_first"]["win_rate_by_seat"]) for c in later]])
    row("ties", [_rate(c["ties"]) for c in cs])
    versus([_diff(c["versus_first"]["tie_rate"], percent=True) for c in later])
    for p in range(report["players"]):
        row(f"p{p} score", [f"{_pm(c['seats'][p]['score'])} ({c['seats'][p]['score']['min']}-{c['seats'][p]['score']['max']})" for c in cs])
        versus([_diff(c["versus_first"]["score"][p]) for c in later])
    zones = list(dict.fromkeys(name for c in cs for name in c.get("empty_draws", {})))
    for name in zones:
        for when, words in (("setup", f"`{shown(name)}` ran out, set-up"), ("later", f"`{shown(name)}` empty, later")):
            if not any(when in c.get("empty_draws", {}).get(name, {}) for c in cs):
                continue
            row(words, [_rate(c["empty_draws"][name][when]) if when in c.get("empty_draws", {}).get(name, {})
                        else "0.0%" for c in cs])
            versus([_diff(c["versus_first"]["empty_draws"][name][when], percent=True)
                    if when in c["versus_first"].get("empty_draws", {}).get(name, {}) else "" for c in later])
    names = list(dict.fromkeys(name for c in cs for name in c["rules"]))
    for name in names:
        row(f'rule "{shown(name)}"', [_fired(c["rules"][name]) if name in c["rules"] else "(none)" for c in cs])
        vs = [c["versus_first"]["rules"].get(name) for c in later]
        if any(vs):
            versus([_diff(d, 2) if d else "" for d in vs])
    if report["bots"] == "mixed":
        from .simulation import MIXED

        for k in MIXED:
            row(f"{k} wins", [_rate(c["bots"][k]) if k in c["bots"] else "" for c in cs])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    bots = report["bots"] + (f", {report['iterations']} iterations" if "iterations" in report else "")
    head = (f"{report['games']} games each, {report['players']} players, seed {report['seed']}, bots: {bots}; "
            "[95% interval], * significant at 5%")
    return "\n".join([head, *lines])
