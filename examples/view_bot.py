"""A small Fish Fish bot that decides from `state.view(me)` alone, against random players.

The bot reads only what its seat may know — `view(me)` — never `state.history` or the engine's
internals, so it cannot peek at the Fisherman's hidden card.  It is written for Fish Fish
(`rulesets/fishfish.fish`, or a house rule of it) and refuses other games.

- As a Fish it estimates the chance that the hidden card on the line is a Catch (Catch cards not yet
  revealed, over the Fishing cards it cannot see) and bets more when the bait is high and that
  chance is low; on the fifth line it must bet every tile left.
- As the Fisherman it lays its Catch cards first, under its highest baits (random Fish bet most
  early, and the round then ends with only low baits left to score the tiles not yet bet), and
  its Empty-handed cards under its lowest baits.

It plays N games, the bot in each seat in turn, and prints its win rate next to a random player's
in the same seats (ties share the win).

    .venv/bin/python examples/view_bot.py [--games 300] [--players 3] [--seed 1] [--rules fishfish]
    .venv/bin/python examples/view_bot.py --rules examples/house-rules/fishfish-three-catch.fish
"""

import argparse
import random
import sys

import fishrules
from fishrules.random_play import random_step

CATCH_CARDS = 2  # "5 Fishing cards: 2 "Catch" and 3 "Empty-handed""


def catch_cards(view: dict, default: int) -> int:
    """How many Catch cards the rules have: a house rule may publish it as the define `catch_cards`
    (examples/house-rules/fishfish-three-catch.fish does), which the view shows under "derived"."""
    return view["derived"].get("catch_cards", default)


def bait_value(label: str) -> int:
    return int(label.split("-")[1])  # "bait-4" -> 4


def fish_bet(view: dict, me: int, default: int) -> str:
    values = view["values"]
    tiles = view["seats"][me]["tiles"]
    legal = view["legal_actions"]
    if len(legal) == 1:  # no tiles left, or the fifth line: every tile must go
        return legal[0]
    bait = bait_value(values["line_bait"][0])
    unseen = len(values["fishing_hand"]) + 1  # the Fisherman's cards and the one on the line
    catch_left = max(0, catch_cards(view, default) - values["catches_revealed"])
    p_catch = min(1.0, catch_left / unseen)
    # Expected gain of one tile on this line, against what a tile left for later is roughly worth.
    gain = (1 - p_catch) * bait
    if gain >= 3:
        want = tiles
    elif gain >= 2:
        want = (tiles + 1) // 2
    elif gain >= 1.5:
        want = 1
    else:
        want = 0
    want = min(want, 4, tiles)
    return f"bet {want}" if f"bet {want}" in legal else legal[0]


def fisherman_line(view: dict) -> str:
    hand = view["values"]["fishing_hand"]  # the Fisherman sees his own Fishing cards
    baits = sorted(view["values"]["bait_hand"], key=bait_value)
    card = "Catch" if "Catch" in hand else "Empty_handed"
    bait = baits[-1] if card == "Catch" else baits[0]
    choice = f"set_line {card} {bait}"
    return choice if choice in view["legal_actions"] else view["legal_actions"][0]


def bot_action(view: dict, me: int, default_catch_cards: int = CATCH_CARDS) -> str:
    """What the bot does, from its view only."""
    if view["values"]["fisherman"] == me:
        return fisherman_line(view)
    return fish_bet(view, me, default_catch_cards)


def play(game, players: int, games: int, seed: int, default_catch_cards: int, bot: bool) -> float:
    """The win rate of seat `g % players` in game g: the bot's, or (bot=False) a random player's."""
    wins = 0.0
    for g in range(games):
        seat = g % players
        state = game.start(players=players, seed=seed + g)
        rng = random.Random(seed * 7919 + g)
        while not state.is_over:
            if bot and state.current == seat:
                state.apply(bot_action(state.view(seat), seat, default_catch_cards))
            else:
                random_step(state, rng)
        winners = state.winners()
        if seat in winners:
            wins += 1 / len(winners)
    return wins / games


def main() -> int:
    parser = argparse.ArgumentParser(description="a Fish Fish bot that only reads view(me)")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default="fishfish", help="fishfish, or a .fish house rule of it")
    parser.add_argument("--catch-cards", type=int, default=CATCH_CARDS, help="how many Catch cards the rules have, when their view does not say")
    args = parser.parse_args()

    game = fishrules.load(args.rules)
    probe = game.start(players=args.players, seed=0).view(0)
    if not {"fisherman", "fishing_hand", "line_bait", "catches_revealed"} <= probe["values"].keys():
        print(f"this bot plays Fish Fish, not {game.title}", file=sys.stderr)
        return 2
    print(f"A view-only bot playing {game.title}: {args.games} games, {args.players} players, "
          f"the bot in every seat in turn, against random players")
    bot = play(game, args.players, args.games, args.seed, args.catch_cards, bot=True)
    rand = play(game, args.players, args.games, args.seed, args.catch_cards, bot=False)
    print(f"{'player':<16}{'win rate':>10}")
    print(f"{'view-only bot':<16}{bot:>10.1%}")
    print(f"{'random player':<16}{rand:>10.1%}")
    print(f"{'fair share':<16}{1 / args.players:>10.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
