# A comment written as in C.
# expect: 5:1 error: comments start with `#`
# hint: write `# …` instead of `// …`
extends "fishfry"
// our house rule
game "Ours"
