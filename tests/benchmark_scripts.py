"""The benchmark scripts (benchmarks/*.py are scripts, not a package) loaded as modules for their tests."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_script(name: str) -> ModuleType:
    """benchmarks/<name>.py as the module `benchmarks_<name>`."""
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def run_script(name: str, *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """benchmarks/<name>.py run with `args` in a process of its own, a wide terminal for its tables."""
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{name}.py"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )
