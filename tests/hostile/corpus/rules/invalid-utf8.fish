game "Corpÿus"
players 2 to 2
phase game:
  nothing
