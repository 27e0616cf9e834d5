"""What a replay's event line held as stored, before the reader upcast it."""

from __future__ import annotations

import json
from typing import Any

from engine.comparison.jsondiff import diff
from engine.events import Event
from engine.replayfile.reader import ReplayStream
from sim.replay.header import registry_for

__all__ = ["upcast_made"]


def upcast_made(path: str, seq: int, event: Event | None) -> dict[str, Any] | None:
    """How the line of ``seq`` in ``path`` was upcast into ``event``: ``{"schema_version": the
    version it was stored at, "fields": the paths the upcasters added or changed}``; None when
    it was stored at its class's own version (or there is no such event).

    The file is read again up to that line (``diff`` asks it of its divergent events only).
    """
    if event is None or type(event).model_fields["schema_version"].default == 1:
        return None
    stream = ReplayStream(path, registry_for)
    for line in stream.lines():
        if line.seq != seq:
            continue
        data = {k: v for k, v in json.loads(line.text).items() if k != "h"}
        stored = data.get("schema_version")
        if type(stored) is not int or stored >= event.schema_version:
            return None
        upcast = stream.registry.upcast(event.type, dict(data))
        made = [c.path for c in diff(data, upcast) if c.path != "schema_version"]
        return {"schema_version": stored, "fields": made}
    return None
