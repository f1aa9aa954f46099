game "Corpus"
players 2 to 2
board: circles from 1 to 1001
  line 1, 2
the game has x: number
phase game:
  set x to count(adjacent(2))
