extends "/etc/passwd"
game "X"
