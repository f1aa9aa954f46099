# A non-breaking space pasted from a web page.
# expect: 5:16 error: an invisible space that is not a plain space
# hint: type a plain space
extends "fishfry"
replace players 2 to 4
