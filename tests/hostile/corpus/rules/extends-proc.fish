extends "/proc/self/environ"
game "X"
