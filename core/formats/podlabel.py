"""The label of an export that writes every pod of a design with pods its own way (the network simulators' files:
``core.formats.astrasim``, ``core.formats.simai``): the export's label, and with pods what its file says of them
(a note of ``core.formats.podsims``). One rule for every such export, with no import between the export and
``podsims`` at load time (each reads the other's functions when called)."""

from __future__ import annotations

from typing import Callable

from core.i18n import _


def pods_describer(label: str, note: str) -> Callable[[object], str]:
    """The ``Export.describe`` of an export labelled ``label`` (a ``N_`` message) whose pods' words are the
    ``core.formats.podsims`` function named ``note`` (``MixedPlan`` -> text).

    Parameters
    ----------
    label : str
        The export's label, untranslated (translated when called).
    note : str
        Name of the ``core.formats.podsims`` function that says what the file does with a design's pods.

    Returns
    -------
    callable
        ``describe(plan) -> str``: the label in the current language, followed for a design with pods by the note.
    """
    def describe(plan) -> str:
        """The export's label for ``plan`` and, with pods, what its file says of them (current language)."""
        from core.formats import podsims
        from core.formats.podslurm import mixed_of

        mixed = mixed_of(plan)
        if mixed is None:
            return _(label)
        return _("{label}: {note}").format(label=_(label), note=getattr(podsims, note)(mixed))

    return describe
