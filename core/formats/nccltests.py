"""Reading NVIDIA nccl-tests output (``all_reduce_perf``, ``all_gather_perf``, ``reduce_scatter_perf``,
``alltoall_perf``): the measured table as ``core.perf.calibration.MeasuredRun``.

The format, as nccl-tests prints it (``src/common.cu``; NVIDIA/nccl-tests ``doc/PERFORMANCE.md``): a header
(``# nThread 1 nGpus 8 minBytes ...``), one ``#  Rank  N Group  0 Pid P on HOST device D [...] NAME`` line per
rank, then a column header line naming ``size``, ``count``, ``type`` (and ``redop``, ``root`` in 2.x releases
that have them) and two groups of ``time algbw busbw #wrong`` (out-of-place, in-place), then one line per size.
Any release's layout is read by the column header's names, not by position; lines an MPI launcher prefixes
(``[1,0]<stdout>:``) and NCCL INFO lines in between are tolerated. The collective is the one the log names
(``Collective test starting: all_reduce_perf``, the binary's name in a command line) or the one given; the ranks
are the ``Rank`` lines' highest index plus one, or the count given.

Hostile-safe: at most ``MAX_BYTES`` of text and ``MAX_ROWS`` sizes are read; a row with a non-finite or
non-positive time or a size that is not a whole number of bytes is skipped and counted; text that holds no
table is one ``InputError`` saying what was expected.
"""

from __future__ import annotations

import math
import re

from core.design import clean_name
from core.errors import InputError
from core.i18n import _
from core.perf.calibration import MeasuredRun

MAX_BYTES = 4_000_000
"""Longest log read [bytes]; longer input is refused (a nccl-tests log of a full sweep is about 10 kB)."""
MAX_ROWS = 200
"""Most sizes read from one log."""
OPS = {"all_reduce": "all-reduce", "all_gather": "all-gather", "reduce_scatter": "reduce-scatter",
       "alltoall": "all-to-all", "broadcast": "broadcast"}
"""nccl-tests binary stem -> the collective's name in this product."""
_PREFIX = re.compile(r"^\[\d+,\d+\]<std(?:out|err)>:")
_RANK = re.compile(r"#\s*Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)")
_OP = re.compile(r"\b(all_reduce|all_gather|reduce_scatter|alltoall|broadcast)_perf\b")
_NCCL = re.compile(r"NCCL version (\d+\.\d+\.\d+)")


def _lines(text: str) -> list[str]:
    if len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise InputError(_("the log is larger than {limit} MB; give one nccl-tests run per file").format(
            limit=MAX_BYTES // 1_000_000))
    return [_PREFIX.sub("", line).rstrip() for line in text.replace("\r", "\n").split("\n")]


def _columns(lines: list[str]) -> tuple[int, dict[str, int]] | None:
    """The index of the column header line and the out-of-place columns' positions in a data row."""
    for index, line in enumerate(lines):
        if not line.startswith("#"):
            continue
        names = line[1:].split()
        if names[:1] == ["size"] and "time" in names and "busbw" in names:
            return index, {"size": 0, "time": names.index("time"), "busbw": names.index("busbw"),
                           "width": len(names)}
    return None


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return math.nan
    return value if math.isfinite(value) else math.nan


def parse(text: str, op: str | None = None, gpus: int | None = None, name: str = "") -> MeasuredRun:
    """The measured run in nccl-tests output ``text`` (out-of-place columns).

    Parameters
    ----------
    text : str
        The log as printed (a whole file, or the table alone).
    op : str, optional
        The collective (``all-reduce``, ...) when the log does not name it.
    gpus : int, optional
        Ranks when the log has no ``Rank`` lines.
    name : str
        What to call the run (a file name).
    """
    lines = _lines(str(text))
    found = _columns(lines)
    if found is None:
        raise InputError(_("no nccl-tests table found: expected a '#  size  count  type ...  time  algbw  busbw' "
                           "header line followed by one line per message size"))
    start, cols = found
    named = next((m.group(1) for line in lines if (m := _OP.search(line))), None)
    chosen = op or (OPS[named] if named else None)
    if chosen is None:
        raise InputError(_("the log does not say which collective it measured; give it ({choices})").format(
            choices=", ".join(OPS.values())))
    ranks = [(int(m.group(1)), m.group(2)) for line in lines[:start] if (m := _RANK.search(line))]
    count = gpus or (max(r for r, _h in ranks) + 1 if ranks else None)
    if not count:
        raise InputError(_("the log has no '# Rank' lines; give the number of GPUs it ran on"))
    sizes, times, skipped = [], [], 0
    for line in lines[start + 1:]:
        fields = line.split()
        if not fields or line.startswith("#") or len(fields) < cols["busbw"] + 1 or not fields[0].isdigit():
            continue
        size, time_us = int(fields[0]), _number(fields[cols["time"]])
        if size < 1 or not time_us > 0:
            skipped += 1
            continue
        if len(sizes) >= MAX_ROWS:
            break
        sizes.append(float(size))
        times.append(time_us)
    if len(sizes) < 1:
        raise InputError(_("the nccl-tests table has no usable rows (a size of at least 1 byte and a time)"))
    version = next((m.group(1) for line in lines if (m := _NCCL.search(line))), None)
    return MeasuredRun(name=clean_name(name), op=chosen, gpus=int(count), sizes=tuple(sizes),
                       times_us=tuple(times), hosts=len({h for _r, h in ranks}) or None, nccl_version=version,
                       skipped=skipped)
