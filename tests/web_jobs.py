"""Jobs for the tests of the server's worker processes (tests/test_web_workers.py): each does one
thing a stranger's rules could make a worker do — spin, sleep in C, eat memory, die."""

from __future__ import annotations

import os
import time

import fishrules


def echo(x):
    return x, os.getpid()


def spin(seconds):
    end = time.process_time() + seconds
    n = 0
    while time.process_time() < end:
        n += 1
    return n


def sleep(seconds):
    time.sleep(seconds)  # wall time, no CPU: only the deadline ends it
    return "slept"


def eat(megabytes):
    chunks = [bytearray(1 << 20) for _ in range(megabytes)]
    return len(chunks)


def die():
    os._exit(3)


def refuse(message):
    raise fishrules.OptionError(message)


def bug():
    raise KeyError("an internal slip")


def recurse(n):
    return recurse(n + 1)


def priority():
    policy = os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else None
    return os.nice(0), policy
