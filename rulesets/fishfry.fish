# Fishfry — the single game.
#
# Written from the Fishfry rulebook (not part of this repository; docs/games/fishfry.md tells how to
# play).  Lines in quotes are the
# rulebook's own words; a line marked AMBIGUITY says how this ruleset reads a sentence that can be
# read more than one way, and why.  The tournaments of the rulebook are the overlays
# fishfry-tournament.fish, fishfry-total-points.fish, fishfry-first-to.fish and fishfry-keeper.fish.

game "Fishfry"

# AMBIGUITY (player count): the rulebook never says how many may play ("Players take turns
# clockwise around a table").  Two is the fewest that can have a winner; eight keeps a round short.
players 2 to 8

# "The five custom dice have three kinds of faces: HEAD, TAIL, PANFISH.
#  Three further faces show BODIES worth 5, 10 and 20 points."
# AMBIGUITY (faces): so each die has six faces, one of each, all equally likely.
dice: 5 with faces HEAD, TAIL, PANFISH, BODY 5, BODY 10, BODY 20

# ---- The numbers a table changes ------------------------------------------------------------------
# Each is one line for a house rule to replace, as in `replace define rolls_a_turn: 4`.  The number
# of dice is the `dice` line above (`replace dice: 6 with faces …`).

# "Each turn a player has THREE ROLLS."
define rolls_a_turn: 3
# "A player may catch and score 2 complete fish in one turn."
define most_fish_a_turn: 2
# "One fish may have 0, 1, 2, or 3 BODIES in it."
define most_bodies_a_fish: 3
# "A simple fish (a HEAD and a TAIL) is worth 10 points."
define fish_points: 10

# What a player has caught.  A single game records one turn's points per player; the tournaments
# record one entry per turn (Total Points) or per kept fish (Keeper) — see fishfry-tournament.fish.
each player has catch: list of numbers

# The player who rolled a FISHFRY, if anybody did.
the game has fryer: player = nobody

# Which of the turn's three rolls the roller is on, for everybody to see.
the game has roll: number


# ---- Scoring --------------------------------------------------------------------------------------

# "One fish may have 0, 1, 2, or 3 BODIES in it. Incomplete fish (extra parts) do not count in
#  scoring. A player may catch and score 2 complete fish in one turn."
# "A simple fish (a HEAD and a TAIL) is worth 10 points."
define fish_caught: min(count(dice showing HEAD), count(dice showing TAIL), most_fish_a_turn)

# "BODIES add their numbered value to the 10 point score of a fish."
# Each complete fish holds up to three bodies and the player builds the largest fish, so the best
# 3 x (fish caught) bodies count; bodies with no fish to join are extra parts and score nothing.
# Example: a fish with BODIES of 20 and 5 scores 10 + 20 + 5 = 35 points.
define body_points: sum(largest(most_bodies_a_fish * fish_caught, value of dice showing BODY))

# "PANFISH add ONE point EACH to a player's score."
# Example: a fish with BODIES of 5, plus two PANFISH, scores 15 + 2 = 17 points.
# AMBIGUITY (PANFISH without a fish): "any fish and PANFISH are totaled and scored" — PANFISH count
# even when the roll has no complete fish.
define panfish_points: count(dice showing PANFISH)

define turn_points: fish_points * fish_caught + body_points + panfish_points

# "If a player manages to roll all 5 dice as PANFISH within the 3 rolls, it is a FISHFRY!"
# PANFISH are never re-rolled, so the five may gather over the three rolls.
define fishfry_rolled: every die shows PANFISH

score "catch": sum(your catch)

# "After all players have rolled, the player who has the most points is the WINNER."
# "This player [who rolled a FISHFRY] instantly WINS."
winners: if fryer is nobody then players with the highest score otherwise fryer


# ---- How to Play ----------------------------------------------------------------------------------

phase game:
  play round
  # "If two players TIE for the WIN, ALL players play again in a second chance game to win (also
  #  known as the ONE TIE - ALL TIE rule)."
  # AMBIGUITY (the second game): it is a whole new game, scores wiped, the same player first.
  rule "one tie, all tie":
    if count(winners) > 1:
      play again

# "Players take turns clockwise around a table, rolling the 5 custom dice."
phase round:
  for each player:
    play turn for player

phase turn for roller:
  play rolling for roller
  if fishfry_rolled:
    play fishfry for roller
  otherwise:
    # "After a player's turn, any fish and PANFISH are totaled and scored."
    rule "score the turn":
      add turn_points to roller's catch

# "Each turn a player has THREE ROLLS. On the first roll, a player rolls all 5 dice."
phase rolling for roller:
  set roll to 1
  roll all dice
  repeat rolls_a_turn - 1 times:
    # Five PANFISH leave nothing that may be re-rolled: the FISHFRY ends the rolling.
    if fishfry_rolled:
      end rolling
    roller chooses reroll or stay

# "After that, a player has to choose which dice to keep and which dice to re-roll on the second
#  and third rolls."
# AMBIGUITY (dice kept on the second roll): "A player may re-roll any dice except the PANFISH", so
# a die kept on the second roll may still be re-rolled on the third; only PANFISH are locked.
action reroll(chosen: some dice):
  # "A player may re-roll any dice except the PANFISH. PANFISH are set aside and can NOT be
  #  re-rolled."
  require "PANFISH are set aside": no die in chosen shows PANFISH
  add 1 to roll
  roll chosen

# "Players may choose to keep all their dice at any time, and stay with the result they have
#  rolled."
action stay:
  end rolling


# ---- The FISHFRY ----------------------------------------------------------------------------------

# "All other players then "fry-up" and lose their fish. This player instantly WINS and takes the
#  first turn in a new game of FISHFRY."
# AMBIGUITY (the new game): a state is one game, so the game ends here with the roller as the
# winner; a caller who plays on starts a new game with that player seated first.
# AMBIGUITY (what the FISHFRY roll scores): nothing — it wins outright, so its PANFISH points would
# change nothing.  The other reading scores it like any turn, 5 (one a PANFISH); only the roller's
# shown score would differ, never the winner.
phase fishfry for roller:
  for each player other than roller:
    clear player's catch
  set fryer to roller
  end game


# ---- How a table words it -------------------------------------------------------------------------
# What a table (fishrules serve) calls things; the game is the same without it.
presentation:
  about: "A dice game: in your turn roll five dice, then up to twice more roll again the dice you choose (reroll) or keep what you have (stay). A HEAD and a TAIL make a fish worth 10; each fish takes up to three BODIES, which add their values; you score up to two fish a turn, and each PANFISH adds 1."
  about: "PANFISH are set aside and never rolled again. Five PANFISH within your three rolls is a FISHFRY: you win at once. Otherwise, once everybody has had a turn, the most points wins; a tie for the win plays the whole game again."
  value roll: out of rolls_a_turn
  value catch: "catch", "the points of each turn"
  value fryer: "FISHFRY roller", "the player who rolled five PANFISH, and so wins"
  value roll: "roll", "which of the turn's three rolls the roller is on"
  value fish_caught: "fish caught", "complete fish (a HEAD and a TAIL each) in the dice, at most 2"
  value body_points: "body points", "the best BODIES the fish caught can hold, 3 to a fish"
  value panfish_points: "PANFISH points", "one point for each PANFISH"
  value turn_points: "points this turn", "what the dice score if the roller stays now"
  value fishfry_rolled: hidden
  action reroll: "reroll", "roll the dice you choose again (a PANFISH stays where it is)"
  action reroll chosen: "dice to reroll"
  log reroll: "{player} rerolls {chosen}"
  action stay: "stay", "keep the dice as they are: the turn scores them"
  log stay: "{player} stays"
  phase fishfry: "FISHFRY!"
