"""Play a whole game of Fishfry through the API: a greedy player against a random one."""

import random

import fishrules

game = fishrules.load("fishfry")
state = game.start(players=2, seed=42)
rng = random.Random(42)
while not state.is_over:
    actions = state.legal_actions()
    if state.current == 0:
        # greedy: stay once the roll is worth 25 points or more, otherwise re-roll everything allowed
        worth = state.view(0)["derived"]["turn_points"]
        choice = actions[-1] if worth >= 25 else max(actions[:-1] or actions, key=lambda a: len(str(a)))
    else:
        choice = rng.choice(actions)
    state.apply(choice)
print("scores:", state.scores(), "winners:", state.winners())
print("the game took", len(state.history), "actions, dice rolls included")
