"""What the adapters cost per step, against the plain API: `python benchmarks/adapters.py`.

Plays the same random games (a few seeds) three ways and prints a Markdown table of microseconds
per decision: the plain API loop (`legal_actions`, `apply`), the same with ids and an observation
for the player to act (`legal_action_ids`, `action_of_id`, `observation`: what an agent needs), an
OpenSpiel state (`legal_actions`, `apply_action`, `observation_tensor`), and a PettingZoo AEC
environment (`last`, `step`).  The docs' table (docs/adapters.md) is its output.  Each cell also
says how many times the plain API's cost it is, measured in the same run (a shared machine's
load moves the microseconds; the ratios move less).  `--cpu` times by this process's CPU time
instead of the wall clock, and keeps the best of three runs: steadier where others share the machine.
"""

from __future__ import annotations

import argparse
import random
import time

import fishrules

clock = time.perf_counter


def plain(game, n, seed, with_ids):
    s = game.start(players=n, seed=seed)
    rng = random.Random(seed)
    steps = 0
    t = clock()
    while not s.is_over:
        who = s.waiting[0] if s.current == fishrules.SIMULTANEOUS else None
        if with_ids:
            ids = s.legal_action_ids(who)
            s.observation(s.waiting[0])
            s.apply(s.action_of_id(rng.choice(ids), who))
        else:
            s.apply(rng.choice(s.legal_actions(who)))
        steps += 1
    return clock() - t, steps


def openspiel(name, n, seed):
    import pyspiel
    from fishrules.adapters import openspiel as fo

    game = fo.make_game(name, players=n)
    state = game.new_initial_state()
    rng = random.Random(seed)
    steps = 0
    t = clock()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            continue
        if state.is_simultaneous_node():
            state.apply_actions([(rng.choice(state.legal_actions(p)) if state.legal_actions(p) else 0)
                                 for p in range(n)])
            steps += 1
            continue
        p = state.current_player()
        state.observation_tensor(p)
        state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    del pyspiel
    return clock() - t, steps


def pettingzoo(name, n, seed):
    from fishrules.adapters import pettingzoo as fz

    env = fz.env(name, players=n)
    env.reset(seed=seed)
    env.action_space("player_0").seed(seed)
    steps = 0
    t = clock()
    for agent in env.agent_iter():
        obs, reward, done, truncated, info = env.last()
        if done or truncated:
            env.step(None)
            continue
        env.step(env.action_space(agent).sample(obs["action_mask"]))
        steps += 1
    return clock() - t, steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--most", action="store_true", help="the most players each ruleset allows (else the fewest)")
    ap.add_argument("--cpu", action="store_true", help="CPU time, best of three runs (a shared machine)")
    ap.add_argument("rulesets", nargs="*", default=["fishfry", "fishfish", "fisherman", "fatfish", "fisheatfish"])
    args = ap.parse_args()
    global clock
    if args.cpu:
        clock = time.process_time
    print("| ruleset (players) | plain API | + ids and observation | OpenSpiel | PettingZoo AEC |")
    print("|---|---:|---:|---:|---:|")
    for name in args.rulesets:
        rules = fishrules.load(name)
        n = rules.max_players if args.most else rules.min_players
        cols = []
        first = 0.0
        for f in (lambda s: plain(fishrules.load(name), n, s, False), lambda s: plain(fishrules.load(name), n, s, True),
                  lambda s: openspiel(name, n, s), lambda s: pettingzoo(name, n, s)):
            best = None
            for _ in range(3 if args.cpu else 1):
                total = steps = 0
                for seed in range(args.games):
                    dt, k = f(seed)
                    total += dt
                    steps += k
                best = total / steps if best is None else min(best, total / steps)
            us = 1e6 * best
            first = first or us
            cols.append(f"{us:,.0f} µs" + (f" ({us / first:.1f}x)" if cols else ""))
        print(f"| {name} ({n}) | " + " | ".join(cols) + " |")


if __name__ == "__main__":
    main()
