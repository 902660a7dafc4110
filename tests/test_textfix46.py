"""Wording fixes of review46: each rule said once and the same way wherever it shows (CLI help, errors, exports,
the pages' texts)."""

from __future__ import annotations

from core.cli import build_parser


def test_top_level_help_says_inputs_in_gbit_and_outputs_in_gbyte():
    """The epilog named every network speed Gb/s while the readable outputs default to GB/s: it now says which
    flags take Gb/s (the fields declared in Gb/s) and that outputs are GB/s unless --units gbit."""
    from core.design import FIELDS

    text = " ".join(build_parser().format_help().split())
    assert "network speeds in Gb/s" not in text
    assert "GB/s (bytes) by default" in text and "--units gbit" in text
    for surface in FIELDS.values():
        if surface.unit == "Gb/s":
            assert surface.flag in text


def test_slurm_block_label_says_the_block_the_file_writes():
    """The Hand-off tab's label said 'one block per NVLink domain' for HGX designs, whose file has one block per
    scalable unit; the label now follows the file's own rule."""
    from core.design import Design
    from core.formats import slurm
    from core.plan import plan

    hgx = plan(Design(topology="dragonfly", gpus=4096))
    blocks = slurm.slurm_blocks(hgx)
    assert len(blocks.blocks) == 16 and blocks.sizes[0] == 32  # 512 nodes, 32 per SU
    assert "scalable unit" in slurm._block_label(hgx) and "per NVLink domain" not in slurm._block_label(hgx)
    nvl72 = plan(Design(gpu="GB200-NVL72", nodes=72))
    assert slurm._block_label(nvl72).endswith("one block per NVLink domain")


def test_slurm_block_sizes_comment_says_how_far_they_go():
    """GB200 two-level (144-GPU domains on 576 GPUs): BlockSizes=9,36 stops at the domain's block; the comment
    said 'up to the cluster' (144 nodes)."""
    import io

    from core.design import Design
    from core.fabric.naming import NamingScheme
    from core.formats import slurm
    from core.plan import plan

    out = io.StringIO()
    slurm.write_block_conf(plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)), out, NamingScheme())
    text = out.getvalue()
    assert "BlockSizes=9,36\n" in text
    assert "up to the cluster" not in text and "holds the largest NVLink domain (36 nodes)" in text
    out = io.StringIO()
    slurm.write_block_conf(plan(Design(topology="dragonfly", gpus=4096)), out, NamingScheme())
    assert "BlockSizes=32,64,128,256,512\n" in out.getvalue() and "up to the cluster." in out.getvalue()
