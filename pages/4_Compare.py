"""Compare: up to four designs side by side, deltas against a baseline, BOM differences, charts (thin: the page is
``webui.compare_page``, imported once, so a rerun does not recompile it)."""

from webui.compare_page import main

main()
