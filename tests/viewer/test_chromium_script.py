"""``.ci/chromium``, which ``make test`` runs first: what it does where it installs nothing.

Its installing branch (root, apt-get, no Chromium) is what ``.ci/run`` exercises on a clean CI
machine; here it runs with a PATH that holds neither a Chromium nor apt-get, or with
``$BATTLESIM_CHROMIUM`` set, so it never installs.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "chromium"
BASH = "/bin/bash"


def _run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The script under bash, with an empty folder as its whole PATH."""
    clean = {k: v for k, v in os.environ.items() if k != "BATTLESIM_CHROMIUM"}
    clean.update(PATH=str(tmp_path), **env)
    return subprocess.run(
        [BASH, str(SCRIPT), *args], env=clean, capture_output=True, text=True, check=False
    )


def test_a_chromium_named_by_the_variable_is_enough(tmp_path: Path) -> None:
    done = _run(tmp_path, "--required", BATTLESIM_CHROMIUM="/opt/some/chrome")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_chromium_on_path_is_enough(tmp_path: Path) -> None:
    browser = tmp_path / "chromium-browser"
    browser.write_text("#!/bin/sh\n", encoding="utf-8")
    browser.chmod(0o755)
    done = _run(tmp_path, "--required")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_without_one_make_test_is_told_in_one_line_and_goes_on(tmp_path: Path) -> None:
    done = _run(tmp_path)
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "make: no Chromium here: the viewer's browser tests will skip "
        "(install the chromium package, or set BATTLESIM_CHROMIUM to a Chromium)"
    ]


def test_without_one_ci_fails(tmp_path: Path) -> None:
    done = _run(tmp_path, "--required")
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1


def test_an_install_that_fails_shows_apt_s_last_words_and_goes_on(tmp_path: Path) -> None:
    """As root with an apt-get that fails (a stand-in here), its last lines of stderr and one
    line of ours; without root, the one line that says the tests will skip."""
    apt = tmp_path / "apt-get"
    apt.write_text("#!/bin/bash\necho 'E: Unable to locate package chromium' >&2\nexit 100\n")
    apt.chmod(0o755)
    done = _run(tmp_path)
    assert done.returncode == 0
    if os.geteuid() == 0:
        assert done.stderr.splitlines() == [
            "make: installing Chromium for the viewer's browser tests (apt-get install chromium)",
            "E: Unable to locate package chromium",
            "make: apt-get could not install chromium: the viewer's browser tests will skip",
        ]
    else:
        assert "the viewer's browser tests will skip" in done.stderr
    assert _run(tmp_path, "--required").returncode == 1
