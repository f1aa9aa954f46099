"""The game kernel: a ruleset lowered to one flat integer program, run as Python or native code."""
