extends "."
game "X"
