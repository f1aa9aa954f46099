# Fishfry — the Keeper tournament.
#
# From "The Keeper Tournament" of the Fishfry rulebook.  The special FISHFRY rules of every
# tournament come with fishfry-tournament.fish.

extends "fishfry-tournament"

game "Fishfry: Keeper tournament"

# "In 7 rounds of play, players can keep only 3 fish."
# "This style of tournament can also be modified in the # of rounds/fish allowed before the game
#  begins."
replace option rounds: number from 1 to 100 = 7, "how many rounds the tournament lasts"
option fish_limit: number from 1 to 20 = 3, "how many fish a player may keep"

# "Once three fish are recorded, he/she is done fishing, and can not take any more turns to try and
#  catch fish."
# "In the Keeper Tournament, a player whose fish was "fried up" may now continue to play even if they
#  had already recorded the 3 fish limit, provided there are rounds remaining in the game."
# Both follow from looking at the paper at the start of every turn.
add rule "done fishing" at the start of phase turn:
  if count(roller's catch) >= fish_limit:
    end turn

# "Unlike the main rules, PANFISH ALONE can not be kept as a fish, but they DO count by adding to the
#  score of a regular fish."
# "Also unlike the main rules, catching 2 fish in one turn does not score a total of both fish. A
#  player may keep only one fish per turn."
# AMBIGUITY (which of two fish): a kept fish is the best one of the roll — a HEAD, a TAIL and up to
# three BODIES — because keeping the smaller of two could only lose points.
define keeper_fish_points: fish_points + sum(largest(most_bodies_a_fish, value of dice showing BODY)) + panfish_points

# "If a player decides to keep a fish, it is recorded on paper."
# "Fish cannot be traded or "thrown back" to allow for another roll": once kept, a fish stays kept,
# so there is no action that gives one back.
replace rule "score the turn":
  if fish_caught > 0:
    roller chooses keep or let_go

action keep:
  add keeper_fish_points to your catch

# Declining keeps the paper free for a bigger fish later.
action let_go:
  nothing


# ---- How a table words it -------------------------------------------------------------------------
presentation:
  about: "Fishfry as the Keeper tournament: after each turn you keep the best fish in the dice (keep) or let it go; at most three fish stay on your score sheet, one a turn, and PANFISH only add to a fish."
  value keeper_fish_points: "points of the fish to keep", "what the best fish in the dice is worth"
  action keep: "keep the fish", "put this turn's fish on your score sheet"
  log keep: "{player} keeps the fish"
  action let_go: "let it go", "put no fish on your score sheet this turn"
  log let_go: "{player} lets the fish go"
  option fish_limit: "fish a player may keep"
