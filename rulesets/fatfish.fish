# Fat Fish
#
# Written from the Fat Fish rulebook (not part of this repository; docs/games/fatfish.md tells how
# to play).  Lines in quotes are the
# rulebook's own words; AMBIGUITY marks how this ruleset reads a sentence that can be read more than
# one way, and why.  The fishing licenses are the overlay fatfish-licenses.fish.

game "Fat Fish"

# The reserve table of the rulebook goes from 2 to 6 players.
players 2 to 6

# "100 fish cards (five colors)"
# AMBIGUITY (colours and values): the rulebook names four colours (yellow, green, blue, red) and
# gives no value distribution; its examples show values 1 to 6.  The fifth colour is purple, and each
# colour has 20 cards: four each of 1 and 2, three each of 3, 4, 5 and 6.  A house rule changes the
# distribution here, once.
cards fish: colour in red, yellow, green, blue, purple and value in 1 x 4, 2 x 4, 3 x 3, 4 x 3, 5 x 3, 6 x 3

# "Fiasco card: The player who on their turn fishes not according to the rules must take back all
# the cards laid out on that turn and place the fiasco card in front of them."  A strict table may
# prefer to refuse a wrong lay instead.
option fiasco: one of penalty, refusal = penalty, "penalty: a wrong lay takes the fiasco card (the rulebook); refusal: a wrong lay is refused"

# ---- The numbers a table changes ------------------------------------------------------------------
# Each is one line for a house rule to replace, as in `replace define hand_size: 5`.

# "Each player receives 12 fish cards and places them face down in a stack in front of them."
define stack_size: 12
# "Then each player takes 4 cards from their stack into hand." / "draw cards from your personal stack
#  into your hand so that you again have 4 cards."
define hand_size: 4
# "You may lay out from 1 to 4 cards from your hand per turn."
define most_cards_a_turn: 4
# "As soon as a row receives its 5th card, it is considered complete"
define row_length: 5
# "Players 2: 3, 3: 6, 4: 9, 5: 12, 6: 15" cards in the reserve: 3 for each player after the first.
define reserve_per_player: 3
# "The player who received the fiasco card last subtracts 5 additional points."
define fiasco_penalty: 5

the game has hidden deck: zone of fish
the game has hidden out_of_game: zone of fish
# "Reserve stack of cards for the rows ... (face down)"
the game has hidden reserve: zone of fish
# "Place 3 fish cards face up in a column ... These cards are the first cards of the three rows"
the game has rows: zones from 1 to 3 of fish
# The cards of a completed row while they are being sorted.
the game has taken: zone of fish

# "Each player receives 12 fish cards and places them face down in a stack in front of them."
each player has hidden stack: zone of fish
each player has secret hand: zone of fish
# "Place one card of each color, face up, in a separate pile in front of you."
each player has victory: zone of fish
# "Turn the remaining cards face down and place them in a separate pile beside it."
# AMBIGUITY (who sees the penalty pile): the player who turned the cards down knows them; the others
# see how many there are.
each player has secret penalty: zone of fish
# "After a player has run out of cards in their personal stack and in their hand, they leave the game."
each player has left_the_game: yes or no

# "The fiasco card remains lying in front of a player until another player makes a mistake"
the game has fiasco_holder: player = nobody
# The turn's own bookkeeping (the row chosen, how many cards laid, whether the turn is retaken): what
# they say is on the table for everybody to see; the values themselves are in nobody's view.
the game has internal turn_row: number
the game has internal laid: number
the game has internal turn_again: yes or no
the game has internal retaking: yes or no


# ---- End of the Game ------------------------------------------------------------------------------

# "At the end of the game each player calculates the sum of their victory points and subtracts from
#  it all their penalty points. The player who received the fiasco card last subtracts 5 additional
#  points."  ("Note: the number on a card shows how many points it adds or subtracts.")
score "victory": sum(value of your victory)
score "penalty": -sum(value of your penalty)
score "fiasco": if fiasco_holder is you then -fiasco_penalty otherwise 0

