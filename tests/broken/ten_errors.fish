# Ten independent syntax errors (each line marked "<-"), and one meaning error the checker finds
# in what could be read.  `fishrules check` must report each once, in order, and nothing else.
game "Ten errors"
players 2 to 4
dice: 3 with faces HEAD, TAIL, BODY 5

each player has catch: number
the game has rolls: number

define heads: count(dice showing HEAD)
define broken: max(1, heads
define tails: count(dice showing TAIL)                  # <- the bracket above is left open
define half: heads / 2                                  # <- no division
define lucky: heads + tials                             # checker: did you mean tails

phase game                                              # <- no colon
  repeat 3 times:
    play round

phase round:
  for each player:
    play turn for player
  if rolls == 3:                                        # <- `==`
    end game
  otherwise:
    add 1 to rolls

phase turn for roller:
  roll all dice
    roll all dice                                       # <- indented too far
  roller chooses keep or reroll

action keep:
  repeat 2 times:                                       # <- nothing under `repeat`
  add heads to your catch

action reroll(chosen: some dice, times: a number from 1 to):   # <- a number missing
  roll chosen
  set your catch to                                     # <- nothing after `to`
  if count(chosen) > 2 {                                # <- a brace
    nothing

score "catch": your catch
winners: players with the highest                       # <- nothing after `highest`
