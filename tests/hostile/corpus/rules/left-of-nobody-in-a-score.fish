game "Corpus"
players 2 to 2
the game has who: player
phase game:
  repeat:
    for each player:
      player chooses pick
action pick:
  nothing
score "s": count(players other than left of who)
