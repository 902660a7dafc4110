"""Rows of racks as repeating blocks (``core.physical.layout.Arrangement.rows``).

A hall of 131,072 GPUs has hundreds of rows, most of them copies of a few: the compute rows of whole SUs of one size,
the central rows of one long run of spine or core racks, a Dragonfly+ group's rows (its SUs' rows, then its spines').
``RowBlock`` holds such rows once with how many times they repeat and how the device numbers move from one copy to
the next, so arranging, counting and the cable lengths' cache key take one step per distinct block, not one per row
(``core.physical.layout.arrange``); ``expanded`` gives the rows one by one (the racks a drawing reads). The rows are
the same, in the same order with the same device numbers, as packing the SUs one by one (the rule of
``core.physical.layout``: whole SUs up to the row length, a longer SU alone).

Runs of SUs (``su_runs``) are ``(template key, first node, first leaf, SUs, node step, leaf step)``: ``SUs``
consecutive SUs of one template, the i-th numbered from ``first node + i x node step`` and
``first leaf + i x leaf step``.
"""

from __future__ import annotations

from typing import NamedTuple


class RowBlock(NamedTuple):
    """``times`` copies of ``rows`` one after the other, the t-th copy's devices numbered ``t x step`` later (each row
    its own steps) and its compute rows' SUs ``t x sus`` later."""

    rows: tuple
    """``(kind, runs, sus, keys)`` per row: kind ``compute`` or ``central``; runs ``(drafts, node shift, leaf shift,
    times, node step, leaf step)``, ``times`` copies of the rack drafts ``drafts`` side by side, the i-th with its
    devices numbered from ``node shift + i x node step`` (every slot but a leaf's) and ``leaf shift + i x leaf
    step`` (a leaf's); sus: (first SU, last SU + 1) of a compute row, (0, 0) of a central one; keys: per run its SU
    template's key (``None`` for a central run)."""
    times: int
    steps: tuple
    """Per row, (node step, leaf step) from one copy to the next."""
    sus: int
    """SUs from one copy to the next."""


def _one(row: tuple) -> RowBlock:
    """A block of one row that does not repeat."""
    return RowBlock((row,), 1, ((0, 0),), 0)


def shifted_row(row: tuple, node: int, leaf: int, sus: int) -> tuple:
    """``row`` with its devices numbered ``node`` (every slot but a leaf's) and ``leaf`` (a leaf's) later and, for a
    compute row, its SUs ``sus`` later."""
    if not (node or leaf or sus):
        return row
    kind, runs, (a, b), keys = row
    runs = tuple((drafts, n + node, lf + leaf, times, dn, dl) for drafts, n, lf, times, dn, dl in runs)
    return kind, runs, (a + sus, b + sus) if kind == "compute" else (a, b), keys


def copy_of(block: RowBlock, t: int) -> tuple:
    """The rows of copy ``t`` of ``block`` (0-based)."""
    return tuple(shifted_row(row, t * node, t * leaf, t * block.sus) for row, (node, leaf) in zip(block.rows,
                                                                                                 block.steps))


def expanded(blocks) -> list[tuple]:
    """Every row of ``blocks``, in hall order: ``(kind, runs, sus, keys)`` (``RowBlock.rows``)."""
    return [row for block in blocks for t in range(block.times) for row in copy_of(block, t)]


def split(blocks: list[RowBlock], copies: int) -> tuple[list[RowBlock], list[RowBlock]]:
    """``blocks`` cut after their first ``copies`` copies (a block's copy is a row, or a Dragonfly+ group): the
    blocks before and after, a block split in two where the cut falls inside it."""
    before: list[RowBlock] = []
    for i, block in enumerate(blocks):
        if copies <= 0:
            return before, blocks[i:]
        if copies >= block.times:
            before.append(block)
            copies -= block.times
            continue
        rest = block._replace(rows=copy_of(block, copies), times=block.times - copies)
        return before + [block._replace(times=copies)], [rest] + blocks[i + 1:]
    return before, []


