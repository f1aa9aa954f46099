"""The engine knows no game: no game's vocabulary may appear in src/fishrules (docs/architecture.md,
"What holds everywhere", 1).  The same words the project's before-stop check looks for."""

import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "fishrules"
VOCABULARY = re.compile(
    r"fishfry|panfish|fisherman|\bbait\b|empty.handed|\bloot\b|starfish|\bshark\b|octopus|fiasco|"
    r"fishing.licen|mackerel|puffer|bream|\bgoby\b|\bsquid\b|fish.?fish|fat.?fish|fish.?eat",
    re.IGNORECASE,
)


def test_no_game_vocabulary_in_the_engine():
    """Nor in the browser table's script and style sheet (fishrules.web.static): it draws every game
    from the rules."""
    hits = []
    for path in sorted(SRC.rglob("*")):
        if path.suffix in (".py", ".lark", ".js", ".css", ".html", ".svg"):
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if VOCABULARY.search(line):
                    hits.append(f"{path.name}:{i}: {line.strip()}")
    assert not hits, "game vocabulary inside the engine:\n" + "\n".join(hits)
