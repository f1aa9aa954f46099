# A tiny game of hidden information for tests of search and equilibrium algorithms, in Kuhn
# poker's shape: three cards, one each in secret, an ante each, one bet that the other calls or
# folds, then the higher card takes the pot.
game "High card"
players 2 to 2
cards deck: rank in 1, 2, 3
the game has hidden pile: zone of deck
the game has pot: number
each player has secret hand: zone of deck
each player has chips: number
score "chips": your chips
winners: players with the highest score

define rank_of(p: player): rank of first(p's hand)
define holder: first(players with the highest rank_of(it))

phase game:
  move deck to pile face down
  shuffle pile
  for each player:
    draw from pile to player's hand face down
    subtract 1 from player's chips
    add 1 to pot
  first(players) chooses bet or check
  if pot = 3:
    last(players) chooses call or fold
  for each player:
    reveal player's hand
  add pot to holder's chips

action bet:
  subtract 1 from your chips
  add 1 to pot

action check:
  nothing

action call:
  subtract 1 from your chips
  add 1 to pot

action fold:
  add pot to first(players)'s chips
  end game