# "The player who scores the most points wins."  AMBIGUITY (ties): tied players share the victory.
winners: players with the highest score


# ---- Setup ----------------------------------------------------------------------------------------

define reserve_size: reserve_per_player * (count(players) - 1)

phase game:
  play setup
  # "The game begins with the youngest participant, and then turns pass clockwise."
  # AMBIGUITY: the youngest sits in the first seat.
  # "The other players continue playing until all players have run out of cards in their stacks
  #  and hands."
  repeat until every player where left_the_game:
    for each player:
      if not player's left_the_game:
        play turn for player

phase setup:
  move fish to deck face down
  shuffle deck
  # "Each player receives 12 fish cards ... Then each player takes 4 cards from their stack into hand."
  for each player:
    draw stack_size from deck to player's stack face down
    draw hand_size from player's stack to player's hand
  # "Place 3 fish cards face up ... the first cards of the three rows"
  for each r in rows:
    draw from deck to rows(r) face up
  # "Players 2: 3, 3: 6, 4: 9, 5: 12, 6: 15" cards in the reserve.
  # AMBIGUITY (the reserve): a face-down stack dealt at random here; turning its top card over later
  # is no new chance.
  draw reserve_size from deck to reserve face down
  # "Remove the remaining fish cards from the game"
  move deck to out_of_game face down


# ---- Playing the Game -----------------------------------------------------------------------------

