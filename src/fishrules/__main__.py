"""`python -m fishrules …` is the `fishrules` command."""

import sys

from .cli import main

sys.exit(main())
