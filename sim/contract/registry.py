"""The registry: the ``ruleset:`` key of a scenario file → the installed :class:`Ruleset`.

Built-in rulesets first (:data:`BUILTIN`), then the entry points of the
``battlesim.rulesets`` group; a module is imported on first use only.
"""

from __future__ import annotations

import dataclasses
import re
from importlib import import_module, metadata
from importlib.metadata import entry_points
from typing import Any, Literal, get_args, get_origin

from sim.contract.models import Outcome
from sim.contract.ruleset import Ruleset, _Hooked, ours, place_name, raised_at
from sim.text.grammar import agree, count, one_point
from sim.text.suggest import did_you_mean

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "AnyRuleset",
    "RulesetUnavailable",
    "broken",
    "get_ruleset",
    "given_twice",
    "headline",
    "import_place",
    "load_error",
    "loaded_rulesets",
    "ruleset_names",
]

AnyRuleset = Ruleset[Any, Any]


ENTRY_POINT_GROUP = "battlesim.rulesets"
"""Entry-point group through which a package ships a ruleset (docs/rulesets.md)."""

BUILTIN: dict[str, str] = {
    "musket": "sim.rulesets.musket:RULESET",
    "becmi": "sim.rulesets.becmi:RULESET",
    "flattop": "sim.rulesets.flattop:RULESET",
}
"""The rulesets that come with battlesim, by ``module:attribute``."""

_loaded: dict[str, AnyRuleset] = {}
_broken: dict[str, str] = {}


class RulesetUnavailable(LookupError):
    """An installed ruleset that cannot be loaded: its module fails to import, or its entry
    point names no :class:`Ruleset` of that name.  The message names the ruleset, its entry
    point and the error, in one line."""

    def __init__(self, message: str, located: str | None = None) -> None:
        super().__init__(message)
        self.located = message if located is None else located
        """The message with the file and line of the plugin's where its import failed
        (:func:`import_place`), when its traceback names one: ``check-ruleset`` says it."""

    def __reduce__(self) -> tuple[type[RulesetUnavailable], tuple[str, str]]:
        """Rebuilt with both its lines when it crosses to another process."""
        return RulesetUnavailable, (str(self), self.located)


def headline(ruleset: AnyRuleset, outcome: Outcome, *, reason: bool = True) -> str:
    """One line for an outcome: ``Union wins after 4 turns — <reason>`` (the reason's counts
    worded as shown, :func:`sim.text.grammar.one_point`)."""
    turns = count(outcome.turns, ruleset.turn_name)
    who = agree(outcome.winner_name or "", "wins") if outcome.winner else "Draw"
    said = one_point(outcome.reason)
    return f"{who} after {turns} — {said}" if reason else f"{who} after {turns}"


def _sources() -> dict[str, str]:
    """``name -> module:attribute`` of every ruleset: built in, then entry points."""
    found = dict(BUILTIN)
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        found.setdefault(ep.name, ep.value)
    return found


def _load(name: str, target: str) -> AnyRuleset:
    """Import ``module:attribute`` and return the ruleset it names.

    Raises:
        RulesetUnavailable: the import raised (whatever a plugin's module raises), or the
            attribute is not a :class:`Ruleset` called ``name``.
    """
    module, _, attr = target.partition(":")
    where = f"ruleset {name!r} (entry point {name} = {target})"
    if not attr.strip():  # getattr(module, "") said only "module has no attribute ''"
        raise RulesetUnavailable(
            f"{where} names a module, not its Ruleset: write the entry point as "
            f'{name} = "{module.strip()}:RULESET", the module and the name of its Ruleset value'
        )
    try:
        obj = getattr(import_module(module), attr)
    except Exception as exc:  # a plugin's import may raise anything
        twice = given_twice(exc)
        if twice is not None:
            raise RulesetUnavailable(f"{where} cannot be loaded: {twice}") from exc
        place = import_place(exc, module)
        said = " ".join(str(exc).split()) or "no details"
        if place is not None and isinstance(exc, SyntaxError) and exc.msg:
            said = " ".join(exc.msg.split())  # its "(file.py, line 2)" is said as the place
        at = f" (at {place_name(place[0])}:{place[1]})" if place is not None else ""
        fix = "; fix or reinstall the plugin's package, or uninstall it"
        # every tool says where the import failed (check-ruleset, and the note or refusal of
        # any other: the user can tell the plugin's author the line)
        raise RulesetUnavailable(
            f"{where} cannot be loaded: {type(exc).__name__}: {said}{at}{fix}"
        ) from exc
    if not isinstance(obj, Ruleset):
        raise RulesetUnavailable(
            f"{where} is {type(obj).__name__}, not a Ruleset named {name!r}: point the entry "
            f'point at the module\'s Ruleset value ({name} = "{module}:RULESET")'
        )
    if obj.name != name:
        raise RulesetUnavailable(
            f"{where} is a Ruleset named {obj.name!r}, not a Ruleset named {name!r}: name the "
            f"entry point {obj.name} (the name scenarios give in their ruleset: key)"
        )
    key = _ruleset_key(obj)
    if key is not None:
        raise RulesetUnavailable(f"{where}: its scenario model's {key}")
    fields = _field_problem(obj)
    if fields is not None:
        raise RulesetUnavailable(f"{where}: {fields}")
    return obj


