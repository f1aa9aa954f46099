"""Embed fishrules: play a whole game of Fishfry through the Python API.

A simple greedy player (seat 0) plays against random players.  On the way it shows the parts of the
API an embedding program needs: legal actions, applying an action by its text, the view of one
player, scores and winners, replaying the history, a JSON round trip, and manual chance.

    .venv/bin/python examples/embed.py [--players 3] [--seed 42]
"""

import argparse
import random

import fishrules


def greedy(state: fishrules.State, me: int) -> str:
    """Stay with 25 points or more; otherwise re-roll every die that is not part of a fish."""
    view = state.view(me)
    legal = view["legal_actions"]  # the texts of what `me` may do now
    if view["derived"]["turn_points"] >= 25 or legal == ["stay"]:
        return "stay"
    # keep HEAD, TAIL, PANFISH and BODY 20; re-roll the rest (dice are numbered from 1)
    reroll = [str(i) for i, face in enumerate(view["dice"], 1) if face in ("BODY 5", "BODY 10")]
    wanted = "reroll " + " ".join(reroll)
    return wanted if wanted in legal else "stay"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    game = fishrules.load("fishfry")  # a bundled ruleset by name, or a path to a .fish file
    state = game.start(players=args.players, seed=args.seed)  # seeded: dice roll by themselves
    rng = random.Random(args.seed)
    while not state.is_over:
        me = state.current  # whose turn it is (0-based)
        if me == 0:
            state.apply(greedy(state, me))  # an action may be given as its text
        else:
            state.apply(rng.choice(state.legal_actions()))  # ... or as an Action
    print(f"{game.title}, {args.players} players, seed {args.seed}")
    print("scores:", state.scores(), "winners:", state.winners())
    print("the game took", len(state.history), "actions, dice rolls included")
    print("the last entries of the history:", state.history[-4:])

    # The history replays to the same state, and a state survives a JSON round trip.
    assert game.replay(state.history, players=args.players) == state
    assert game.state_from_json(state.to_json()) == state
    print("replay and JSON round trip: same state")

    # Manual chance: the caller decides every die, e.g. to test a rule or to drive a physical table.
    manual = game.start(players=2, chance="manual")
    assert manual.current == fishrules.CHANCE
    outcome, probability = manual.chance_outcomes()[0]
    print(f"manual chance: {len(manual.chance_outcomes())} outcomes for the first die, e.g. {outcome} with p={probability}")
    for face in ["HEAD", "TAIL", "BODY 20", "BODY 20", "PANFISH"]:
        manual.apply(next(a for a, _ in manual.chance_outcomes() if str(a).endswith(face)))
    print("chosen dice:", manual.view(0)["dice"], "worth", manual.view(0)["derived"]["turn_points"], "points")


if __name__ == "__main__":
    main()
