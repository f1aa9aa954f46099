"""`python -m fishrules …` is the `fishrules` command."""

import sys
from typing import Optional, Sequence


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The `fishrules` command (`fishrules.cli.main`).  A Ctrl-C while its modules are still being
    imported ends it as one later does: status 130 and one line, not a traceback."""
    try:
        from .cli import main as command
    except KeyboardInterrupt:
        sys.stderr.write("fishrules: interrupted\n")
        return 130
    return command(argv)


if __name__ == "__main__":
    sys.exit(main())
