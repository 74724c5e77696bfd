"""``bench/api_instr.py`` counts what the code between two toggles executes, under callgrind:
twice the work, twice the count; nothing outside the toggles; the same count again."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bench.api_instr import relaunch

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    from bench.api_instr import ENV_HELPER, ENV_OUT, Counter

    counter = Counter(os.environ[ENV_HELPER], os.environ[ENV_OUT])

    def work(n):
        total = 0
        for i in range(n):
            total += i
        return total

    counter.instrument(True)
    counter.take("start")
    figures = []
    for n in (20_000, 20_000, 40_000, 20_000):  # (the first: what warms up, left out)
        work(50_000)  # not counted
        counter.toggle()
        work(n)
        counter.toggle()
        figures.append(counter.take(str(n)))
    print(*figures)
""")


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("cc") is None,
                    reason="valgrind and a C compiler (Debian's valgrind and gcc packages)")
def test_the_count_is_what_runs_between_the_toggles(tmp_path, capfd):
    script = tmp_path / "count.py"
    script.write_text(SCRIPT.format(root=str(ROOT)))
    assert relaunch([], script) == 0
    one, two, again = map(int, capfd.readouterr().out.split()[-3:])
    assert one > 1_000_000  # (a loop of 20,000 steps: some 400 instructions each)
    assert 1.9 < two / one < 2.1
    assert abs(again - one) / one < 0.01


def test_natively_the_script_runs_itself_under_valgrind(monkeypatch):
    """Run directly, the script hands itself to valgrind with its own arguments."""
    seen = {}

    def run(command, env=None, **kwargs):
        seen["command"], seen["env"] = command, env
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(shutil, "which", lambda tool: f"/usr/bin/{tool}")
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: (
        subprocess.CompletedProcess(command, 0) if command[0] == "cc" else run(command, **kw)))
    assert relaunch(["--moves", "5"]) == 0
    command = seen["command"]
    assert command[:2] == ["valgrind", "--tool=callgrind"]
    assert "--instr-atstart=no" in command and "--collect-atstart=no" in command
    assert command[-4:] == [sys.executable, str(ROOT / "bench" / "api_instr.py"), "--moves", "5"]
    assert seen["env"]["PYTHONHASHSEED"] == "0"


class _Toggles:
    """A stand-in for the helper: how often the count was switched, and a count to take."""

    def __init__(self):
        self.toggles = 0
        self.counts = []

    def toggle(self):
        self.toggles += 1

    def take(self, label):
        return self.counts.pop(0) if self.counts else 0


def test_within_counts_one_function_during_the_counted_requests_only(monkeypatch):
    """``--within``: the function is replaced where its callers look it up; the count is
    switched on around its outermost calls made while a counted request runs, not around the
    others, nor around its calls from itself."""
    import types

    from bench.api_instr import Within

    module = types.ModuleType("fake_target")

    def walk(n):
        return 0 if n == 0 else 1 + module.walk(n - 1)  # (looked up as its callers do)

    module.walk = walk
    monkeypatch.setitem(sys.modules, "fake_target", module)
    toggles = _Toggles()
    within = Within("fake_target:walk", toggles)
    assert module.walk is not walk and module.walk.__wrapped__ is walk
    assert module.walk(3) == 3 and toggles.toggles == 0 and within.calls == 0  # not counting
    within.active = True
    assert module.walk(3) == 3
    assert toggles.toggles == 2 and within.calls == 1  # on and off once, however deep
    within.active = False
    toggles.counts = [0, 200 * 1234]
    within.calibrate(200)
    assert within.overhead == 1234 and within.calls == 1 and not within.active
    with pytest.raises(SystemExit):
        Within("fake_target", toggles)
