"""Draw the pictures of the house-rule tutorial (docs/house-rules.md) with the command it shows.

`make figures` runs this: it takes the tutorial's own `fishrules compare … --report …` command and
its last version of `our-fishfry.fish`, and runs that command with `--report` sent to
docs/images/our-fishfry/, so the pictures on the page are the ones its readers get.
`tests/test_tutorial_figures.py` checks that they still are.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "house-rules.md"
FIGURES = ROOT / "docs" / "images" / "our-fishfry"


def tutorial_command() -> list[str]:
    """The arguments of the tutorial's `fishrules compare … --report …` line."""
    text = PAGE.read_text(encoding="utf-8")
    line = re.search(r"^\$ (fishrules compare .* --report \S+)$", text, re.M).group(1)
    return shlex.split(line)[1:]


def tutorial_rules() -> str:
    """The tutorial's last version of `our-fishfry.fish`."""
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r'^```fishrules title="our-fishfry.fish"\n(.*?)^```', text, re.S | re.M)
    return blocks[-1]


def draw(out: Path = FIGURES) -> list[Path]:
    """Run the tutorial's command with the plots written to `out`; the files written."""
    from fishrules import cli

    argv = tutorial_command()
    at = argv.index("--report")
    argv[at + 1] = str(out.resolve())
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "our-fishfry.fish").write_text(tutorial_rules(), encoding="utf-8")
        os.chdir(scratch)
        try:
            code = cli.main(["-q", *argv])
        finally:
            os.chdir(here)
    if code != 0:
        raise SystemExit(code)
    return sorted(out.glob("*.png"))


if __name__ == "__main__":
    for path in draw():
        print(path.relative_to(ROOT))
    sys.exit(0)
