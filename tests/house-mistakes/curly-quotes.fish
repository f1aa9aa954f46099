# A word processor curled the quotes: on each line, one error, the habit, with the hint.
# expect: 6:9 error: curly quotes `“`: a text is written in straight double quotes
# hint: write `"` instead
# expect: 7:6 error: curly quotes
# hint: write `"` instead
extends “fishfry”
game “Our night”
