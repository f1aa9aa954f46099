# Fish Fish
#
# Written from the Fish Fish rulebook (not part of this repository; docs/games/fishfish.md tells
# how to play).  Lines in quotes are the
# rulebook's own words; AMBIGUITY marks how this ruleset reads a sentence that can be read more than
# one way, and why.

game "Fish Fish"

# "28 Fish tiles: 4 each of 7 different fish" — one kind for each Fish, so at most 7 Fish and one
# Fisherman.  AMBIGUITY (two players): the rulebook plays 2 and 3 players ("each player has been the
# Fisherman twice"); with two there is one Fish against the Fisherman.
players 2 to 8

# "5 Fishing cards: 2 "Catch" and 3 "Empty-handed""
cards fishing: kind in Catch x 2, Empty_handed x 3
# "5 Bait cards, with values 2, 3, 3, 4 and 5"
cards bait: value in 2, 3 x 2, 4, 5

# ---- The numbers a table changes ------------------------------------------------------------------
# Each is one line for a house rule to replace, as in `replace define most_tiles_a_bet: 2`.

# "Each Fish player takes four tiles showing the same fish"
define tiles_each: 4
# "chooses to bet from zero to four Fish tiles on the Fisherman's line"
define most_tiles_a_bet: 4
# "the Fisherman has played his five lines" (one Fishing card and one Bait card a line)
define lines_a_round: 5
# "The Fisherman scores 4 points for each Fish tile he captured."
define points_a_captured_tile: 4

# ---- who plays what ------------------------------------------------------------------------------

# "players take on two different roles: either that of the Fisherman ... or that of a Fish"
the game has fisherman: player
# "The direction of turn of the Fish players changes with each round."
the game has direction: one of clockwise, counterclockwise = clockwise
the game has line_number: number
the game has round_number: number
# How many "Catch" cards have been revealed this round.
the game has catches_revealed: number

# The Fisherman's cards.  "The Fisherman secretly chooses one Fishing card": nobody else sees them.
the game has fishing_hand: zone of fishing seen by fisherman
# AMBIGUITY (the bait cards in hand): the rulebook only hides the Fishing card; the Bait cards left
# are public, as everyone can count the baits already shown.
the game has bait_hand: zone of bait
# "places them on the table one on top of the other, so that only the value of the Bait card ... is
#  visible. The nature of the Fishing card ... is not revealed"
the game has line_fishing: zone of fishing seen by fisherman
the game has line_bait: zone of bait
# "the Fisherman discards his two cards face down": nobody may look at them again.
the game has hidden discard: zone

# "Each Fish player takes four tiles showing the same fish, plus one Loot tile"
each player has tiles: number
each player has bet: number
# A Fish's Loot tile: the slot value (2 to 5) of every tile placed on it.
each player has loot: list of numbers
# The tiles a Fisherman captured this round.
each player has captured: number
# "The Fisherman records on the score pad the points each player scored during the round"
each player has points: number


# ---- scoring --------------------------------------------------------------------------------------

score "score pad": your points

# "The player with the most points at the end of the rounds wins the game. In case of a tie, the
#  players share the victory!"
winners: players with the highest score


# ---- the game -------------------------------------------------------------------------------------

# "With 4 to 8 players, the game ends when each player has been the Fisherman once. With 2 or 3
#  players, the game ends when each player has been the Fisherman twice."
define rounds_to_play: if count(players) <= 3 then 2 * count(players) otherwise count(players)

phase game:
  # "The last player to have eaten fish is the Fisherman for the first round."
  # AMBIGUITY (who ate fish last): the table decides before the game; the first seat is that player.
  set fisherman to first(players)
  repeat rounds_to_play times:
    add 1 to round_number
    # "Start of a New Round": only when a new round begins.  After the last round nobody becomes
    # the Fisherman, so the last Fisherman's unplayed Fishing cards stay his, seen by nobody else.
    if round_number > 1:
      # "The player to the left of the Fisherman becomes the new Fisherman"
      set fisherman to left of fisherman
      # "A new round begins, with the direction of turn of the Fish players changed."
      if direction is clockwise:
        set direction to counterclockwise
      otherwise:
        set direction to clockwise
    play round
    play scoring

# "All Fish tiles are returned to play. ... The Fish players each take back four tiles showing the
#  same fish and a Loot tile." / "The Fisherman takes the five Fishing cards and the five Bait cards."
phase round:
  move fishing to fishing_hand face down
  move bait to bait_hand face up
  for each player:
    set player's tiles to 0
    set player's bet to 0
    clear player's loot
    set player's captured to 0
  for each player other than fisherman:
    set player's tiles to tiles_each
  set line_number to 0
  set catches_revealed to 0
  # "the Fisherman has played his five lines"
  repeat lines_a_round times:
    play line
    # "all the Fish tiles have been bet"
    if no player in players where tiles > 0:
      end round

# "In the first round, the player to the left of the Fisherman bets first, and the other players
#  bet clockwise. In the second round, the player to the right of the Fisherman bets first, and the
#  other players bet counter-clockwise, and so on."
define first_to_bet: if direction is clockwise then left of fisherman otherwise right of fisherman

phase line:
  add 1 to line_number
  # "1) The Fisherman sets the line"
  fisherman chooses set_line
  # "2) The Fish bet" — "Each Fish player, in turn ..., chooses to bet from zero to four Fish tiles"
  # AMBIGUITY (a Fish with no tiles left): it still has its turn, where it can only `bet 0`, so the
  # order of play stays the rulebook's ("When the Fisherman and every Fish player have played").
  # The other reading skips it: it has nothing to bet.
  for each player other than fisherman starting with first_to_bet going direction:
    player chooses bet
  # "3) Checking the line"
  play checking

