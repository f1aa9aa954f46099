game "Corpus"
players 2 to 2
define deep: count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (count(players where (1) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)) > 0)
phase game:
  repeat:
    for each player:
      player chooses pick
action pick:
  nothing
score "s": deep
