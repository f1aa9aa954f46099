# Every line marked "<-" is wrong; the checker must report all of them at once, in this order.
game "Many errors"
players 2 to 4
dice: 3 with faces HEAD, TAIL, BODY 5
option limit: number from 1 to 10 = 20                  # <- default out of range
each player has catch: list of numbers
the game has leader: player = nobody
the game has total: number
define fish_caught: count(dice showing HEAD)
define oops: fsh_caught + 1                             # <- did you mean fish_caught
define f1: bogus(3)                                     # <- unknown function
define f2: largest(3)                                   # <- wrong arity
define f3: catch                                        # <- per-player variable used bare
define f4: dice showing HAED                            # <- unknown face
define f5: leader's catch + 1                           # <- a list added to a number

phase game:
  play round
  play nowhere                                          # <- unknown phase
  end nowhere                                           # <- end of an unknown phase
  if 3:                                                 # <- `if` on a number
    nothing
  set leader to your catch                              # <- `your` in a phase
  add leader's catch to total                           # <- a list added to a number

phase round:
  leader chooses keep or jump or round                  # <- unknown action; a phase as an action

phase lonely:                                           # <- never played
  nothing

action keep:
  add 1 to your catch
  require "too late": yes                               # <- require after an effect

action unused:                                          # <- never offered
  nothing
