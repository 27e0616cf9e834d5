"""Seeds of a study's runs, spawned from the study seed by a documented scheme.

Scheme ``battlesim-batch/1`` (docs/batch.md):

* A run is ``(design point p, replication r)``, both counted from 0.
* Its seed is the first 8 bytes, big-endian, shifted right by one bit (so it
  fits a scenario's 63-bit ``seed``), of
  ``SHA-256("battlesim-batch/1" NUL study_seed NUL p NUL r)`` with the numbers
  in decimal.
* With common random numbers (``--crn``) ``p`` is written as ``*``: the
  seed depends on the replication only, so replication r of every design
  point draws the same random streams and points can be compared in pairs.
* Battle k of a campaign run (k from 0) is fought with
  :func:`battle_seed` — the same hash of ``("campaign", run_seed, k)``.
* The Latin hypercube of a study is drawn with numpy's ``default_rng`` seeded
  by :func:`derived_seed` ``(study_seed, "lhs")``.

A run and its seed travel together as a :class:`RunSpec`.

Each seed depends only on those numbers, never on the worker, the executor
or the order in which runs complete; any language can recompute it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Final

__all__ = ["DOMAIN", "RunSpec", "battle_seed", "derived_seed", "run_seed"]

DOMAIN: Final = "battlesim-batch/1"


def derived_seed(*parts: str | int) -> int:
    """A 63-bit seed from SHA-256 of the domain and ``parts``, NUL-separated."""
    text = "\0".join([DOMAIN, *(str(p) for p in parts)])
    block = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(block[:8], "big") >> 1


def run_seed(study_seed: int, point: int, replication: int, crn: bool = False) -> int:
    """The seed of run ``(point, replication)``; with ``crn`` the same for every point."""
    return derived_seed(study_seed, "*" if crn else point, replication)


def battle_seed(campaign_seed: int, battle: int) -> int:
    """The seed of battle ``battle`` (0-based) of a campaign fought with ``campaign_seed``."""
    return derived_seed("campaign", campaign_seed, battle)


@dataclass(frozen=True)
class RunSpec:
    """One run: its id, design point, replication and seed, and whether to keep its replay."""

    run_id: int
    point: int
    replication: int
    seed: int
    keep_replay: bool = False