phase turn for fisher:
  # "Then they must immediately take their turn again, this time following all the rules."
  set retaking to no
  set turn_again to yes
  repeat while turn_again:
    set turn_again to no
    play laying for fisher
  # "At the end of your turn, draw cards from your personal stack into your hand so that you again
  #  have 4 cards."
  draw hand_size - count(fisher's hand) from fisher's stack to fisher's hand
  # "If you completed a row this turn, turn over the top card of the reserve stack face up and place
  #  it in the place of the row whose cards you took."
  # AMBIGUITY (the reserve runs out): the row stays empty; a card may start an empty row when no row
  # ends with its colour (the rule below, with no last card to match).
  for each r in rows:
    if count(rows(r)) = 0:
      draw from reserve to rows(r) face up
  if count(fisher's hand) = 0:
    set fisher's left_the_game to yes

# "You may lay out from 1 to 4 cards from your hand per turn."
phase laying for fisher:
  set laid to 0
  set turn_row to 0
  repeat most_cards_a_turn times:
    if count(fisher's hand) = 0:
      end laying
    fisher chooses lay or stop

# "On your turn you may lay cards into only one of the three rows." / "You must always lay cards one
#  at a time at the end of the chosen row." / "The card laid must be either the same color as the
#  last card in the chosen row, or a color on which none of the rows ends."
# The colours are looked at again before each card (Kata's example: after her yellow, green fits
# row I because no row ends with green).
action lay(row: one of rows, card: one of your hand):
  require "one row a turn": laid = 0 or row = turn_row
  require "a matching colour": colour of card is colour of last(rows(row)) or no r in rows where colour of last(rows(r)) is colour of card
  # "Fiasco card: The player who on their turn fishes not according to the rules must take back all
  #  the cards laid out on that turn and place the fiasco card in front of them. Then they must
  #  immediately take their turn again, this time following all the rules."
  # AMBIGUITY (what a fiasco covers): breaking either rule above is fishing "not according to the
  # rules"; every card laid this turn goes back to the hand and the turn starts again.
  # "this time following all the rules": in the turn taken again, a wrong lay is refused, not a
  # second fiasco.
  when "one row a turn" is broken and fiasco is penalty and not retaking:
    play fiasco_card for you
  when "a matching colour" is broken and fiasco is penalty and not retaking:
    play fiasco_card for you
  move card to rows(row) face up
  set turn_row to row
  add 1 to laid
  # "As soon as a row receives its 5th card, it is complete, and the player who laid the last card
  #  into that row must take all the cards from that row"
  # AMBIGUITY (laying on after completing a row): the row is gone until the end of the turn, and
  # cards go into one row a turn, so completing a row ends the laying.
  if count(rows(row)) = row_length:
    play big_catch for you
    end laying

# AMBIGUITY (stopping): a turn lays at least one card; stopping before any is refused, not a fiasco.
action stop:
  require "lay at least one card": laid > 0
  end laying

phase fiasco_card for culprit:
  # "take back all the cards laid out on that turn": back into the hand, face down again — the
  # hand is secret, and a card left face up there would stay on show to everybody.
  if laid > 0:
    move top(laid, rows(turn_row)) to culprit's hand face down
  set fiasco_holder to culprit
  set turn_again to yes
  set retaking to yes
  end laying


# ---- Your Big Catch -------------------------------------------------------------------------------

# "you must take all 5 cards from that row. They become your victory points and penalty points"
phase big_catch for catcher:
  rule "take the row":
    move rows(turn_row) to taken face up
  rule "sort the catch":
    catcher chooses keep
    move taken to catcher's penalty face down

define colours_taken: count(distinct(colour of taken))

# "Place one card of each color, face up, in a separate pile in front of you."
# "Exception: if you take 5 cards of one color, you may place 2 cards, not 1, into the victory
#  points pile."
# AMBIGUITY (the second card of one colour): a card in the victory pile adds what it would subtract
# in the penalty pile, so the player always takes the two; which cards go up is the player's choice.
# The other reading lets the player put up one or two ("you may"): taking one only ever loses points.
action keep(chosen: some taken):
  require "one card of each colour": if colours_taken = 1 then count(chosen) = 2 otherwise count(chosen) = colours_taken and count(distinct(colour of chosen)) = colours_taken
  move chosen to your victory face up


# ---- How a table words it -------------------------------------------------------------------------
# What a table (fishrules serve) calls things; the game is the same without it.
presentation:
  about: "A card game. In your turn choose one row and lay 1 to 4 cards from your hand at its end, one at a time, then stop. A card must have the colour of the last card of its row, or a colour no row ends with; laying against this is a fiasco: your cards come back, you take the fiasco card (5 points off) and play again."
  about: "A row that gets its fifth card is yours: one card of each colour to your victory pile, the rest to your penalty pile. You score your victory cards less your penalty cards; the highest score wins."
  value deck: "deck"
  value out_of_game: "out of the game", "cards of players who left the game"
  value reserve: "reserve", "face-down cards that start new rows"
  value rows: "row", "the three rows of fish cards"
  value taken: "catch being sorted", "the cards of a completed row while its catcher sorts them"
  value fiasco_holder: "fiasco card", "who holds the fiasco card (5 points off at the end)"
  value stack: "stack", "face-down cards a player draws from"
  value hand: "hand"
  value victory: "victory pile", "one card of each colour from each catch: their values count for you"
  value penalty: "penalty pile", "the rest of each catch, face down: their values count against you"
  value left_the_game: "out of cards", "out of cards in stack and hand: no more turns"
  value reserve_size: hidden
  value colours_taken: "colours in the catch"
  action lay: "lay a card", "put a card of your hand at the end of a row (one row a turn)"
  action lay row: "row"
  action lay card: "card"
  log lay: "{player} lays {card} on row {row}"
  action stop: "stop", "end your turn (after at least one card)"
  log stop: "{player} stops"
  action keep: "keep", "the cards that go to your victory pile: one of each colour of the catch"
  action keep chosen: "cards to keep"
  log keep: "{player} keeps {chosen}"
  option fiasco: "a wrong lay", "penalty: it takes the fiasco card (the rulebook); refusal: it is refused"
  attribute value: "value"
  phase big_catch: "a big catch"
  phase fiasco_card: "fiasco!"
