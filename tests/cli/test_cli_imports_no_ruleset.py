"""The command line imports no ruleset: it sees rulesets only through the contract's registry."""

from __future__ import annotations

import ast
from pathlib import Path

from sim._moved import new_name

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "sim" / "cli"


def _imported(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) of every import statement of a module of ``package``, at any depth.

    Relative imports are resolved; ``from a import b`` counts as both ``a`` and
    ``a.b`` (``b`` may be a module).
    """
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            parts = [*base, node.module] if node.level else [node.module or ""]
            module = ".".join(p for p in parts if p)
            out.append((node.lineno, module))
            out += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return out


def _package(path: Path) -> str:
    """The package a file's module is in: ``sim/cli/rulesets/odds.py`` -> ``sim.cli.rulesets``."""
    return ".".join(path.relative_to(REPO).parts[:-1])


def _is_ruleset(module: str) -> bool:
    """Whether a module is a ruleset's, under its own name or an old one (``sim.musket``)."""
    name = new_name(module) or module
    return name == "sim.rulesets" or name.startswith("sim.rulesets.")


def test_no_cli_module_imports_a_ruleset() -> None:
    """No module under sim/cli/ imports sim.rulesets, at module level or inside a function."""
    files = sorted(CLI.rglob("*.py"))
    assert len(files) >= 10
    found = [
        f"{path.relative_to(REPO)}:{line}: {module}"
        for path in files
        for line, module in _imported(path.read_text(encoding="utf-8"), _package(path))
        if _is_ruleset(module)
    ]
    assert found == []


def test_the_scan_sees_imports_inside_functions_and_relative_ones() -> None:
    """The scan finds `from sim.rulesets...`, `from sim import rulesets`, old and relative paths."""
    source = (
        "def f():\n    from sim.rulesets.musket.reading import odds\n"
        "from sim import rulesets\nimport sim.becmi.odds\nfrom ..rulesets import trusted\n"
        "from sim.contract import get_ruleset\nimport sim.cli.common\n"
    )
    found = sorted(line for line, module in _imported(source, "sim.cli") if _is_ruleset(module))
    assert found == [2, 2, 3, 4, 5, 5]
