"""Reading a replay and the tools on it.

:mod:`~sim.replay.header` makes a battle's header and fights it again from
one; :mod:`~sim.replay.file` reads a replay as a stream (:class:`ReplayFile`),
:mod:`~sim.replay.memory` holds one in a list (:class:`LoadedReplay`);
:mod:`~sim.replay.verify` audits it; :mod:`~sim.replay.analysis` (narrative,
why, rows), :mod:`~sim.replay.diff`, :mod:`~sim.replay.fork`,
:mod:`~sim.replay.report` and :mod:`~sim.replay.viewer` are the tools.
"""
