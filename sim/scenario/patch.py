"""A scenario file's own text with some fields set: its comments, sources and layout kept.

``battlesim calibrate`` writes the scenario with its fitted values set
(``calibrated.yaml``). Dumped from the scenario's data it would lose every
comment — the sources a case's scenario cites, the notes beside a unit —
and write every option out at today's default, so that a later change of a
default never reached it. :func:`set_fields` instead edits the file's text:
a value the file holds is replaced where it stands (in a block or a flow
mapping, quoted or not), and a field the file leaves out is added to the
mapping that holds it (``options``, a unit's ``{…}``), or with the mappings
on its way to it when those are left out too. A value the file already holds
(``25`` for 25.0) is left as it is written, so an unchanged line stays byte for
byte. Given a ``mark``, the comment that ends the line of a value changed is kept
behind a note of what the value was — ``hp: 7   # calibrated: hp was 24; rolled``,
where it read ``# rolled`` — so that no comment is left beside a value it no
longer describes; a line without a comment gets none.

It only edits what it can read plainly. A document with an anchor or an
alias (an edit would reach every place that shares the node), a merge key,
a path through a list item it would have to create, or a value that does
not fit on one line gives None, and the caller writes the data instead.
The caller also checks that the edited text reads back as the data it
meant (:func:`sim.calibrate.calibrated.write_calibrated`): this module edits text,
it does not decide what a scenario means.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import yaml

from engine.safety.text import one_line
from sim.scenario.load import CoreDumper, _Loader

__all__ = ["set_fields"]

Keys = tuple[str | int, ...]


def set_fields(text: str, edits: Sequence[tuple[Keys, Any]], mark: str | None = None) -> str | None:
    """``text`` with each field at its keys (mapping keys and list indexes, as
    :func:`sim.batch.inputs.fieldpath.resolve_path` gives them) set to its value, in order;
    None where the text cannot be edited plainly. With ``mark`` (one line: ``calibrated``),
    the comment ending the line of each value changed is kept behind ``mark: <key> was
    <its old text>;`` (:class:`_Notes`)."""
    notes = _Notes(one_line(mark)) if mark is not None else None
    try:
        if any(_shared(event) for event in yaml.parse(text, Loader=_Loader)):
            return None
        for keys, value in edits:
            edited = _set(text, keys, value, notes)
            if edited is None:
                return None
            text = edited
    except (yaml.YAMLError, ValueError, IndexError):  # a layout the edit did not foresee
        return None
    return text


def _shared(event: yaml.Event) -> bool:
    """An alias, or a node with an anchor: what an edit in one place would change elsewhere."""
    return isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None


def _set(text: str, keys: Keys, value: Any, notes: _Notes | None) -> str | None:
    node = yaml.compose(text, Loader=_Loader)
    for i, key in enumerate(keys):
        if isinstance(node, yaml.MappingNode):
            if any(k.tag == "tag:yaml.org,2002:merge" for k, _ in node.value):
                return None
            found = [v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key]
            if not found:
                return _insert(text, node, keys[i:], value)
            node = found[0]
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
            if not 0 <= key < len(node.value):
                return None
            node = node.value[key]
        else:
            return None
    shown = _scalar(value)
    if not isinstance(node, yaml.ScalarNode) or shown is None:
        return None
    if _holds(node, value):
        return text  # as it is written: an unchanged line stays byte for byte
    start, end = node.start_mark.index, node.end_mark.index
    if start == end:  # an empty value (``a:``): nothing to replace where it stands
        return None
    if node.style in ("|", ">"):  # a block scalar ends past its last line break
        return text[:start] + shown + "\n" + text[end:]
    edited = text[:start] + shown + text[end:]
    was = text[start:end]
    if notes is None or _BREAK.search(was):  # a value over several lines: its comment is not
        return edited  # on the line of its end alone
    return notes.put(edited, start + len(shown), _field(keys), was, len(shown) - len(was))


def _holds(node: yaml.ScalarNode, value: Any) -> bool:
    """Whether ``node`` already reads as ``value``: 25 as 25.0, never true as 1 or "1" as 1."""
    held = _Loader("").construct_object(node)
    if isinstance(held, bool) or isinstance(value, bool) or held is None or value is None:
        return held is value
    if isinstance(held, int | float) and isinstance(value, int | float):
        return held == value
    return type(held) is type(value) and bool(held == value)


_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
"""A YAML line break."""


def _field(keys: Keys) -> str:
    """What a note calls the field at ``keys``: its key, with the list indexes after it
    (``hexes.0``)."""
    k = len(keys) - 1
    while k > 0 and isinstance(keys[k], int):
        k -= 1
    return one_line(".".join(str(key) for key in keys[k:]))


class _Notes:
    """The notes put before the comments of changed values' lines: ``# calibrated: hp was 24;
    rolled`` where the line ended ``# rolled``. A second value changed on a line already
    noted joins its note (``ac was 6, hp was 6``)."""

    def __init__(self, mark: str) -> None:
        self.mark = mark
        self.made: dict[str, tuple[list[str], str]] = {}
        """Each comment made, as written: the changes it names and the comment it kept."""

    def put(self, text: str, end: int, field: str, was: str, grown: int) -> str:
        """``text`` with the comment ending the line of the value that ends at ``end`` (its
        text ``grown`` characters longer than ``was``'s) noted; the comment's ``#`` where it
        stood, at least a space after the value; ``text`` as it is where the line has no
        comment."""
        found = _comment(text, end)
        if found is None:
            return text
        gap, start, stop = found
        comment = text[start:stop]
        changes, kept = self.made.get(comment, ([], comment[1:].strip()))
        changes = [*changes, f"{field} was {one_line(was)}"]
        note = f"# {self.mark}: {', '.join(changes)}" + (f"; {kept}" if kept else "")
        self.made[note] = (changes, kept)
        spaces = text[gap:start]
        if spaces.strip(" ") == "":  # spaces only (not a tab): the comment keeps its column
            spaces = " " * max(1, len(spaces) - grown)
        return text[:gap] + spaces + note + text[stop:]


def _comment(text: str, end: int) -> tuple[int, int, int] | None:
    """The comment that ends the line holding index ``end`` of ``text``, as (where the space
    before it starts, where its ``#`` is, where it ends), or None when the line has none:
    what follows the line's last token (the scanner passes over comments, and over a ``#``
    inside quotes as part of its token)."""
    eol = m.start() if (m := _BREAK.search(text, end)) is not None else len(text)
    last = end
    for token in yaml.scan(text, Loader=_Loader):
        at = token.start_mark.index
        if end <= at < eol:
            last = max(last, token.end_mark.index)
        elif at >= eol:
            break
    rest = text[last:eol] if last <= eol else ""
    hash_at = len(rest) - len(rest.lstrip(" \t"))
    if not rest[hash_at:].startswith("#"):
        return None
    return last, last + hash_at, eol


def _insert(text: str, mapping: yaml.MappingNode, keys: Keys, value: Any) -> str | None:
    """``keys[0]`` added to ``mapping``, with the mappings of the rest of ``keys`` in flow
    style (``options: {fire_scale: 0.8}`` where the file has no ``options``)."""
    shown = _scalar(value)
    if shown is None or not all(isinstance(k, str) for k in keys):
        return None
    names = [_scalar(k) for k in keys]
    if any(n is None for n in names):
        return None
    entry = f"{names[-1]}: {shown}"
    for name in reversed(names[:-1]):
        entry = f"{name}: {{{entry}}}"
    start: int = mapping.start_mark.index
    end: int = mapping.end_mark.index
    if mapping.flow_style:  # {a: 1} -> {a: 1, b: 2}; {} -> {b: 2}
        if text[start : start + 1] != "{" or text[end - 1 : end] != "}":
            return None  # a pair in a flow list ([b: 1]) has no braces to add to
        before = text[start + 1 : end - 1].strip()
        comma = "" if not before else " " if before.endswith(",") else ", "
        return text[: end - 1] + comma + entry + text[end - 1 :]
    if not mapping.value:
        return None
    indent: str = " " * mapping.value[0][0].start_mark.column
    last: int = _deepest_last(mapping.value[-1][1]).end_mark.index
    if last > 0 and text[last - 1] == "\n":  # a block value ends at the next line's start
        return text[:last] + indent + entry + "\n" + text[last:]
    eol = text.find("\n", last)
    if eol == -1:
        return text + "\n" + indent + entry + "\n"
    return text[:eol] + "\n" + indent + entry + text[eol:]


def _deepest_last(node: yaml.Node) -> yaml.Node:
    """The node whose end is the end of ``node``'s text: a block collection's end mark is the
    next token's start (perhaps on a later line, indented), so its last item's is taken, down
    to a scalar or a flow collection."""
    while isinstance(node, yaml.MappingNode | yaml.SequenceNode) and not node.flow_style:
        if not node.value:
            break
        last = node.value[-1]
        node = last[1] if isinstance(node, yaml.MappingNode) else last
    return node


def _scalar(value: Any) -> str | None:
    """``value`` as one line of YAML that reads back as it in a block or a flow collection
    (None when it would not fit): written as the one item of a flow list, the emitter quotes
    what a flow context would read otherwise (``a, b`` or ``x: y``)."""
    if value is not None and not isinstance(value, bool | int | float | str):
        return None
    shown = yaml.dump(  # the core schema's quoting: "1e5", "08" stay text, as they read
        [value], Dumper=CoreDumper, default_flow_style=True, allow_unicode=True, width=1 << 30
    )
    if "\n" in shown.rstrip("\n") or not (shown.startswith("[") and shown.endswith("]\n")):
        return None
    return shown[1:-2]
