game "Corpus"
players 2 to 4
cards deck: n from 1 to 600
the game has xs: list of numbers
the game has seats: list of numbers
each player has mine: list of numbers
phase game:
  set xs to n of deck
  repeat 3 times:
    for each player:
      player chooses keep
action keep(k: a number from 1 to 5):
  set your mine to n of (deck where n > k * 100)
  set seats to n of (deck where n <= count(your mine))
  remove first(xs) from xs
score "s": sum(your mine) + count(xs) + count(seats)
