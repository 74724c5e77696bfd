"""The engine is a library: importing it must not import Django."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_engine_imports_without_django():
    code = (
        "import sys\n"
        "import games.engine, games.engine.mascarade\n"
        "from games.engine import get_game\n"
        "assert get_game('mascarade') is games.engine.mascarade.MASCARADE\n"
        "assert isinstance(games.engine.mascarade.MASCARADE, games.engine.Game)\n"
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "assert not loaded, loaded\n"
        "print('ok')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"
