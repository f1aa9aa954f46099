# Fishfry — the Total Points tournament.
#
# "In 5 rounds of play, players can keep all fish, even PANFISH. The points of each player's turn
#  are recorded on paper, and added at the end to determine the winners."
# The tournament rules (fishfry-tournament.fish) already record every turn and add them up; this
# mode only names itself and keeps the rulebook's 5 rounds.

extends "fishfry-tournament"

game "Fishfry: Total Points tournament"

replace option rounds: number from 1 to 100 = 5, "how many rounds the tournament lasts"
