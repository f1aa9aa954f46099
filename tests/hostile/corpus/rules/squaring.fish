game "Corpus"
players 2 to 2
the game has x: number = 2
phase game:
  repeat 30 times:
    set x to x * x