def copies(blocks) -> int:
    """Copies of the blocks (``split``'s unit)."""
    return sum(block.times for block in blocks)


def su_slice(su_runs: list, start: int, stop: int) -> list[tuple]:
    """The runs of SUs ``start .. stop - 1`` of ``su_runs`` (module docstring), their SU indices counted over
    all runs."""
    out = []
    at = 0
    for key, node, leaf, count, node_step, leaf_step in su_runs:
        low, high = max(start, at), min(stop, at + count)
        if low < high:
            out.append((key, node + (low - at) * node_step, leaf + (low - at) * leaf_step, high - low, node_step,
                        leaf_step))
        at += count
    return out


def pack_sus(su_runs: list, templates: dict, max_row: int, su: int = 0) -> list[RowBlock]:
    """Compute rows of whole SUs (``su_runs``, the first one SU number ``su``) up to ``max_row`` racks, an SU longer
    than that alone (``templates``: key -> its racks): a row of ``k`` SUs of one size repeated as one block, the
    last row of a run (which SUs of the next run may join) a block of its own. The rows of packing SU by SU, in one step per
    run."""
    blocks: list[RowBlock] = []
    row: list[tuple] = []  # the open row: (run, key) each
    used = first = 0

    def close():
        blocks.append(_one(("compute", tuple(r for r, _k in row), (first, su), tuple(k for _r, k in row))))
        row.clear()

    for key, node, leaf, count, node_step, leaf_step in su_runs:
        drafts = templates[key]
        size = len(drafts)
        while count:
            if row:  # the open row takes what still fits
                fit = min(count, max(0, max_row - used) // size)
                if fit:
                    row.append(((drafts, node, leaf, fit, node_step, leaf_step), key))
                    used, count, su = used + fit * size, count - fit, su + fit
                    node, leaf = node + fit * node_step, leaf + fit * leaf_step
                if count:
                    close()
                continue
            per = max(1, max_row // size)
            whole = (count - 1) // per  # the last row stays open: SUs of the next run may join it
            if whole:
                blocks.append(RowBlock((("compute", ((drafts, node, leaf, per, node_step, leaf_step),), (su, su + per),
                                         (key,)),), whole, ((per * node_step, per * leaf_step),), per))
                node, leaf = node + whole * per * node_step, leaf + whole * per * leaf_step
                su, count = su + whole * per, count - whole * per
            if count:  # a row's or fewer: open a row
                row.append(((drafts, node, leaf, count, node_step, leaf_step), key))
                first, used = su, count * size
                node, leaf = node + count * node_step, leaf + count * leaf_step
                su, count = su + count, 0
    if row:
        close()
    return blocks


def central_blocks(racks, max_row: int, shift: int = 0) -> list[RowBlock]:
    """Central rows of ``racks`` (``(draft, times, step)`` each: ``times`` racks like ``draft``, the k-th one's devices
    numbered ``k x step`` after the first's) in order, at most ``max_row`` racks a row, a run split where a row ends;
    the devices numbered ``shift`` later; whole rows of one run one block."""
    blocks: list[RowBlock] = []
    row: list[tuple] = []
    used = 0
    for draft, times, step in racks:
        at = shift
        while times:
            if used == max_row:
                blocks.append(_one(("central", tuple(row), (0, 0), (None,) * len(row))))
                row, used = [], 0
            if not row and times >= max_row:  # whole rows of this run
                whole = times // max_row
                blocks.append(RowBlock((("central", (((draft,), at, 0, max_row, step, 0),), (0, 0), (None,)),), whole,
                                       ((max_row * step, 0),), 0))
                at, times = at + whole * max_row * step, times - whole * max_row
                continue
            take = min(times, max_row - used)
            row.append(((draft,), at, 0, take, step, 0))
            used, times, at = used + take, times - take, at + take * step
    if row:
        blocks.append(_one(("central", tuple(row), (0, 0), (None,) * len(row))))
    return blocks


def row_count(blocks) -> int:
    """Rows of ``blocks`` (every copy's)."""
    return sum(len(block.rows) * block.times for block in blocks)
