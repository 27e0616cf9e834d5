"""Write pytest's assertion-rewritten code of every test module once, before the workers start.

Each pytest process rewrites the ``assert`` statements of every test module
and ``conftest.py`` it imports (about 5 CPU seconds for this suite, of the
12 a collection costs) and caches the result beside the source
(``__pycache__/NAME.cpython-311-pytest-VERSION.pyc``, checked against the
source's hash) — unless ``PYTHONDONTWRITEBYTECODE`` is set, as it is on the
machine the suite is measured on: then every xdist worker rewrites every
module again, on every run.  ``make pytest`` runs this first (as it compiles
engine/ and sim/ with ``compileall``), so the cache is written once; pytest
reads it whatever the variable says, and rewrites any module whose source
no longer matches its hash, so a stale entry costs a rewrite, never a wrong
test.

It uses pytest's own rewriting functions, which are not public API: when
they are missing or changed, it says so on one line and writes nothing, and
the workers rewrite as before.

    python tests/assert_cache.py            # every test module under tests/
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATTERNS = ("test_*.py", "*_test.py", "conftest.py")
"""What pytest rewrites here: its default ``python_files`` and every ``conftest.py``."""


def modules(folder: Path) -> list[Path]:
    """The files under ``folder`` whose imports pytest rewrites."""
    found = {p for pattern in PATTERNS for p in folder.rglob(pattern)}
    return sorted(p for p in found if "__pycache__" not in p.parts)


def write(folder: Path) -> int:
    """Rewrite and cache every module under ``folder`` whose cache is missing or stale;
    return how many were written."""
    from _pytest.assertion import rewrite  # pytest's internals, on purpose

    written = 0
    for path in modules(folder):
        pyc = rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(path, pyc) is not None:
            continue  # cached, and its hash matches the source
        source = path.read_bytes()
        tree = ast.parse(source, filename=str(path))
        rewrite.rewrite_asserts(tree, source, str(path), None)
        code = compile(tree, str(path), "exec", dont_inherit=True)
        pyc.parent.mkdir(exist_ok=True)
        partial = pyc.with_name(f"{pyc.name}.{os.getpid()}")
        with partial.open("wb") as out:
            rewrite._write_pyc_fp(out, importlib.util.source_hash(source), code)
        partial.replace(pyc)  # atomic: a worker reading it sees all of it or none
        written += 1
    return written


def main() -> int:
    """Write the cache for tests/; never fail ``make test`` over it."""
    try:
        write(ROOT / "tests")
    except (ImportError, AttributeError, TypeError, OSError) as exc:
        print(f"assert_cache: nothing written ({type(exc).__name__}: {exc})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