# "The Fisherman secretly chooses one Fishing card and one Bait card"
action set_line(secret card: one of fishing_hand, bait_card: one of bait_hand):
  move card to line_fishing face down
  move bait_card to line_bait face up

action bet(tiles_bet: a number from 0 to min(most_tiles_a_bet, your tiles)):
  # "Fish players may bet their tiles over one or several turns, but they must have bet all of their
  #  Fish tiles by the end of the round."  The fifth line is the last one there can be.
  # AMBIGUITY (earlier ends): a round can also end early when both Catch cards are revealed; then the
  # rulebook itself places the tiles left, so only the fifth line forces a Fish to bet everything.
  require "all tiles bet by the end of the round": line_number < lines_a_round or tiles_bet = your tiles
  subtract tiles_bet from your tiles
  set your bet to tiles_bet

define line_bait_value: sum(value of line_bait)
define tiles_on_the_line: sum(bet of players)

phase checking:
  if tiles_on_the_line = 0:
    # "If no Fish tile was bet on the line, the Fisherman discards his two cards face down,
    #  without revealing the Fishing card used."
    rule "discard unrevealed":
      move line_fishing to discard face down
      move line_bait to discard face down
    end checking
  # "If at least one Fish tile was bet on the line, the Fisherman reveals his Fishing card"
  reveal line_fishing
  if any card in line_fishing where kind is Catch:
    # "If it is a "Catch" card, the Fisherman takes the Fish tile(s) bet by all the Fish players"
    add tiles_on_the_line to fisherman's captured
    add 1 to catches_revealed
  otherwise:
    # "If it is an "Empty-handed" card, the Fish take back their bet Fish tiles and place them on
    #  their Loot tile, in the slot corresponding to the value of the Bait on the line."
    for each player other than fisherman:
      repeat player's bet times:
        add line_bait_value to player's loot
  for each player:
    set player's bet to 0
  # "After checking, the two cards of the Fisherman's line are discarded face down."
  # AMBIGUITY (a revealed card discarded face down): nobody may look at it again; the public
  # catches_revealed keeps count of the Catch cards revealed this round.
  move line_fishing to discard face down
  move line_bait to discard face down
  # "Important: If both "Catch" Fishing cards have been revealed, the round ends immediately. The
  #  Fish players who still have Fish tiles place them on their Loot tile, in the slot corresponding
  #  to the largest Bait value the Fisherman still holds."
  # AMBIGUITY (the largest Bait value the Fisherman still holds): the largest in his hand once the
  # line was checked — the line's own Bait is discarded already.
  # AMBIGUITY (a Catch discarded unrevealed): it is not "used" — only revealed Catch cards end the
  # round; ending it would also tell everybody what the hidden card was.
  # ("both" Catch cards: every Catch card there is, so a house rule can change how many there are.)
  if catches_revealed = count(fishing where kind is Catch):
    for each player other than fisherman:
      repeat player's tiles times:
        add max(value of bait_hand) to player's loot
      set player's tiles to 0
    end round

# "2) Scoring: The Fisherman scores 4 points for each Fish tile he captured. Each Fish player scores
#  as many points as the total value of the Bait eaten by their Fish."
# Example: Ninon has 1 Fish tile in slot 3 and 2 in slot 2: 1 x 3 + 2 x 2 = 7 points.
phase scoring:
  for each player:
    add points_a_captured_tile * player's captured + sum(player's loot) to player's points


# ---- How a table words it -------------------------------------------------------------------------
# What a table (fishrules serve) calls things; the game is the same without it.
presentation:
  about: "A bluffing game. Each round one player is the Fisherman and sets up to five lines, each a secret Fishing card (Catch or Empty handed) under a Bait card everybody sees; the others, the Fish, bet their four tiles on the lines."
  about: "A Catch takes the tiles bet on its line for the Fisherman (4 points each); Empty handed puts them on the Fish's loot at the Bait's value. Once both Catch cards are shown the round ends. Everybody is the Fisherman in turn; the most points wins."
  value line_number: out of lines_a_round
  value round_number: out of rounds_to_play
  value fisherman: "Fisherman"
  value direction: "Fish bet going"
  value line_number: "line", "which of the round's five lines this is"
  value round_number: "round"
  value catches_revealed: "Catch cards revealed"
  value fishing_hand: "Fishing cards", "the Fisherman's: nobody else sees them"
  value bait_hand: "Bait cards"
  value line_fishing: "Fishing card on the line", "face down: a Catch or Empty-handed"
  value line_bait: "Bait on the line"
  value discard: "discarded"
  value tiles: "tiles left"
  value bet: "tiles bet"
  value loot: "loot tile", "the slot value of each tile put on it"
  value captured: "tiles captured", "by the Fisherman, this round"
  value points: "points"
  value rounds_to_play: "rounds"
  value line_bait_value: "bait on the line"
  value tiles_on_the_line: "tiles bet on the line"
  action set_line: "set the line", "a Fishing card face down, a Bait card face up"
  action set_line card: "Fishing card"
  action set_line bait_card: "Bait card"
  log set_line: "{player} sets the line: {card} under {bait_card}"
  action bet: "bet", "put tiles on the line (0: pass)"
  action bet tiles_bet: "tiles"
  log bet: "{player} bets {tiles_bet} tiles"
  attribute kind: "kind"