def import_place(exc: BaseException, module: str) -> tuple[str, int] | None:
    """(file, line) where importing ``module`` failed with ``exc``, in the plugin's own code:
    a ``SyntaxError``'s file and line, else the innermost frame of the traceback run by a
    module of the plugin's top-level package (the line of the plugin's that called whatever
    raised: battlesim's, a library's); None when no frame is the plugin's (its module is
    not installed)."""
    # compile() of a string names "<string>": no file to name, so the traceback's line
    file = exc.filename if isinstance(exc, SyntaxError) else None
    if isinstance(exc, SyntaxError) and file and exc.lineno and not file.startswith("<"):
        return file, exc.lineno
    top = module.strip().split(".")[0]
    found = None
    tb = exc.__traceback__
    while tb is not None:
        name, where = tb.tb_frame.f_globals.get("__name__"), tb.tb_frame.f_code.co_filename
        ruleset_own = isinstance(name, str) and (name == top or name.startswith(top + "."))
        if ruleset_own and not ours(where):  # a built-in's import runs through this file too
            found = where, tb.tb_lineno
        tb = tb.tb_next
    return found


_TWICE = re.compile(r"(?:[\w.]+\.)?Ruleset\(\) got multiple values for keyword argument '(\w+)'")
"""Python's words for a keyword a ``Ruleset(...)`` call gives twice."""


def given_twice(exc: BaseException) -> str | None:
    """One line for a ``Ruleset(...)`` call given one field twice, by hand and in the
    mapping spread into it (``version=VERSION`` beside ``**hooks(module)`` of a module whose
    ``__all__`` exports ``VERSION``), naming the field and the call's line; None for any
    other error. Python said only ``Ruleset() got multiple values for keyword argument
    'version'``, naming neither ``hooks`` nor where."""
    found = _TWICE.fullmatch(str(exc)) if isinstance(exc, TypeError) else None
    if found is None:
        return None
    field = found[1]
    return (
        f"Ruleset(...) is given {field!r} twice, by hand and in the mapping spread into it "
        f"(hooks(...) takes {field} or {field.upper()} from a module whose __all__ exports "
        f"it): give it once{raised_at(exc)}"
    )


_OPTIONAL = frozenset(
    {"render_state", "audit", "audit_change", "carry_over", "snapshot_json", "subjects"}
)
"""The hooks a Ruleset may leave as None; every other callable field must be callable."""


def _field_problem(ruleset: AnyRuleset) -> str | None:
    """What is wrong with the ruleset's version or hooks, or None: a version that is not text
    (it failed every ``run`` with a line naming neither the ruleset nor the field, as an
    invalid replay header) or blank, and a hook that cannot be called (``units=None`` failed
    every tool with an error inside battlesim)."""
    version = ruleset.version
    if not isinstance(version, str) or not version.strip():
        shown = (
            f"{version!r} ({type(version).__name__})" if not isinstance(version, str) else "blank"
        )
        return f'its Ruleset.version is {shown}: declare it as text, e.g. version="1"'
    older = ruleset.older_versions
    if not isinstance(older, tuple) or not all(isinstance(v, str) and v.strip() for v in older):
        return f'its Ruleset.older_versions {older!r}: declare each as text, e.g. ("1",)'
    words = ruleset.loss_words
    if not isinstance(words, tuple) or not all(
        isinstance(w, tuple) and len(w) == 2 and all(isinstance(t, str) and t.strip() for t in w)
        for w in words
    ):
        return (
            f"its Ruleset.loss_words {words!r}: declare (kind, words) pairs of text, "
            'e.g. (("men", "men lost"),)'
        )
    for field in dataclasses.fields(ruleset):
        value = getattr(ruleset, field.name)
        value = value.fn if isinstance(value, _Hooked) else value  # the ruleset's own function
        hook = "Callable" in str(field.type)
        if hook and not callable(value) and not (value is None and field.name in _OPTIONAL):
            return (
                f"its Ruleset.{field.name} is {type(value).__name__}, not a function: "
                "give the hook (docs/rulesets.md, 'The contract')"
            )
    return None


