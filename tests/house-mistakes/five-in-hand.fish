# The numbers a table changes are one line (no diagnostics at all).
extends "fatfish"
game "Five in hand"
replace define hand_size: 5
