"""Large musket odds are written with thousands separators, never in e-notation: a casualty
range of [25,000, 25,000] read ``[2.5e+04, 2.5e+04]`` and a refused span
``[5e+06, 2.5e+07]``."""

from __future__ import annotations

from click.testing import CliRunner

from sim.cli import cli


def _odds(*args: str) -> tuple[int, list[str], str]:
    result = CliRunner().invoke(cli, ["odds", "musket-fire", *args])
    return result.exit_code, result.stdout.splitlines(), result.stderr


def test_a_large_resolution_is_written_in_full_with_separators() -> None:
    """V 1,000,003 at LCV = HCV = 25.5: x = 25,500.0765 exactly, c 25,500 or 25,501; fatigue
    25,500 .. 76,503, mean 2 x 25,500.0765; a battery loses 1,020 guns or one more."""
    code, lines, _ = _odds(
        "--value", "1000003", "--lcv", "25.5", "--hcv", "25.5", "--target-artillery"
    )
    assert code == 0
    assert lines[0] == "effective value 1,000,003.00; casualty value uniform on [25,500, 25,500]"
    assert lines[2].startswith("    25,500     0.923500    0.923500  ")
    assert lines[3].startswith("    25,501     0.076500    1.000000  ")
    assert lines[4].startswith("mean 25,500.1 (exactly 51000153/2000); ")
    assert lines[5] == "fatigue added: 25,500..76,503, mean 51,000.2"
    assert lines[8].startswith("     1,020  ")


def test_a_range_too_wide_to_enumerate_is_named_in_full() -> None:
    code, _, err = _odds("--value", "1e9")
    assert code == 2
    assert (
        "the casualty value spans [5,000,000, 25,000,000]: "
        "more than 2,000 outcomes to enumerate exactly (lower V or HCV)"
    ) in err, err


def test_small_numbers_read_as_before() -> None:
    """Below 1,000 nothing changes: Dana's volley still reads [5.4, 27], mean 16.2."""
    code, lines, _ = _odds("--value", "1800", "--modifier", "-40")
    assert code == 0
    assert lines[0] == "effective value 1,080.00; casualty value uniform on [5.4, 27]"
    assert lines[-2].startswith("mean 16.2 (exactly 81/5); ")
    assert lines[-1] == "fatigue added: 5..81, mean 32.4"
