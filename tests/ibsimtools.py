"""The real InfiniBand tools the ibsim round-trip tests run (``make ibsim`` installs ``ibsim-utils`` and
``infiniband-diags``): found on the path or in /usr/sbin; a test without them fails in CI and is skipped elsewhere."""

from __future__ import annotations

import os
import shutil

import pytest


def tools() -> tuple[str, str, str] | None:
    """Paths of ``ibsim``, ``ibsim-run`` and ``ibnetdiscover``; None when one is missing."""
    found = [shutil.which(t) or (f"/usr/sbin/{t}" if os.path.exists(f"/usr/sbin/{t}") else None)
             for t in ("ibsim", "ibsim-run", "ibnetdiscover")]
    return tuple(found) if all(found) else None


def needed_tools() -> tuple[str, str, str]:
    """``tools()`` for a test that needs them: it fails in CI without them and is skipped elsewhere."""
    found = tools()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("ibsim/ibnetdiscover missing: `make ibsim` installs ibsim-utils and infiniband-diags")
        pytest.skip("ibsim-utils / infiniband-diags not installed (make ibsim)")
    return found
