"""Counted nouns in the current language: ``1 plane`` / ``4 planes`` (Chinese ``4 个平面``), never ``plane(s)``.

A message that counts more than one thing takes each count as its own piece (``{planes}``), so each noun gets its
own singular and plural (``core.i18n.ngettext``); tests/test_units.py forbids ``(s)`` in new messages.
"""

from __future__ import annotations

from core.i18n import ngettext


def _count(n: int) -> str:
    return f"{n:,}"


def planes(n: int) -> str:
    """``1 plane`` / ``2 planes``."""
    return ngettext("{count} plane", "{count} planes", n).format(count=_count(n))


def nodes(n: int) -> str:
    """``1 node`` / ``128 nodes``."""
    return ngettext("{count} node", "{count} nodes", n).format(count=_count(n))


def rails(n: int) -> str:
    """``1 rail`` / ``8 rails``."""
    return ngettext("{count} rail", "{count} rails", n).format(count=_count(n))


def tiers(n: int) -> str:
    """``1 tier`` / ``3 tiers`` (of switches)."""
    return ngettext("{count} tier", "{count} tiers", n).format(count=_count(n))


def switches(n: int) -> str:
    """``1 switch`` / ``32 switches``."""
    return ngettext("{count} switch", "{count} switches", n).format(count=_count(n))


def compute_racks(n: int) -> str:
    """``1 compute rack`` / ``24 compute racks``."""
    return ngettext("{count} compute rack", "{count} compute racks", n).format(count=_count(n))


def other_racks(n: int) -> str:
    """``1 other rack`` / ``8 other racks`` (network, storage and management racks)."""
    return ngettext("{count} other rack", "{count} other racks", n).format(count=_count(n))


def links(n: int) -> str:
    """``1 link`` / ``4 links``."""
    return ngettext("{count} link", "{count} links", n).format(count=_count(n))


def transceivers(n: int) -> str:
    """``1 transceiver`` / ``4 transceivers`` (optical modules; Chinese counts them with 个, links with 条)."""
    return ngettext("{count} transceiver", "{count} transceivers", n).format(count=_count(n))


def scalable_units(n: int) -> str:
    """``1 scalable unit`` / ``4 scalable units``."""
    return ngettext("{count} scalable unit", "{count} scalable units", n).format(count=_count(n))


def ports(n: int) -> str:
    """``1 port`` / ``2 ports``."""
    return ngettext("{count} port", "{count} ports", n).format(count=_count(n))


def micro_batches(n: int) -> str:
    """``1 micro-batch`` / ``8 micro-batches``."""
    return ngettext("{count} micro-batch", "{count} micro-batches", n).format(count=_count(n))


def algorithms(n: int) -> str:
    """``1 algorithm`` / ``3 algorithms`` (a simulator's collective algorithms)."""
    return ngettext("{count} algorithm", "{count} algorithms", n).format(count=_count(n))


def instances(n: int) -> str:
    """``1 instance`` / ``4 instances`` (a served model's replicas)."""
    return ngettext("{count} instance", "{count} instances", n).format(count=_count(n))


def simulator_processes(n: int) -> str:
    """``1 simulator process`` / ``8 simulator processes``."""
    return ngettext("{count} simulator process", "{count} simulator processes", n).format(count=_count(n))
