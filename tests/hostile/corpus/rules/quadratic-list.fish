game "Corpus"
players 2 to 2
the game has xs: list of numbers
phase game:
  repeat:
    add count(xs) to xs
