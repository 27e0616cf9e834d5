"""Safe loading of scenario files, with every error located by file, line and field.

YAML is composed into nodes by libyaml's composer (PyYAML's ``CSafeLoader``)
and turned into plain data here.  libyaml is only a speed device: on any
problem at all (a YAML error, a character where the two part or that
PyYAML's reader refuses, nesting past :data:`MAX_DEPTH`, an alias cycle, a forbidden tag),
and wherever libyaml is not installed, the document is composed again by
PyYAML's pure-Python composer, whose messages and line numbers are the ones
reported; for a document both accept they make the same nodes, so the same
data and the same line map (``tests/sim/test_loader_paths.py``).

Only the standard scalar tags are accepted (no tag ever runs code), files
over :data:`MAX_BYTES`, documents nested deeper than :data:`MAX_DEPTH` and
documents that expand past :data:`MAX_NODES` nodes through aliases are
refused before any work, and each mapping key's line is remembered so a
validation error can name it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ValidationError
from yaml.constructor import SafeConstructor

from engine.safety.files import FileProblem, missing, read_bounded
from engine.safety.text import CONTROL, one_line
from sim.contract import AnyRuleset, Problem, get_ruleset
from sim.contract.bases import validate_plain
from sim.outputs import is_replay
from sim.scenario.diagnose import (
    cross_problems_after_repair,
    hint,
    hint_known,
    misspelt,
    one_per_field,
    said_twice,
)
from sim.scenario.slips import FlowSlip, flow_slips
from sim.text.suggest import did_you_mean
from sim.text.values import SHOWN_CHARS, clipped

__all__ = [
    "COLON_HINT",
    "KINDS",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_NODES",
    "REPLAY_HINT",
    "TAB_HINT",
    "UNQUOTE_HINT",
    "CoreDumper",
    "CoreLoader",
    "FileKind",
    "Located",
    "ScenarioError",
    "dump_yaml",
    "error_message",
    "kind_of",
    "line_of",
    "load_scenario",
    "load_scenario_text",
    "located",
    "parse_yaml",
    "quote_hint",
    "read_yaml",
    "refuse_other_kind",
    "validate_data",
    "with_texts",
    "yaml_kind",
]

MAX_BYTES = 2 * 1024 * 1024
MAX_NODES = 200_000
MAX_DEPTH = 100
_DIGITS_SHOWN = 40
"""Longer integers are refused by their length (no field holds one)."""

Path_ = tuple[str | int, ...]
_INT = "tag:yaml.org,2002:int"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_TEXTUAL = {"tag:yaml.org,2002:timestamp"}
_SCALARS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}


@dataclass(frozen=True)
class Located:
    """One problem in a file: ``file:line: field.path: message``."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        # Line 0: the file as a whole (it cannot be read), no line to name.
        where = f"{self.file}:{self.line}" if self.line else self.file
        text = (
            f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        )
        return one_line(text)  # one problem, one line, whatever the file's name or keys hold


class ScenarioError(Exception):
    """A scenario that cannot be used; ``problems`` lists every one found."""

    def __init__(self, problems: list[Located]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))

    def __reduce__(self) -> tuple[type[ScenarioError], tuple[list[Located]]]:
        """Rebuilt from its problems, not its message, when it crosses to another process
        (a worker's error, pickled back to the coordinator)."""
        return ScenarioError, (self.problems,)


class _TooDeep(Exception):
    """Raised by :class:`_Loader` at the first node past :data:`MAX_DEPTH`."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


_BOOL = "tag:yaml.org,2002:bool"


class CoreLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's booleans and numbers.

    YAML 1.1 also reads ``yes``, ``no``, ``on``, ``off`` (``y``, ``n``) as
    booleans, so ``seed: yes`` became seed 1 and a side named ``No`` a
    boolean; here they are text, which a number or true/false field refuses.
    It reads a number with a leading zero as octal (``at: [04, 010]`` was
    ``[4, 8]``, ``strength: 0620`` 400) and ``08`` as text; here every run of
    digits is decimal, as YAML 1.2 has it (``0o17`` is octal, ``0x1F``
    hexadecimal, ``0b110`` binary). And it needs a decimal point in a float
    (``1e3`` was text); here ``1e3`` and ``1.5e3`` are floats.
    """


