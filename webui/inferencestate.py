"""The Inference page's settings in a browser session (``webui.pagestate``): declared once, read by the Inference
page and by the pages that serve its deployment on their designs (Compare, Sweep)."""

from __future__ import annotations

from core.formats import inferencelink as link
from webui import pagestate

STORE = "fp_inf"
"""This session's serving settings (``core.formats.inferencelink`` keys -> values)."""
LINK = pagestate.PageLink(STORE, link.decode, link.owns)
"""The serving settings in the link."""
