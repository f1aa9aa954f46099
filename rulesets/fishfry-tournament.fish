# Fishfry — the tournament rules shared by every tournament mode.
#
# From "Tournament Rules" and "Special Tournament Rules" of the Fishfry rulebook.  The
# rulebook's own modes extend this file: fishfry-total-points.fish, fishfry-first-to.fish and
# fishfry-keeper.fish.  On its own it is a Total Points tournament.

extends "fishfry"

game "Fishfry tournament"

# "In the multiple round game of a FISHFRY tournament, players must keep track of fish they catch
#  with a paper and pencil."  Every player's `catch` is that paper: one entry per recorded turn.
option rounds: number from 1 to 100 = 5, "how many rounds the tournament lasts"

# "Some gamers prefer that ALL other players "fry-up" one fish (their choice), but this rule is up
#  to your group."
option fry_up: one of roller_eats, everyone_fries = roller_eats, "roller_eats: the FISHFRY roller eats one fish of one player; everyone_fries: every other player fries one fish of their choice"

# "TIES do NOT allow for the ONE TIE-ALL TIE rule."  The rounds are played and that is all.
replace phase game:
  repeat rounds times:
    play round

# "The tied players must split the awards for the 2 places they are tied for."  Tied players share
# the victory; `State.ranking()` gives the shared places for the 1st, 2nd and 3rd awards.
# AMBIGUITY (agreed tie-breaks): "Players may also choose an alternate way to break ties, if all the
# players agree before the game begins" — a group that does writes it as a house rule replacing this.
replace winners: players with the highest score

# "In a Tournament, the special "FISHFRY" roll is five PANFISH. It is NOT an instant winner."
# AMBIGUITY (what a fish is in Total Points): the points of each turn are recorded as one entry, so
# a fish to eat is one recorded turn ("The points of each player's turn are recorded on paper").
# The other reading records each fish of a turn on its own (a turn of two fish is two entries, and
# its PANFISH go with one of them), so a FISHFRY eats one fish, not the whole turn.
# A turn worth 0 is on the paper too, but nothing was caught in it: "any fish currently caught"
# is an entry worth more than 0 (PANFISH alone are a fish: "players can keep all fish, even PANFISH").
define fish_on_paper: your catch where it > 0
# AMBIGUITY (what the FISHFRY roll scores): nothing — its reward is the meal and the free turn.  The
# other reading records its five PANFISH, 5 points, like any turn ("PANFISH add ONE point EACH").
# "may select": the roller may eat a fish or decline.  Eating can cost the roller: in the Keeper
# Tournament the player who loses a fish may fish again ("a player whose fish was "fried up" may
# now continue to play even if they had already recorded the 3 fish limit").
# AMBIGUITY ("may select"): an earlier reading made the meal compulsory, as in Total Points and
# FIRST-TO it never costs the roller anything; "may" lets every tournament decline.  With no fish on
# anybody's paper there is nothing to eat, and nothing to decline.
replace phase fishfry for roller:
  if fry_up is roller_eats:
    # "The player who rolled the FISHFRY may select any fish currently caught by any one player,
    #  "fry it up," and eat it. That fish is subtracted from the other player's score."
    if any player in players other than roller has count(fish_on_paper) > 0:
      roller chooses eat or decline
  otherwise:
    # "ALL other players "fry-up" one fish (their choice)", in turn order from the roller's left.
    for each player other than roller starting with left of roller:
      if count(player's fish_on_paper) > 0:
        player chooses fry
  # "The player then rolls again in a free turn to try and catch fish."
  play turn for roller

action eat(victim: one of players other than you, fish: one of victim's fish_on_paper):
  remove fish from victim's catch

# The roller leaves every fish where it is.
action decline:
  nothing

action fry(fish: one of your fish_on_paper):
  remove fish from your catch


# ---- How a table words it -------------------------------------------------------------------------
presentation:
  about: "Fishfry played over rounds: in each round every player has a turn of up to three rolls, and the points of the turns add up; the most points at the end wins, and ties share the place."
  about: "A FISHFRY (five PANFISH within three rolls) no longer wins at once: after the setting chosen, the roller eats a fish of another player, or every other player fries one of their own."
  value fish_on_paper: hidden
  action eat: "eat a fish", "take one fish off another player's score sheet"
  action eat victim: "whose fish"
  action eat fish: "the fish (its points)"
  log eat: "{player} eats {victim}'s fish of {fish}"
  action decline: "eat nothing", "leave every score sheet as it is"
  log decline: "{player} eats nothing"
  action fry: "fry a fish", "strike one of your own fish off your score sheet"
  action fry fish: "the fish (its points)"
  log fry: "{player} fries their fish of {fish}"
  option rounds: "rounds", "how many rounds the tournament lasts"
  option fry_up: "after a FISHFRY", "roller eats: the roller eats one fish of one player; everyone fries: every other player fries one of their fish"
