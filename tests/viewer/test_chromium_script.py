"""``.ci/chromium``, which ``make test`` runs before the tests (``.ci/run`` with ``--required``).

Each test runs it with a PATH of one temporary folder holding stand-ins: ``id`` (to be root
or not), ``apt-get`` (which logs how it was called and installs a stand-in
``chromium-headless-shell``, or fails, or installs nothing) and Chromiums. No test can reach
the real apt-get.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.viewer.browser import NAMES, chromium_path

SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "chromium"
SKIPS = "the viewer's browser tests will skip"
CANNOT = "the viewer's browser tests cannot run (--required)"
"""How each line ends: without ``--required``, and with it."""


def _skip(outcome: str = SKIPS) -> str:
    return (
        f"make: no Chromium here: {outcome} (install the chromium-headless-shell package, "
        "or set BATTLESIM_CHROMIUM to a Chromium)"
    )


SKIP = _skip()
INSTALLING = (
    "make: installing Chromium for the viewer's browser tests "
    "(apt-get install chromium-headless-shell)"
)
NOT_INSTALLED = f"make: apt-get did not install a Chromium: {SKIPS}"
NOT_INSTALLED_REQUIRED = f"make: apt-get did not install a Chromium: {CANNOT}"


def _tool(folder: Path, name: str, body: str, mode: int = 0o755) -> Path:
    path = folder / name
    path.write_text(f"#!/bin/bash\n{body}\n", encoding="utf-8")
    path.chmod(mode)
    return path


def _bin(tmp_path: Path, uid: int | None = None, apt: str | None = None) -> Path:
    """The folder that is the whole PATH: an ``id -u`` that says ``uid``; an ``apt-get`` that
    logs ``$DEBIAN_FRONTEND $*`` to ``apt.log`` and then runs ``apt``."""
    folder = tmp_path / "bin"
    folder.mkdir()
    if uid is not None:
        _tool(folder, "id", f"echo {uid}")
    if apt is not None:
        log = tmp_path / "apt.log"
        _tool(folder, "apt-get", f'echo "$DEBIAN_FRONTEND $*" >> {log}\n{apt}')
    return folder


def _run(path: Path, *args: str, **env: str) -> tuple[int, str, list[str]]:
    clean = {k: v for k, v in os.environ.items() if k != "BATTLESIM_CHROMIUM"}
    clean.update(PATH=str(path), **env)
    done = subprocess.run(
        ["/bin/bash", str(SCRIPT), *args], env=clean, capture_output=True, text=True, check=False
    )
    return done.returncode, done.stdout, done.stderr.splitlines()


def _apt_calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "apt.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


INSTALLS = (
    'if [ "$1" = install ]; then printf "#!/bin/sh\\n" > "${0%/*}/chromium-headless-shell"; '
    'command -p chmod +x "${0%/*}/chromium-headless-shell"; fi'
)
"""What the stand-in apt-get does besides logging: ``install`` puts a
``chromium-headless-shell`` beside it (``command -p``: the system's chmod, the stand-ins' PATH
having none)."""


def test_the_script_looks_for_the_names_the_tests_look_for() -> None:
    loop = re.search(r"for name in ([^;]+); do", SCRIPT.read_text(encoding="utf-8"))
    assert loop is not None and tuple(loop.group(1).split()) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_an_executable_chromium_on_path_is_enough(tmp_path: Path, name: str) -> None:
    folder = _bin(tmp_path, uid=0, apt=INSTALLS)
    _tool(folder, name, "")
    assert _run(folder, "--required") == (0, "", [])
    assert _apt_calls(tmp_path) == []


def test_a_chromium_that_is_not_executable_is_not_one(tmp_path: Path) -> None:
    folder = _bin(tmp_path, uid=1000)
    _tool(folder, "chromium", "", mode=0o644)
    assert _run(folder) == (0, "", [SKIP])
    assert _run(folder, "--required") == (1, "", [_skip(CANNOT)])


def test_the_variable_names_an_executable_file_or_nothing(tmp_path: Path) -> None:
    folder = _bin(tmp_path, uid=0, apt=INSTALLS)
    chrome = _tool(tmp_path, "chrome", "")
    assert _run(folder, "--required", BATTLESIM_CHROMIUM=str(chrome)) == (0, "", [])
    not_executable = _tool(tmp_path, "plain", "", mode=0o644)
    for named in (tmp_path / "no-such-chrome", not_executable, tmp_path):  # tmp_path: a folder
        said = f"make: BATTLESIM_CHROMIUM={named} is not an executable file: "
        assert _run(folder, BATTLESIM_CHROMIUM=str(named)) == (0, "", [said + SKIPS])
        required = _run(folder, "--required", BATTLESIM_CHROMIUM=str(named))
        assert required == (1, "", [said + CANNOT])
    assert _apt_calls(tmp_path) == [], "a Chromium the user named is never installed over"


def test_the_tests_read_the_variable_as_the_script_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chrome = _tool(tmp_path, "chrome", "")
    monkeypatch.setenv("BATTLESIM_CHROMIUM", str(chrome))
    assert chromium_path() == str(chrome)
    chrome.chmod(0o644)
    assert chromium_path() is None
    monkeypatch.setenv("BATTLESIM_CHROMIUM", str(tmp_path))  # a folder
    assert chromium_path() is None


def test_the_tests_take_the_headless_shell_before_a_full_chromium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in reversed(NAMES):
        _tool(folder, name, "")
    monkeypatch.delenv("BATTLESIM_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(folder))
    assert chromium_path() == str(folder / "chromium-headless-shell")
    (folder / "chromium-headless-shell").unlink()
    assert chromium_path() == str(folder / "chromium")


@pytest.mark.parametrize("uid", [1000, 1, 501, None])  # None: no `id` on PATH
def test_not_root_it_installs_nothing_and_says_so_in_one_line(
    tmp_path: Path, uid: int | None
) -> None:
    folder = _bin(tmp_path, uid=uid, apt=INSTALLS)
    assert _run(folder) == (0, "", [SKIP])
    assert _run(folder, "--required") == (1, "", [_skip(CANNOT)])
    assert _apt_calls(tmp_path) == []


def test_without_apt_get_it_says_so_in_one_line(tmp_path: Path) -> None:
    folder = _bin(tmp_path, uid=0)
    assert _run(folder) == (0, "", [SKIP])
    assert _run(folder, "--required") == (1, "", [_skip(CANNOT)])


def test_as_root_with_apt_get_it_installs_the_package(tmp_path: Path) -> None:
    folder = _bin(tmp_path, uid=0, apt=INSTALLS)
    assert _run(folder, "--required") == (0, "", [INSTALLING])
    assert _apt_calls(tmp_path) == [
        "noninteractive update -qq",
        "noninteractive install -y -qq chromium-headless-shell",
    ]
    assert (folder / "chromium-headless-shell").exists()
    assert _run(folder, "--required") == (0, "", []), "found the second time"
    assert len(_apt_calls(tmp_path)) == 2


def test_an_apt_get_that_succeeds_without_a_chromium_is_not_believed(tmp_path: Path) -> None:
    folder = _bin(tmp_path, uid=0, apt="exit 0")
    assert _run(folder) == (0, "", [INSTALLING, NOT_INSTALLED])
    assert _run(folder, "--required") == (1, "", [INSTALLING, NOT_INSTALLED_REQUIRED])


def test_a_failed_install_shows_apt_s_last_five_lines(tmp_path: Path) -> None:
    words = [f"E: line {i}" for i in range(1, 8)]
    chatter = "echo 'Reading package lists...'\n"  # apt's stdout: never shown
    body = chatter + "".join(f"echo '{w}' >&2\n" for w in words) + chatter + "exit 100"
    folder = _bin(tmp_path, uid=0, apt=body)
    assert _run(folder) == (0, "", [INSTALLING, *words[-5:], NOT_INSTALLED])
    assert _apt_calls(tmp_path) == ["noninteractive update -qq"], "install only after update"


def test_a_failed_install_that_said_nothing_adds_no_blank_line(tmp_path: Path) -> None:
    folder = _bin(tmp_path, uid=0, apt="exit 100")
    assert _run(folder, "--required") == (1, "", [INSTALLING, NOT_INSTALLED_REQUIRED])


def test_where_apt_has_no_headless_shell_it_installs_chromium(tmp_path: Path) -> None:
    """Debian releases before the headless shell was packaged: ``chromium`` instead."""
    no_shell = (
        'if [ "$4" = chromium-headless-shell ]; then\n'
        "  echo 'E: Unable to locate package chromium-headless-shell' >&2; exit 100\nfi\n"
        'if [ "$1" = install ]; then printf "#!/bin/sh\\n" > "${0%/*}/$4"; '
        'command -p chmod +x "${0%/*}/$4"; fi'
    )
    folder = _bin(tmp_path, uid=0, apt=no_shell)
    assert _run(folder, "--required") == (0, "", [INSTALLING])
    assert _apt_calls(tmp_path) == [
        "noninteractive update -qq",
        "noninteractive install -y -qq chromium-headless-shell",
        "noninteractive install -y -qq chromium",
    ]
    assert (folder / "chromium").exists()
    assert not (folder / "chromium-headless-shell").exists()


def test_where_neither_installs_the_last_failure_is_shown(tmp_path: Path) -> None:
    fails = 'echo "E: no $4" >&2; [ "$1" = update ]'
    folder = _bin(tmp_path, uid=0, apt=fails)
    assert _run(folder) == (0, "", [INSTALLING, "E: no chromium", NOT_INSTALLED])
