game "Corpus"
players 2 to 2
cards c: v from 1 to 30
the game has deck: zone of c
the game has spare: zone of c
phase game:
  repeat:
    move c to deck face down
    move c to spare face down
