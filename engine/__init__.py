"""battlesim's event-sourced core: events, log, random streams, kernel, replay.

It knows nothing of battles; rulesets in :mod:`sim` build on it.
"""

from engine.canonical import canonical_json, digest
from engine.comparison.replay import Mismatch, VerifyResult, first_mismatch, verify
from engine.events import Draw, Event, EventRegistry, TurnEnded, UnknownEventType
from engine.kernel import TurnKernel
from engine.log import EventLog, FileSink, Footer, Header, MemorySink, Sink
from engine.projection import OutOfOrder, Projection, fold
from engine.recorder import Recorder
from engine.replayfile.reader import Replay, ReplayError, read_replay
from engine.rng import Stream, Streams, stream_name
from engine.version import ENGINE_VERSION, FORMAT_VERSION

__all__ = [
    "ENGINE_VERSION",
    "FORMAT_VERSION",
    "Draw",
    "Event",
    "EventLog",
    "EventRegistry",
    "FileSink",
    "Footer",
    "Header",
    "MemorySink",
    "Mismatch",
    "OutOfOrder",
    "Projection",
    "Recorder",
    "Replay",
    "ReplayError",
    "Sink",
    "Stream",
    "Streams",
    "TurnEnded",
    "TurnKernel",
    "UnknownEventType",
    "VerifyResult",
    "canonical_json",
    "digest",
    "first_mismatch",
    "fold",
    "read_replay",
    "stream_name",
    "verify",
]
