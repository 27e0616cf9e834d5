"""The import rules of docs/architecture.md, held: layers import downwards only, no circles.

Every import statement of every module under ``engine/`` and ``sim/`` is
read (module level and inside functions alike: a lazy import is still a
dependency; only ``if TYPE_CHECKING:`` blocks, which never run, are left out).  A module
belongs to the first layer whose prefix it has.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("engine", ("engine",)),
    ("words and files", ("sim.text", "sim.outputs", "sim._moved", "sim")),
    ("the seam", ("sim.contract", "sim.runner")),
    ("rule systems", ("sim.rulesets", "sim.odds")),
    ("scenario files", ("sim.scenario",)),
    ("replays and their tools", ("sim.replay",)),
    # batch studies: below the flow its methods, then each step of a study in its order (a
    # step imports the steps before it, never a later one), and the conductor on top
    ("batch studies: methods", ("sim.batch.methods",)),
    ("batch studies: inputs", ("sim.batch.inputs",)),
    ("batch studies: design", ("sim.batch.planning",)),
    ("batch studies: execution", ("sim.batch.execution",)),
    ("batch studies: storage", ("sim.batch.storage",)),
    ("batch studies: analysis", ("sim.batch.analysis",)),
    ("batch studies: discovery", ("sim.batch.discovery",)),
    ("batch studies: verification", ("sim.batch.verification",)),
    ("batch studies: charts", ("sim.batch.charts",)),
    ("batch studies: the conductor", ("sim.batch",)),
    ("calibration", ("sim.calibrate",)),
    ("historical cases", ("sim.history",)),
    ("the Python API", ("sim.api",)),
    ("the tools on top", ("sim.cli", "sim.conformance", "sim.__main__")),
]
"""Lowest first: a module may import its own layer and those below it."""

RULESETS = "sim.rulesets"
"""Only the registry's names reach a ruleset: no generic layer imports one."""

ALLOWED = {
    # battlesim 0.1's sim.contract.trusted_* still resolve, with a warning, until 0.4
    ("sim.contract", "sim.rulesets"),
}


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_name(p): p for top in ("engine", "sim") for p in sorted((ROOT / top).rglob("*.py"))}


def _imports(name: str, path: Path) -> Iterator[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in _walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            yield from (f"{base}.{a.name}" for a in node.names)  # a module, or a name in base


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node, less ``if TYPE_CHECKING:`` blocks (names for the type checker only)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and ast.unparse(child.test).endswith("TYPE_CHECKING"):
            yield from (n for orelse in child.orelse for n in _walk(orelse))
            continue
        yield child
        yield from _walk(child)


def _ours(target: str, modules: dict[str, Path]) -> str | None:
    """The module of ours an import names (``from x import y``: y when it is a module)."""
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def _layer(name: str) -> int:
    best = -1, -1
    for k, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best[1]:
                best = k, len(prefix)
    assert best[0] >= 0, f"{name} is in no layer of docs/architecture.md"
    return best[0]


@cache  # the tree is read once for the module's tests (each parse of it ~0.6 CPU s)
def _edges() -> list[tuple[str, str]]:
    modules = _modules()
    edges = set()
    for name, path in modules.items():
        for target in _imports(name, path):
            mine = _ours(target, modules)
            if mine is not None and mine != name:
                edges.add((name, mine))
    return sorted(edges)


def test_every_module_is_in_a_layer() -> None:
    """Each of the 150-odd modules of engine/ and sim/ falls under a layer's prefix."""
    modules = _modules()
    assert len(modules) > 150
    for name in modules:
        _layer(name)


def test_layers_import_only_downwards() -> None:
    """No module imports a higher layer (engine never imports sim; the CLI sits on top)."""
    wrong = [
        f"{a} ({LAYERS[_layer(a)][0]}) imports {b} ({LAYERS[_layer(b)][0]})"
        for a, b in _edges()
        if _layer(b) > _layer(a)
        and not any(a.startswith(x) and b.startswith(y) for x, y in ALLOWED)
    ]
    assert wrong == []


def test_no_generic_layer_imports_a_ruleset() -> None:
    """Tools reach rule systems through the contract's registry, never by importing one."""
    wrong = [
        f"{a} imports {b}"
        for a, b in _edges()
        if b.startswith(RULESETS + ".")
        and not a.startswith(RULESETS)
        and not any(a.startswith(x) and b.startswith(y) for x, y in ALLOWED)
    ]
    assert wrong == []


def test_rule_systems_do_not_import_each_other() -> None:
    """musket, flattop and becmi are independent packages, as a plugin is."""

    def system(m: str) -> str:
        return m.split(".")[2] if m.count(".") >= 2 else ""

    wrong = [
        f"{a} imports {b}"
        for a, b in _edges()
        if a.startswith(RULESETS + ".")
        and b.startswith(RULESETS + ".")
        and "trusted" not in (system(a), system(b))
        and system(a) != system(b)
    ]
    assert wrong == []


def test_no_import_circles() -> None:
    """The module graph is acyclic (lazy imports counted): every layer can be read bottom-up."""
    graph: dict[str, list[str]] = {}
    for a, b in _edges():
        graph.setdefault(a, []).append(b)
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                circles.append([*trail[trail.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert circles == []


def test_no_batch_folder_holds_more_than_a_dozen_modules() -> None:
    """sim/batch/ is in steps: no folder of it holds more than twelve modules (__init__ aside)."""
    folders = [ROOT / "sim/batch", *(p.parent for p in (ROOT / "sim/batch").glob("*/__init__.py"))]
    sizes = {
        f.relative_to(ROOT).as_posix(): len([p for p in f.glob("*.py") if p.name != "__init__.py"])
        for f in folders
    }
    assert len(sizes) > 1
    assert {f: n for f, n in sizes.items() if n > 12} == {}


ROOMS = ("model", "rules", "reading")
"""A ruleset's subpackages, lowest first (docs/architecture.md, *The rulesets*)."""


def test_a_rulesets_rooms_import_only_downwards() -> None:
    """In a ruleset model/ imports nothing of its rules/ or reading/, rules/ nothing of reading/."""

    def room(m: str) -> tuple[str, int]:
        parts = m.split(".")
        at = ROOMS.index(parts[3]) if len(parts) > 3 and parts[3] in ROOMS else -1
        return ".".join(parts[:3]), at

    rooms = [(a, b, room(a), room(b)) for a, b in _edges() if a.startswith(RULESETS + ".")]
    assert any(ra[1] == 0 for _, _, ra, _ in rooms)  # musket's model/ at least is read
    wrong = [
        f"{a} imports {b}"
        for a, b, ra, rb in rooms
        if ra[0] == rb[0] and ra[1] >= 0 and rb[1] > ra[1]
    ]
    assert wrong == []
