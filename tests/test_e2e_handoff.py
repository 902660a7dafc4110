"""End to end in headless Chromium: download the design JSON from the Hand-off tab, upload it in a fresh
session (another browser context: no shared state but the file) and see the same key numbers and link."""

from __future__ import annotations

import json

import pytest

from test_e2e_browser import metric_values, query, settle

pytestmark = pytest.mark.e2e


def test_downloaded_design_file_restores_the_design_in_a_fresh_session(server, browser, tmp_path):
    first = browser.new_context(viewport={"width": 1280, "height": 1000}, accept_downloads=True)
    page = first.new_page()
    page.goto(f"{server}/?v=1&g=B200&n=95&os=2&px=QM9700%3A25000&tab=Hand-off")
    settle(page, timeout=90)
    numbers = metric_values(page)
    assert numbers["GPUs"] == "760"
    button = page.get_by_role("button", name="Design as JSON")
    button.wait_for(timeout=60_000)
    with page.expect_download(timeout=30_000) as info:
        button.click()
    download = info.value
    assert download.suggested_filename == "fabric-b200-760-ib.json"
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == 1 and data["gpu"] == "B200" and data["nodes"] == 95
    first.close()

    second = browser.new_context(viewport={"width": 1280, "height": 1000})
    fresh = second.new_page()
    fresh.goto(f"{server}/?v=1&n=16&tab=Hand-off")
    settle(fresh, timeout=90)
    assert metric_values(fresh)["GPUs"] == "128"
    fresh.locator("input[type='file']").first.set_input_files(str(path))
    fresh.wait_for_function("window.location.search.includes('n=95')", timeout=60_000)
    settle(fresh, timeout=90)
    assert metric_values(fresh) == numbers
    link = query(fresh)
    assert link["g"] == "B200" and link["n"] == "95" and link["os"] == "2" and link["px"] == "QM9700:25000"
    assert "Loaded" in fresh.locator("body").inner_text()
    # a hostile file in the same session: refused, the design stays
    bad = tmp_path / "bad.json"
    bad.write_text('{"gpu": "<img src=x onerror=alert(1)>", "nodes": 8}', encoding="utf-8")
    fresh.locator("input[type='file']").first.set_input_files(str(bad))
    fresh.get_by_text("This file was not loaded").wait_for(timeout=60_000)
    settle(fresh, timeout=60)
    assert metric_values(fresh) == numbers and query(fresh)["n"] == "95"
    assert fresh.locator("img[src='x']").count() == 0
    second.close()
