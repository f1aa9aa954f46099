# Words of other languages for yes, no and nobody.
# expect: 7:23 error: unknown name `null`
# hint: no player is written `nobody`
# expect: 7:33 error: unknown name `true`
# hint: yes and no are written `yes` and `no`
extends "fishfry"
define a: if fryer is null then true otherwise no
