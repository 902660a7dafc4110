"""The sidebar's gallery of published designs (``core.presets``): each with its source, the numbers it
reproduces and how the engine's design differs, and a Load button that puts it into the sidebar and the link.

A Load button's callback only notes the preset's id; the next run applies it (``gallery`` runs before the
sidebar's design widgets exist, so their values may still be set) through the same path as a design file
(``webui.state.apply_design``: the link codec, then the widgets), and says on that run what happened.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

from core.design import Design
from core.i18n import _, number
from core.presets import Preset, find_preset, load_presets
from webui import pagestate, safe

PENDING = "_fp_preset_pending"
"""Session key: the id of the preset whose Load button was pressed, applied by the next ``gallery`` run."""


OPEN = "fp_gallery"
"""The gallery popover's key: its open state (its cards are drawn only while it is open)."""


def _choose(preset_id: str) -> None:
    st.session_state[PENDING] = preset_id
    st.session_state[OPEN] = False  # closed on the next run: the sidebar shows the design loaded


def _value(value: float) -> str:
    return number(value, 0 if float(value).is_integer() else 2)


def _source(preset: Preset) -> str:
    """The source as markdown: publisher, the document linked to its URL, where, date (data from the file)."""
    source = preset.source
    date = f", {safe.md(source.date)}" if source.date else ""
    return _("Source: {publisher}, {document}; {where}{date}").format(
        publisher=safe.md(source.publisher), document=f"[{safe.md(source.document)}]({source.url})",
        where=safe.md(source.where), date=date)


def _numbers(preset: Preset) -> str:
    """The published numbers the engine reproduces, one line of markdown (derived ones marked)."""
    derived = " " + safe.md(_("(derived)"))
    items = [f"{safe.md(n.label())} **{_value(n.value)}**" + (derived if n.derived else "") for n in preset.published]
    return _("Reproduces: {numbers}").format(numbers=" · ".join(items))


def _card(preset: Preset) -> None:
    with st.container(border=True):
        st.markdown("**" + safe.md(_(preset.title)) + "**")
        st.caption(safe.md(_(preset.notes)))
        st.caption(_source(preset))
        st.caption(_numbers(preset))
        for text in preset.differences:
            st.caption(safe.md(_("Differs: {text}").format(text=_(text))))
        st.button(_("Load this design"), key=f"fp_preset_{preset.id}", on_click=_choose, args=(preset.id,),
                  help=_("Replace the design in the sidebar and the link with this one; {command} plans the same "
                         "design.").format(command=f"`python -m core plan --preset {preset.id}`"))


def gallery(sb, apply: Callable[[Design], list[str]]) -> None:
    """Draw the "Start from a published design" popover in ``sb`` (the sidebar), first applying the preset whose
    Load button was pressed with ``apply`` (``webui.state.apply_design``: returns the link codec's warnings) and
    saying once what happened."""
    chosen = st.session_state.pop(PENDING, None)
    loaded = find_preset(chosen) if chosen is not None else None  # an id from the gallery's own buttons
    warnings = apply(loaded.design) if loaded is not None else []
    popover = sb.popover(_("Start from a published design"), width="stretch", key=OPEN, on_change="rerun")
    if popover.open:  # the cards are drawn only while the popover is open
        with popover:
            st.caption(_("Designs as their publishers describe them, each with its source and the numbers the "
                         "engine reproduces from it (a test checks every one). Loading one replaces the design in "
                         "the sidebar and the link; change anything from there."))
            for preset in load_presets():
                _card(preset)
    _said(sb, loaded, warnings)


def _said(sb, loaded: Preset | None, warnings: list[str]) -> None:
    """Below the gallery, on the run that loaded ``loaded``: that it did, or which of its settings it could not set."""
    if loaded is None:
        return
    title = _(loaded.title)
    if warnings:
        sb.warning(safe.md(_("Loaded {title}, but these settings could not be set:").format(title=title))
                   + "\n\n" + pagestate.bullets(warnings))
    else:
        sb.success(safe.md(_("Loaded {title}: the sidebar and the link now hold its design.").format(title=title)))