_FLOAT = "tag:yaml.org,2002:float"
_INT_12 = re.compile(
    r"""^(?:[-+]?[0-9][0-9_]*
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?0o[0-7_]+
    |[-+]?0b[01_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
    re.VERBOSE,
)
"""Integers: decimal digits (a leading zero changes nothing), ``0x``, ``0o``, ``0b``; and
YAML 1.1's ``14:00`` (base 60), which the builder keeps as the text it is meant as."""
_FLOAT_12 = re.compile(
    r"""^(?:[-+]?[0-9][0-9_]*(?:\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[eE][-+]?[0-9]+)
    |[-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.VERBOSE,
)
"""Floats: a decimal point or an exponent (or both), ``.5``, ``.inf``, ``.nan``."""

_VALUE = "tag:yaml.org,2002:value"
"""YAML 1.1's ``=`` (a mapping's "default value" key): plain text in YAML 1.2, and here."""
CoreLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_BOOL, _INT, _FLOAT, _VALUE)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
CoreLoader.add_implicit_resolver(
    _BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
CoreLoader.add_implicit_resolver(_INT, _INT_12, list("-+0123456789"))
CoreLoader.add_implicit_resolver(_FLOAT, _FLOAT_12, list("-+0123456789."))


class CoreDumper(yaml.SafeDumper):
    """PyYAML's safe dumper with :class:`CoreLoader`'s resolvers, so a string the loader
    would read as another type (``'08'``, ``'1e3'``, ``'yes'`` no longer) is quoted: what
    battlesim writes for itself to read again (a calibration's scenario) reads back as
    it was written."""


CoreDumper.yaml_implicit_resolvers = CoreLoader.yaml_implicit_resolvers


def dump_yaml(data: Any, **kwargs: Any) -> str:
    """``data`` as YAML that :func:`parse_yaml` reads back to the same data."""
    return str(yaml.dump(data, Dumper=CoreDumper, **kwargs))


def yaml_int(text: str) -> int:
    """A YAML 1.2 integer's value (``_INT_12``, base 60 aside): decimal digits, ``0x``,
    ``0o`` or ``0b``, with ``_`` allowed between digits."""
    digits = text.replace("_", "")
    sign = -1 if digits.startswith("-") else 1
    digits = digits[1:] if digits[:1] in ("+", "-") else digits  # one sign at most
    if digits[:1] in ("+", "-", ""):
        raise ValueError(f"not an integer: {text!r}")
    base = {"0x": 16, "0o": 8, "0b": 2}.get(digits[:2].lower(), 10)
    return sign * int(digits[2:] if base != 10 else digits, base)


class _Loader(CoreLoader):
    """The core loader, refusing nesting deeper than :data:`MAX_DEPTH`.

    Its composer recurses once per level, so a short file of brackets would
    otherwise end in a RecursionError instead of a located problem.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                event = self.peek_event()  # type: ignore[no-untyped-call]  # untyped in PyYAML's stubs
                raise _TooDeep(event.start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_CSafe: type[Any] | None = getattr(yaml, "CSafeLoader", None)
"""libyaml's safe loader, when PyYAML was built with it."""


def _fast_loader() -> type[Any] | None:
    """The core loader on libyaml's parser and composer; None without libyaml."""
    if _CSafe is None:
        return None

    class _CLoader(_CSafe):  # type: ignore[misc,valid-type]  # PyYAML's C classes are untyped
        """libyaml's composer with the core loader's tag resolution (the resolver is Python)."""

    _CLoader.yaml_implicit_resolvers = CoreLoader.yaml_implicit_resolvers
    return _CLoader


_CLoader = _fast_loader()
_PURE_ONLY = re.compile(r"[\t\ufeff\x85\u2028\u2029]|^[ ]*[^#\s].*\?|[|>][-+0-9]*#", re.MULTILINE)
"""Where libyaml and PyYAML part: a tab, a byte-order mark or a Unicode line break
anywhere, a ``?`` outside a whole-line comment (PyYAML ends a plain scalar in
a flow collection at ``?``, libyaml does not), a block scalar's ``|`` or ``>``
with a ``#`` straight after it (libyaml reads ``>#`` as a comment).  Such texts are composed by
PyYAML alone; scenarios rarely hold one."""
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
"""What PyYAML's own reader refuses: such a text is always composed by it, for its message."""


def _compose_fast(text: str) -> yaml.Node | None:
    """The document composed by libyaml, or None where the pure composer must do it."""
    if _CLoader is None or _PURE_ONLY.search(text) or _NON_PRINTABLE.search(text):
        return None
    try:
        node: yaml.Node | None = yaml.compose(text, Loader=_CLoader)
    except Exception:  # any failure: the pure composer gives the message
        return None
    return node


def _parse_fast(text: str, file: str) -> tuple[Any, dict[Path_, int]] | None:
    """Data and line map from libyaml's nodes; None where the pure path must parse.

    A document libyaml composes is built as it is: the builder follows every
    alias with its own depth and node limits, so a document it builds without
    a problem is one PyYAML's composer (which counts the same levels, aliases
    not followed) would not refuse as too deep, and it would make the same
    nodes.  A problem the builder finds is reported only once PyYAML's
    composer has accepted the document too (else its message is the one).
    """
    node = _compose_fast(text)
    if node is None:
        return None
    builder = _Builder(file, node)
    try:
        return builder.build(node, ()), builder.lines
    except ScenarioError:
        try:
            yaml.compose(text, Loader=_Loader)
        except Exception:  # the pure path reports whatever it is
            return None
        raise


def _past_limits(root: yaml.Node) -> bool:
    """True when building ``root`` must fail: followed through its aliases it holds more
    than :data:`MAX_NODES` values, holds itself, or nests to :data:`MAX_DEPTH` levels
    where a node is first met.

    Each node is counted once (an alias is the node it names), so an alias bomb is
    sized without being expanded; a node is looked at only at the depth it is first
    met, so a document that nests too deep only through a later alias to it is not
    found here (False: it is built node by node, and refused as before).
    """
    # a module-level walk, not a recursive closure (a cycle of the function and its own cell)
    return _size(root, 0, {}, set()) is None


def _size(node: yaml.Node, depth: int, sizes: dict[int, int], open_: set[int]) -> int | None:
    """:func:`_past_limits`' count of ``node``'s values; None past a limit. ``sizes``: each
    node counted so far, by id; ``open_``: the nodes being counted (one met again is a cycle)."""
    if depth >= MAX_DEPTH:
        return None
    key = id(node)
    known = sizes.get(key)
    if known is not None:
        return known
    if key in open_:
        return None
    if isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    elif isinstance(node, yaml.MappingNode):
        children = [part for pair in node.value for part in pair]
    else:
        children = []
    open_.add(key)
    total = 1
    for child in children:
        counted = _size(child, depth + 1, sizes, open_)
        if counted is None:
            return None
        total += counted
        if total > MAX_NODES:
            return None
    open_.discard(key)
    sizes[key] = total
    return total


class Lines(dict[Path_, int]):
    """A file's field → line map, and the text each number was written as (``08``,
    ``1e3``): a message that says to quote a number quotes what the file says."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: dict[Path_, str] = {}


def with_texts(errors: list[Any], lines: dict[Path_, int]) -> list[Any]:
    """``errors`` with each one's number as the file wrote it (``text``), where known."""
    texts: dict[Path_, str] = getattr(lines, "texts", {})
    return [
        {**e, "text": texts[tuple(e["loc"])]} if tuple(e["loc"]) in texts else e for e in errors
    ]


class _Builder:
    """Turns composed YAML nodes into plain data and a path → line map.

    A document that must fail (:func:`_past_limits`: an alias bomb, say) is still
    built node by node in the same order, so the first problem found is the one a
    whole build finds, but a node met again through an alias whose first build raised
    nothing is not built again while it fits in the values and levels left: it would
    raise nothing again (its tags, keys and text are its own), and the document's data
    and line map are never returned.  So a bomb is refused after a few hundred calls,
    not :data:`MAX_NODES`.
    """

    def __init__(self, file: str, root: yaml.Node | None = None) -> None:
        self.file = file
        self.lines: dict[Path_, int] = Lines()
        self.nodes = 0
        self._depth = 0
        self._constructor = SafeConstructor()  # not a loader: a loader is a cycle (its parser
        # state is its own bound method) that kept every node it built alive until a full GC
        self.doomed = root is not None and _past_limits(root)
        """The build must fail: nodes built cleanly once are skipped when met again."""
        self._clean: dict[int, tuple[int, int, Any]] = {}
        """(values, levels below it, value) of each node built without a problem (doomed)."""
        self._reach = 0
        """The deepest level entered so far under the node being built (doomed)."""

    def build(self, node: yaml.Node, path: Path_) -> Any:
        if not self.doomed:
            return self._build(node, path)
        clean = self._clean.get(id(node))
        if clean is not None:
            values, below, value = clean
            if self.nodes + values <= MAX_NODES and self._depth + below < MAX_DEPTH:
                self.nodes += values
                self._reach = max(self._reach, self._depth + below)
                return value
        before, reach, self._reach = self.nodes, self._reach, self._depth
        value = self._build(node, path)
        self._clean[id(node)] = (self.nodes - before, self._reach - self._depth, value)
        self._reach = max(reach, self._reach)
        return value

    def _build(self, node: yaml.Node, path: Path_) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self._error(
                node, path, f"document too large: more than {MAX_NODES} values (alias expansion?)"
            )
        # Aliases can nest a document deeper than the composer saw it.
        if self._depth >= MAX_DEPTH:
            raise self._error(node, path, f"nested deeper than {MAX_DEPTH} levels")
        self.lines.setdefault(path, node.start_mark.line + 1)
        self._depth += 1
        try:
            return self._value(node, path)
        finally:
            self._depth -= 1

    def _value(self, node: yaml.Node, path: Path_) -> Any:
        if isinstance(node, yaml.MappingNode):
            if node.tag != _MAP:
                raise self._error(node, path, f"tag {node.tag!r} is not allowed")
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _SEQ:
                raise self._error(node, path, f"tag {node.tag!r} is not allowed")
            return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
        if node.tag in _TEXTUAL or (node.tag == _INT and ":" in str(node.value)):
            # YAML 1.1 reads 14:00 as a base-60 int and 2024-01-01 as a date:
            # a scenario means the text.
            return str(node.value)
        if node.tag not in _SCALARS:
            raise self._error(node, path, f"tag {node.tag!r} is not allowed")
        digits = str(node.value).lstrip("+-").replace("_", "")
        if node.tag == _INT and len(digits) > _DIGITS_SHOWN:
            # Named by its length: not echoed whole, never Python's int-conversion limit.
            raise self._error(node, path, f"a {len(digits)}-digit number is out of range")
        try:
            if node.tag == _INT:  # YAML 1.2: a leading zero is not octal
                value = yaml_int(str(node.value))
            else:
                value = self._constructor.construct_object(node)
        except (ValueError, KeyError, yaml.YAMLError):
            # An explicit tag on text it cannot read, e.g. ``!!int lots``.
            raise self._error(
                node, path, f"{node.value!r} is not a valid {node.tag.rsplit(':', 1)[-1]}"
            ) from None
        if node.tag in (_INT, _FLOAT) and isinstance(self.lines, Lines):
            self.lines.texts[path] = str(node.value)  # as written: '08', '1e3'
        if isinstance(value, str) and CONTROL.search(value):
            raise self._error(node, path, "control characters are not allowed (only newline, tab)")
        return value

    def _mapping(self, node: yaml.MappingNode, path: Path_) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise self._error(key_node, path, "merge keys ('<<') are not allowed")
            key = self.build(key_node, path)
            if not isinstance(key, str | int):
                raise self._error(key_node, path, "keys must be text")
            key = str(key)
            if key in out:
                raise self._error(key_node, (*path, key), "duplicate key")
            self.lines[(*path, key)] = key_node.start_mark.line + 1
            out[key] = self.build(value_node, (*path, key))
        return out

    def _error(self, node: yaml.Node, path: Path_, message: str) -> ScenarioError:
        field = ".".join(str(p) for p in path)
        return ScenarioError([Located(self.file, node.start_mark.line + 1, field, message)])


TAB_HINT = "a tab: YAML wants spaces to indent, and after a ':' or '-'"
"""What a tab YAML refuses in a file usually is.  The advice on quoting in this module's
messages (this, :data:`COLON_HINT`, :func:`quote_hint`, :data:`UNQUOTE_HINT`) is a file's;
:func:`sim.scenario.values.for_the_shell` says it for a value typed on a command line."""

COLON_HINT = (
    "a 'key:' where none can begin: check this line's indentation, or quote a value that holds ': '"
)
"""What YAML's "mapping values are not allowed here" usually means in a file."""

UNQUOTE_HINT = "write the number without quotes"
"""The advice for a number written in quotes where a number is wanted."""


def quote_hint(written: str) -> str:
    """The advice for a number or true/false where text is wanted: ``quote it ('08')``,
    the value as the file wrote it."""
    return f"quote it ('{written}')"


def _yaml_hint(context: str, problem: str, mark: yaml.Mark | None, where: yaml.Mark | None) -> str:
    """What PyYAML's words usually mean, for its commonest mistakes of layout."""
    line = mark.line + 1 if mark is not None else 1
    if "'\\t'" in problem and "cannot start any token" in problem:
        return f" ({TAB_HINT})"
    if problem == "mapping values are not allowed here":
        return f" ({COLON_HINT})"
    if context.startswith("while parsing a block") and problem.startswith("expected <block end>"):
        block = f"line {where.line + 1}'s" if where is not None else "its"
        if mark is not None and where is not None and mark.column == where.column:
            return (
                f" (line {line} starts where {block} block does, but is the other kind: a "
                "block is all '- ' items or all 'key:' lines)"
            )
        return f" (line {line} is indented as no part of {block} block is: YAML nests by spaces)"
    return ""


def parse_yaml(text: str, file: str) -> tuple[Any, dict[Path_, int]]:
    """Parse YAML text safely into plain data and a field-path → line map.

    Raises:
        ScenarioError: too large, not YAML, a forbidden tag, a duplicate key.
    """
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise ScenarioError([Located(file, 1, "", f"file too large (limit {MAX_BYTES} bytes)")])
    fast = _parse_fast(text, file)
    if fast is not None:
        return fast
    try:
        node = yaml.compose(text, Loader=_Loader)
    except _TooDeep as exc:
        raise ScenarioError(
            [Located(file, exc.line, "", f"nested deeper than {MAX_DEPTH} levels")]
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark is not None else 1
        # PyYAML splits its message: "expected a single document" is the
        # context, "but found another document" the problem.
        where = exc.context_mark
        context = f"{exc.context} (line {where.line + 1}), " if exc.context and where else ""
        hint = _yaml_hint(exc.context or "", exc.problem or "", mark, where)
        raise ScenarioError(
            [Located(file, line, "", f"not valid YAML: {context}{exc.problem}{hint}")]
        ) from None
    except yaml.reader.ReaderError as exc:
        line = text[: exc.position].count("\n") + 1
        char = f" #x{exc.character:04x}" if isinstance(exc.character, int) else ""
        raise ScenarioError(
            [Located(file, line, "", f"not valid YAML: unacceptable character{char}: {exc.reason}")]
        ) from None
    except yaml.YAMLError as exc:
        raise ScenarioError([Located(file, 1, "", f"not valid YAML: {exc}")]) from None
    if node is None:
        raise ScenarioError([Located(file, 1, "", "empty file")])
    builder = _Builder(file, node)
    return builder.build(node, ()), builder.lines


def line_of(lines: dict[Path_, int], path: Path_) -> int:
    """The line of ``path``, or of its nearest ancestor that has one."""
    while path and path not in lines:
        path = path[:-1]
    return lines.get(path, 1)


def located(file: str, lines: dict[Path_, int], path: Path_, message: str) -> Located:
    """A problem at field ``path`` of a file, on that field's line."""
    return Located(file, line_of(lines, path), ".".join(str(p) for p in path), message)


FileKind = Literal["scenario", "campaign", "study", "calibration", "case"]

KINDS: dict[FileKind, tuple[str, str]] = {
    "calibration": ("a calibration file", "run it with 'battlesim calibrate FILE'"),
    "case": (
        "a historical case file",
        "fight it with 'battlesim history --suite FOLDER --case ID' (the folder it is in, its id)",
    ),
    "study": ("a study file", "run it with 'battlesim study FILE'"),
    "campaign": ("a campaign file", "fight it with 'battlesim campaign FILE' (or batch)"),
    "scenario": (
        "a scenario",
        "fight it with 'battlesim run FILE', or study it with 'battlesim batch FILE --runs N'",
    ),
}
"""Each kind of YAML file battlesim reads: what it is, and what to do with it."""
_MARKS: dict[FileKind, tuple[str, ...]] = {
    "calibration": ("trials", "targets", "history"),
    "case": ("measures",),
    "study": ("replications",),
    "campaign": ("battles",),
    "scenario": ("ruleset",),
}
"""A top-level key only that kind of file has (a study's ``campaign`` names one, so
``campaign`` alone marks nothing); calibration first, since it has a study's
``replications``, then a historical case (its ``measures``), then study, since it may
name the others."""
_SHOWN_AT: dict[FileKind, tuple[str, ...]] = {
    "calibration": ("scenario", "history", "trials", "targets"),
    "case": ("measures",),
    "study": ("scenario", "campaign", "replications"),
    "campaign": ("campaign", "battles"),
    "scenario": ("ruleset",),
}
"""The field a wrong-kind message points at: the file's first telling line."""
REPLAY_HINT = (
    "a battlesim replay, not a YAML file: read it with 'battlesim show FILE' "
    "(or verify, report, diff)"
)


def kind_of(data: Any) -> FileKind | None:
    """Which kind of battlesim YAML file ``data`` is, by its top-level keys; None if none."""
    if not isinstance(data, dict):
        return None
    for kind, marks in _MARKS.items():
        if any(key in data for key in marks):
            return kind
    if "campaign" in data and "scenario" not in data:
        return "campaign"  # a campaign whose battles are missing is still a campaign
    if "scenario" in data:
        return "study"
    return None


def yaml_kind(path: str | Path) -> FileKind | None:
    """The kind of battlesim YAML file at ``path`` (None: unreadable, not YAML, or none)."""
    try:
        data, _ = read_yaml(path)
    except ScenarioError:
        return None
    return kind_of(data)


def refuse_other_kind(data: Any, lines: dict[Path_, int], file: str, expected: FileKind) -> None:
    """One plain line when a file of another kind is given where ``expected`` is read.

    Raises:
        ScenarioError: ``data`` is plainly another kind of battlesim file.
    """
    found = kind_of(data)
    if found is None or found == expected:
        return
    key = next(k for k in _SHOWN_AT[found] if k in data)
    what, todo = KINDS[found]
    wanted = KINDS[expected][0]
    message = f"not {wanted}: this is {what}: {todo}"
    raise ScenarioError([located(file, lines, (key,), message)])


def validate_data(data: Any, lines: dict[Path_, int], file: str) -> tuple[AnyRuleset, BaseModel]:
    """Validate parsed data against its ruleset's schema and cross-field checks."""
    if not isinstance(data, dict):
        raise ScenarioError(
            [Located(file, line_of(lines, ()), "", "a scenario is a mapping of fields")]
        )
    if "ruleset" not in data:
        refuse_other_kind(data, lines, file, "scenario")  # a study's key is no misspelling
    typo = _misspelt_ruleset(data)
    if typo is None:
        return _validate(data, lines, file, ("ruleset",))
    # said as every misspelt field is, and the file read with the rule system it names
    said = located(file, lines, (typo,), "unknown field" + did_you_mean(typo, ["ruleset"]))
    meant = {("ruleset" if key == typo else key): value for key, value in data.items()}
    try:
        _validate(meant, lines, file, (typo,))
    except ScenarioError as exc:
        raise ScenarioError(_in_file_order([said, *exc.problems])) from None
    raise ScenarioError([said])


def _misspelt_ruleset(data: dict[str, Any]) -> str | None:
    """The key a file with no ``ruleset:`` wrote it as (``rulset``), if one is close."""
    if "ruleset" in data:
        return None
    return next((key for key in data if did_you_mean(str(key), ["ruleset"])), None)


def _validate(
    data: dict[str, Any], lines: dict[Path_, int], file: str, name_at: Path_
) -> tuple[AnyRuleset, BaseModel]:
    """:func:`validate_data` of a mapping, whose ``ruleset`` the file wrote at ``name_at``."""
    name = data.get("ruleset")
    if name is None:
        refuse_other_kind(data, lines, file, "scenario")
    if not isinstance(name, str):
        what = "missing" if name is None else "not text"
        raise ScenarioError(
            [located(file, lines, name_at, f"{what}: name the rule system, e.g. 'ruleset: musket'")]
        )
    try:
        ruleset = get_ruleset(name)
    except LookupError as exc:
        raise ScenarioError([located(file, lines, name_at, str(exc))]) from None
    model = ruleset.scenario_model
    try:
        scenario = validate_plain(model, data)
    except ValidationError as exc:
        # A required field reported missing beside its misspelling is said once, at the typo.
        typos = set(misspelt(model, exc.errors()).values())
        slips = flow_slips(exc.errors(), data, lines, getattr(lines, "texts", {}))
        lost = {path for slip in slips.values() for path in slip.lost}  # said with their slip
        errors = [e for e in with_texts(exc.errors(), lines) if tuple(e["loc"]) not in typos | lost]
        said = [(tuple(e["loc"]), _said(model, e, slips)) for e in errors]
        found = [located(file, lines, loc, m) for loc, m in one_per_field(model, said)]
        later = cross_problems_after_repair(model, data, exc.errors(), ruleset.cross_check)
        found += [_cross(data, lines, file, p, m) for p, m in later]
        raise ScenarioError(_in_file_order(found)) from None
    problems: list[Problem] = ruleset.cross_check(scenario)
    if problems:
        found = [_cross(data, lines, file, p, m) for p, m in problems]
        raise ScenarioError(_in_file_order(found))
    return ruleset, scenario


def _cross(data: Any, lines: dict[Path_, int], file: str, where: Path_, message: str) -> Located:
    """A cross-field problem at its line, with "did you mean" and an id's first use."""
    return located(file, lines, where, said_twice(data, lines, where, hint_known(message)))


def _said(model: type[BaseModel], err: Any, slips: dict[Path_, FlowSlip]) -> str:
    """A schema error in the loader's words, with "did you mean", or as the slip it is."""
    slip = slips.get(tuple(err["loc"]))
    return slip.message() if slip is not None else hint(model, err, error_message(err))


def _in_file_order(problems: list[Located]) -> list[Located]:
    """``problems`` by their line in the file, as a reader goes through it (those of one line
    in the order found): pydantic reports a model's fields in the model's order, an unknown
    field after them and the cross-field checks last, so an ``options:`` block of three
    errors read bottom to top."""
    return sorted(problems, key=lambda p: p.line)


_PATTERNS = {
    r"^([01]\d|2[0-3]):[0-5]\d$": (
        "is not a clock time: write HH:MM on the 24-hour clock, e.g. '07:00'"
    ),
    r"^[A-Za-z0-9_-]{1,40}$": "is not an id: use 1 to 40 letters, digits, '_' or '-'",
    r"^[a-z0-9_]{1,40}$": "is not an id: use 1 to 40 lower-case letters, digits or '_'",
    r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+){0,9}$": (
        "is not a field path: 1 to 10 names of letters, digits or '_' joined by '.', "
        "e.g. 'result.casualties'"
    ),
    r"^(NM|[FCTMDEH]([1-9]|[1-2][0-9]|3[0-6]))$": (
        "is not a saving-throw class: NM (normal man) or a class letter F, C, T, M, D, E, H "
        "and a level 1-36, e.g. 'F3'"
    ),
}
"""Plain words for the patterns the rulesets' models and the history case files use, instead of
the regular expression."""


_STRICT = {"int_type": "an integer", "float_type": "a number", "bool_type": "true or false"}
"""Strict type errors (:func:`~sim.contract.bases.validate_plain`) and what the field takes."""


_SHAPE = {list: "a list", dict: "a mapping"}
"""What a YAML sequence or mapping is, where a text was wanted."""


_BOUNDS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal"})
"""pydantic's error types for a number outside its bounds, which a NaN fails with."""


def _shown_value(value: Any) -> str:
    """A value as the file would write it: ``true``, ``null``, ``.nan``, ``24.0``, ``'6'``
    (:func:`clipped`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if value != value else (".inf" if value > 0 else "-.inf")  # noqa: PLR0124
    return clipped(repr(value))


_BOUND_WORDS = {
    "greater_than_equal": ("ge", "is less than {}, the least it may be"),
    "greater_than": ("gt", "is not more than {}, as it must be"),
    "less_than_equal": ("le", "is more than {}, the most it may be"),
    "less_than": ("lt", "is not less than {}, as it must be"),
}
"""pydantic's bounds, said with the value: ``100000 is more than 10000, the most it may be``."""


_LIST_WITHOUT_BRACKETS = re.compile(r"^\s*-?\d+(\.\d+)?(\s*,\s*-?\d+(\.\d+)?)+\s*$")
"""Numbers joined by commas (``4, 9``; ``--set …at=99,99``): a hex or a list written
without its brackets, which YAML reads as one text."""


def _plain_message(err: Any) -> str | None:
    """Our words, the value echoed, for the errors a file most often has: a number out of
    its bounds, a choice not among the choices, a text or list too short or too long,
    ``null`` or a list where a mapping is wanted, a number that is not finite; None for
    others (pydantic's own words then)."""
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    shown = clipped(str(err["text"])) if "text" in err else _shown_value(value)
    if kind in _BOUND_WORDS and _BOUND_WORDS[kind][0] in ctx:
        key, words = _BOUND_WORDS[kind]
        bound = ctx[key]
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)  # 0, not 0.0: the bound as a reader writes it
        return f"{shown} {words.format(_shown_value(bound))}"
    if kind in ("literal_error", "enum") and "expected" in ctx:
        return f"{shown} is not one of {ctx['expected']}"
    if kind == "string_too_short" and value == "":
        return "is empty: write it out"
    if kind in ("string_too_short", "string_too_long"):
        least = kind == "string_too_short"
        n = ctx.get("min_length" if least else "max_length")
        if "text" not in err:  # its start alone: its length follows (clipped's counted the quotes)
            said = repr(str(value))
            shown = said if len(said) <= SHOWN_CHARS else f"{said[: SHOWN_CHARS - 1]}…"
        return (
            f"{shown} has {len(str(value)):,} characters: {'at least' if least else 'at most'} {n}"
        )
    if kind in ("too_short", "too_long") and "actual_length" in ctx:
        least = kind == "too_short"
        if isinstance(value, list | tuple) and any(isinstance(v, dict | list) for v in value):
            shown = "the list"  # of mappings or lists: their text says nothing of the count
        n = ctx.get("min_length" if least else "max_length")
        items = "item" if ctx["actual_length"] == 1 else "items"
        return (
            f"{shown} has {ctx['actual_length']} {items}: {'at least' if least else 'at most'} {n}"
        )
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"{shown} is not a mapping of fields"
    if kind in ("list_type", "tuple_type"):
        if isinstance(value, str) and _LIST_WITHOUT_BRACKETS.match(value):
            items = ", ".join(v.strip() for v in value.split(","))
            return f"{shown} is not a list: write it in brackets, [{items}]"
        return f"{shown} is not a list"
    if kind == "finite_number":
        return f"{shown} is not a finite number"
    return None


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _strict_message(err: Any) -> str | None:
    """Plain words for a value of the wrong type; None for other errors."""
    kind, value = err["type"], err.get("input")
    if kind == "string_type" and isinstance(value, bool):
        return (
            f"{_shown_value(value)} is true or false, not text: {quote_hint(_shown_value(value))}"
        )
    if kind == "string_type" and isinstance(value, int | float):
        written = clipped(str(err.get("text", value)))  # as the file wrote it: '08', not 8
        return f"{written} is a number, not text: {quote_hint(written)}"
    if kind == "string_type" and isinstance(value, list | dict):
        return f"{_shown_value(value)} is {_SHAPE[type(value)]}, not text"
    if isinstance(value, float) and value != value and kind in _BOUNDS:  # noqa: PLR0124
        return "NaN is not a number here: write a number"  # pydantic: "should be <= 1000"
    wanted = _STRICT.get(kind)
    if wanted is None:
        return None
    shown = clipped(str(err["text"])) if "text" in err else _shown_value(value)
    if isinstance(value, str):
        if kind == "bool_type":
            return f"{shown} is not true or false (write true or false)"
        if _numeric(value):
            return f"{shown} is text, not {wanted}: {UNQUOTE_HINT}"
        if value.endswith("%") and _numeric(value[:-1]):  # cover: -40%: percent already
            return f"{shown} is not {wanted}: write it without '%' ({value[:-1].strip()})"
    if isinstance(value, bool):
        return f"{shown} is not {wanted}"
    if isinstance(value, float) and kind == "int_type" and value.is_integer():
        return f"{shown} is not an integer: write {int(value)}"
    return f"{shown} is not {wanted}"


def error_message(err: Any) -> str:
    """A pydantic error's message in the loader's words."""
    strict = _strict_message(err) or _plain_message(err)
    if strict is not None:
        return strict
    if err["type"] == "extra_forbidden":
        return "unknown field"
    if err["type"] == "missing":
        return "required field is missing"
    if err["type"] == "string_pattern_mismatch":
        plain = _PATTERNS.get(
            str(err.get("ctx", {}).get("pattern", "")), "has not the expected form"
        )
        return f"{clipped(repr(err.get('input')))} {plain}"
    return str(err["msg"]).removeprefix("Value error, ")


def read_yaml(path: str | Path) -> tuple[Any, dict[Path_, int]]:
    """Read and safely parse a YAML file into plain data and its field → line map.

    Raises:
        ScenarioError: unreadable, too large, not UTF-8 or not safe YAML.
    """
    file = str(path)
    try:
        # Regular files only, read to one byte past the limit: never a FIFO
        # that blocks, nor the whole of an endless or huge file.
        if not Path(path).exists():
            raise FileProblem(missing(path))
        raw = read_bounded(path, MAX_BYTES)
    except FileProblem as exc:
        line = 1 if "too large" in str(exc) else 0
        raise ScenarioError([Located(file, line, "", str(exc))]) from None
    if is_replay(Path(path)):
        raise ScenarioError([Located(file, 1, "", REPLAY_HINT)])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ScenarioError([Located(file, line, "", "not UTF-8 text")]) from None
    return parse_yaml(text, file)


def load_scenario(path: str | Path) -> tuple[AnyRuleset, BaseModel]:
    """Read, parse and validate a scenario file.

    Raises:
        ScenarioError: every problem found, each with file, line and field.
    """
    data, lines = read_yaml(path)
    return _checked(data, lines, str(path))


def load_scenario_text(text: str, file: str) -> tuple[AnyRuleset, BaseModel]:
    """Parse and validate scenario ``text`` as :func:`load_scenario` does a file's, each
    problem named at ``file`` and its line in ``text`` (a ruleset's ``template.yaml``, read as
    a package resource, filled in as ``battlesim new`` fills it).

    Raises:
        ScenarioError: every problem found, each with file, line and field.
    """
    data, lines = parse_yaml(text, file)
    return _checked(data, lines, file)


def _checked(data: Any, lines: dict[Path_, int], file: str) -> tuple[AnyRuleset, BaseModel]:
    ruleset, scenario = validate_data(data, lines, file)
    # a file is held to what a battle already fought (a header, a stored target) is not
    problems: list[Problem] = ruleset.file_check(scenario)
    if problems:
        raise ScenarioError([located(file, lines, p, hint_known(m)) for p, m in problems])
    return ruleset, scenario