def _ruleset_key(ruleset: AnyRuleset) -> str | None:
    """What is wrong with the scenario model's ``ruleset`` field, or None.

    Every tool tells scenarios apart by that field (the schema of all rulesets is
    one union discriminated by it), so it must be ``Literal["<name>"]`` and nothing
    else: one ruleset's model that takes any text, or another's name, breaks
    ``schema`` and ``new`` for every ruleset.
    """
    field = ruleset.scenario_model.model_fields.get("ruleset")
    want = f'Literal["{ruleset.name}"]'
    if field is None:
        return f"has no 'ruleset' field: declare ruleset: {want}"
    if get_origin(field.annotation) is not Literal or get_args(field.annotation) != (ruleset.name,):
        args = get_args(field.annotation)
        shown = (
            f"Literal[{', '.join(repr(a) for a in args)}]"
            if get_origin(field.annotation) is Literal
            else getattr(field.annotation, "__name__", None) or repr(field.annotation)
        )
        return f"'ruleset' field is {shown}: declare it {want}, the ruleset's own name alone"
    return None


def _every_entry_point() -> metadata.EntryPoints:
    """Every installed distribution's entry points, of every group."""
    return metadata.EntryPoints(ep for dist in metadata.distributions() for ep in dist.entry_points)


def _why_not_installed(name: str) -> str:
    """What an installed package may have meant for ``name``: an entry point ``name`` in a
    group spelt nearly as :data:`ENTRY_POINT_GROUP`, or an entry point of another name that
    holds a Ruleset called ``name`` (read only when ``name`` is not found)."""
    import difflib  # noqa: PLC0415  # only on the error path

    every = _every_entry_point()
    near = difflib.get_close_matches(
        ENTRY_POINT_GROUP, [g for g in every.groups if g != ENTRY_POINT_GROUP], n=3, cutoff=0.8
    )
    for group in near:
        if any(ep.name == name for ep in every.select(group=group)):
            return (
                f"; an installed package declares {name} in the entry-point group {group!r}: "
                f"the group is {ENTRY_POINT_GROUP!r}"
            )
    for other, target in _sources().items():
        if other == name:
            continue
        try:
            get_ruleset(other)
        except RulesetUnavailable as exc:
            if f"a Ruleset named {name!r}" in str(exc):
                return (
                    f"; the entry point {other} = {target} holds the Ruleset named {name!r}: "
                    f"name the entry point {name}"
                )
    return ""


def ruleset_names() -> list[str]:
    """Names of the installed rulesets, sorted (nothing is imported)."""
    return sorted(_sources())


def get_ruleset(name: str) -> AnyRuleset:
    """Return the ruleset called ``name``, importing it on first use.

    Raises:
        LookupError: no such ruleset is installed.
        RulesetUnavailable: it is installed but cannot be loaded (the message names its
            entry point and the error).
    """
    if name not in _loaded:
        target = _sources().get(name)
        if target is None:
            names = ruleset_names()
            hint = did_you_mean(name, names) or f"; installed: {', '.join(names)}"
            raise LookupError(f"unknown ruleset {name!r}{hint}{_why_not_installed(name)}")
        _loaded[name] = _load(name, target)
    return _loaded[name]


def loaded_rulesets() -> list[AnyRuleset]:
    """Every installed ruleset that loads, by name; one whose import fails is left out.

    For the tools that read every ruleset (``scenarios``, ``new``'s schema,
    ``schema``, ``odds``): one broken plugin must not take the others down.
    What went wrong is kept for :func:`broken`.
    """
    found = []
    for name in ruleset_names():
        try:
            found.append(get_ruleset(name))
        except RulesetUnavailable as exc:
            _broken[name] = str(exc)
    return found


def load_error(name: str) -> str | None:
    """Why the installed ruleset ``name`` cannot be loaded (one line), or None when it loads."""
    try:
        get_ruleset(name)
    except RulesetUnavailable as exc:
        return str(exc)
    return None


def broken() -> list[str]:
    """One line for each ruleset :func:`loaded_rulesets` had to leave out, by name."""
    return [_broken[name] for name in sorted(_broken)]
