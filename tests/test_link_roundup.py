"""A link's GPU count that is no whole number of nodes (``?v=1&t=tr&ng=999999``) is rounded up and said, as the
sidebar says a typed one; page paths are found whatever their case (``webui.router``)."""

from __future__ import annotations

from core.design import Design


def test_a_links_gpu_count_rounded_up_is_said():
    from webui import state

    widgets: dict = {}
    state._set_widgets(Design(gpu="H100", gpus=999_999, topology="torus"), widgets)  # 125,000 nodes of 8 GPUs
    assert widgets[state.K + "nodes"] == 125_000
    assert widgets["_fp_size_problem"] == "999,999 GPUs rounded up to 125,000 whole nodes (1,000,000 GPUs)."
    whole: dict = {}
    state._set_widgets(Design(gpu="H100", gpus=1024, topology="torus"), whole)
    assert "_fp_size_problem" not in whole


def test_page_paths_match_whatever_their_case():
    from webui.router import page_for

    paths = ["", "catalog", "performance", "compare"]
    assert page_for("Performance", paths) == "performance" and page_for("/COMPARE/", paths) == "compare"
    assert page_for("nowhere", paths) is None and page_for("", paths) is None
