# Fat Fish with the fishing licenses.
#
# From "Fishing Licenses" of the Fat Fish rulebook: "All basic rules remain unchanged.
# Each fishing license is issued to a player under certain conditions and gives its holder
# additional victory points."  The licenses are named by their Cyrillic letters, written out in
# Latin letters: А = A, Б = B, В = V, Г = G.

extends "fatfish"

game "Fat Fish with fishing licenses"

# "Shuffle the fishing license cards marked with the letters А, Б and В (A, B and V), draw one at
#  random, and place it face up on the table so that all players can see it. Set aside the
#  remaining 2 cards"
cards license: letter in A, B, V
the game has hidden license_pile: zone of license
the game has shown_license: zone of license

# "Then place the fishing license cards marked with the letters Г through И ... face up next to the
#  previous card."  The rulebook's text is cut off in the middle of Д: only Г can be played.
# AMBIGUITY (Д to И): asking for them is refused with a clear message rather than guessed at.
option licenses_D_to_I: yes or no = no, "Д, Е, Ж, З, И: not playable, the rulebook's text is cut off at Д"

# The numbers a table changes: what a license is worth, alone or shared ("If several players are
# tied, the leading players receive 5 points each").
# "The player holding this license at the end of the game receives an additional 10 victory points."
define license_points: 10
define shared_license_points: 5

the game has license_A_holder: player = nobody
the game has license_G_holder: player = nobody
# "Points for the cards А, Б and В are counted at the end of the game."
the game has game_ended: yes or no
# What the row just taken held, looked at when it is taken: the rules' bookkeeping, in no view.
the game has internal row_had_a_run: yes or no
the game has internal ones_before: number
the game has internal met_A: yes or no
the game has internal met_G: yes or no

define shown_A: any l in shown_license where letter is A
define shown_B: any l in shown_license where letter is B
define shown_V: any l in shown_license where letter is V

add rule "fishing licenses" at the start of phase setup:
  if licenses_D_to_I:
    unavailable "the fishing licenses Д to И cannot be played: the rulebook's text is cut off at Д"
  move license to license_pile face down
  shuffle license_pile
  draw from license_pile to shown_license face up

add rule "the end of the game" at the end of phase game:
  set game_ended to yes

# "Card Г. This license is received by the first player who completes a row containing cards with
#  four consecutive values (1, 2, 3, 4, or 2, 3, 4, 5, or 3, 4, 5, 6), plus any fifth card. These four
#  cards need not lie in the row in the correct order, and their color does not matter."
define values_taken: value of taken
define a_run_of_four: (1 in values_taken and 2 in values_taken and 3 in values_taken and 4 in values_taken) or (2 in values_taken and 3 in values_taken and 4 in values_taken and 5 in values_taken) or (3 in values_taken and 4 in values_taken and 5 in values_taken and 6 in values_taken)

add rule "look at the row" after rule "take the row":
  set row_had_a_run to a_run_of_four
  set ones_before to count(catcher's victory where value = 1)

# "Rules for receiving licenses. License card А can pass from player to player during the game. ...
#  Cards Г through И are issued to players only once, and after that are not passed to other players.
#  During your turn, if you meet the conditions of several available fishing license cards at once,
#  you may choose only one."
add rule "receive a license" after rule "sort the catch":
  # "Card А ... As soon as a player places a card with value 1 into their victory points pile, they
  #  immediately receive this license. If later a card with value 1 also appears in another player's
  #  victory points pile, this license passes to that player."
  # AMBIGUITY (А passes): only when a value-1 card reaches another player's victory pile; its
  # holder placing another 1 changes nothing.
  set met_A to shown_A and count(catcher's victory where value = 1) > ones_before and license_A_holder is not catcher
  set met_G to license_G_holder is nobody and row_had_a_run
  if met_A and met_G:
    # AMBIGUITY (choosing Г over А): the license А then stays where it was.
    catcher chooses take_license_A or take_license_G
  otherwise if met_A:
    set license_A_holder to catcher
  otherwise if met_G:
    set license_G_holder to catcher

action take_license_A:
  set license_A_holder to you

action take_license_G:
  set license_G_holder to you

# "The player holding this license at the end of the game receives an additional 10 victory points."
# AMBIGUITY (when licenses count): А and Г as soon as they are held; Б and В only once the game is
# over ("Cards Б and В are issued to players only at the end of the game").
score "license A": if shown_A and license_A_holder is you then license_points otherwise 0

# "Card Б is issued at the end of the game. It is received by the player with the fewest cards in
#  their victory points pile. ... If several players are tied, the leading players receive 5 points
#  each."
define fewest_victory_cards: players with the lowest count(victory)
score "license B": if game_ended and shown_B and you in fewest_victory_cards then (if count(fewest_victory_cards) = 1 then license_points otherwise shared_license_points) otherwise 0

# "Card В is issued at the end of the game. It is received by the player with the most cards with
#  value 1 in their victory points pile. ... If several players are tied, the leading players receive
#  5 points each."
# AMBIGUITY (nobody has a 1): with no value-1 card in any victory pile nobody "has the most", so В is
# not issued.
define most_ones: players with the highest count(victory where value = 1)
define any_ones: any p in players where count(victory where value = 1) > 0
score "license V": if game_ended and shown_V and any_ones and you in most_ones then (if count(most_ones) = 1 then license_points otherwise shared_license_points) otherwise 0

# "This license brings 10 victory points."
score "license G": if license_G_holder is you then license_points otherwise 0


# ---- How a table words it -------------------------------------------------------------------------
presentation:
  about: "Fat Fish with fishing licenses: besides the rows, licenses give 10 points to the player who meets their condition (license Г: the first row taken with four values in a row; А, Б or В, one of them drawn: a 1 in your victory pile, the fewest victory cards, the most 1s)."
  value license_pile: "licenses", "the licenses not drawn yet"
  value shown_license: "licenses in play"
  value license_A_holder: "license А", "who holds license А (10 points)"
  value license_G_holder: "license Г", "who holds license Г (10 points)"
  value game_ended: hidden
  value shown_A: hidden
  value shown_B: hidden
  value shown_V: hidden
  value a_run_of_four: hidden
  value any_ones: hidden
  action take_license_A: "take license А", "hold license А: 10 points while you hold it"
  log take_license_A: "{player} takes license А"
  action take_license_G: "take license Г", "hold license Г: 10 points while you hold it"
  log take_license_G: "{player} takes license Г"
  option licenses_D_to_I: "licenses Д to И", "not playable: the rulebook's text is cut off at Д"
  attribute letter: "license"
