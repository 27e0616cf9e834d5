"""tests/assert_cache.py writes what pytest's own hook would, where pytest reads it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from tests import assert_cache

ROOT = Path(__file__).resolve().parent.parent


def test_the_cache_holds_the_code_pytest_rewrites_and_goes_stale_with_its_source(
    tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    """A test module's cached code is the code pytest's hook makes of it with this run's
    config; a helper module is left alone; a second pass writes nothing; a changed source
    no longer reads its cache (pytest rewrites it) and the next pass writes it again."""
    folder = tmp_path / "tests"
    folder.mkdir()
    module = folder / "test_layers.py"
    shutil.copy(ROOT / "tests" / "test_layers.py", module)  # any test module with asserts
    (folder / "helper.py").write_text("assert True\n", encoding="utf-8")
    assert assert_cache.write(folder) == 1
    pyc = rewrite.get_cache_dir(module) / (module.name[:-3] + rewrite.PYC_TAIL)
    cached = rewrite._read_pyc(module, pyc)
    _hash, made = rewrite._rewrite_test(module, pytestconfig)
    assert cached is not None and cached == made
    assert cached.co_filename == made.co_filename == str(module)
    assert sorted(p.name for p in pyc.parent.iterdir()) == [pyc.name]
    assert assert_cache.write(folder) == 0
    module.write_text(module.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    assert rewrite._read_pyc(module, pyc) is None
    assert assert_cache.write(folder) == 1
