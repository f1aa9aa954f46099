"""Imported once by the fork server the workers of `fishrules serve` are forked from (workers.py):
fishrules, the parser and the bundled rulesets are read there, so that every worker starts with
them and no job waits for an import or a read."""

from .work import preload

preload()
