# A house rule: Fat Fish at a strict table.
#
# Why: the rulebook lets a player lay a card that breaks the rules and then punishes it with the
# fiasco card (-5 at the end, and the turn starts again).  Families playing with young children, or a
# program that should never accept a wrong move, may prefer a wrong lay to be simply refused.  The
# option exists in fatfish.fish already; this file makes refusal the default, so nobody has to pass
# --option fiasco=refusal.  A table that wants the rulebook back can still ask for fiasco=penalty.
extends "fatfish"
game "Fat Fish at a strict table"

replace option fiasco: one of penalty, refusal = refusal, "refusal: a wrong lay is refused (this house rule); penalty: a wrong lay takes the fiasco card (the rulebook)"
