# A house rule: Fish Fish with three "Catch" cards (and three "Empty-handed").
#
# Why: with only two Catch cards the Fish soon learn to wait until both have been revealed and then
# bet everything; a third Catch keeps every line dangerous and gives the Fisherman a real bluff.
# The Fisherman now holds six Fishing cards for five lines, so one card stays in hand each round and
# nobody knows which.
#
# The base game ends a round when every Catch card there is has been revealed (the rulebook's
# "both"), so with three the round ends after the third: changing the cards is all it takes.
extends "fishfish"
game "Fish Fish with three Catch cards"

replace cards fishing: kind in Catch x 3, Empty_handed x 3
