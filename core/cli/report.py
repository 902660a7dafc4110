"""``python -m core report``: the review pack of a design as one self-contained HTML file or an A4 PDF.

``--format html`` (the default) writes HTML text: to ``--output FILE`` or to stdout. ``--format pdf``
is binary: it goes to ``--output FILE``, or to stdout only when stdout is not a terminal (a pipe or a
redirect: ``> review.pdf``); on a terminal it is refused with a message rather than printing bytes.
With ``--output`` the command prints one line saying what it wrote. The report is in the ``--lang``
language (the share link it carries too); the PDF needs Chromium (``make chromium``), and a missing
Chromium is a clear error (exit 2), never a traceback.

``--edition customer`` (the default) cites the catalog's documents cleanly; ``internal`` shows its research
notes. ``--customer``, ``--author`` and ``--version-label`` go on the cover as typed (escaped, cut at
``core.formats.report.COVER_TEXT_CHARS`` characters). The share link opens the app at ``--base-url``
(``--link-base``), else at the address in the environment variable ``FP_PUBLIC_URL``
(``core.formats.sharelink.PUBLIC_URL_ENV``), else at ``DEFAULT_LINK_BASE``.
"""

from __future__ import annotations

import argparse
import sys
from urllib.parse import urlencode, urlsplit

from core.cli.common import add_design_options, check_output, design_from_args
from core.cli.bwunit import add_units_option, bandwidth_unit
from core.errors import InputError, shown
from core.i18n import _, current, number

DEFAULT_LINK_BASE = "http://localhost:8501/"


def _link_base(text: str) -> str:
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(_("must be an http(s) address without a query, e.g. {example}, got {value}")
                                         .format(example="https://planner.example.com/", value=shown(text)))
    return text.strip()


def register(subparsers) -> None:
    """Add the ``report`` sub-command."""
    parser = subparsers.add_parser(
        "report", help=_("write the review pack of a design (HTML or PDF)"),
        description=_("Write the review pack of a design: key numbers, topology, bandwidth, cost and the bill of "
                      "materials, performance, resilience and the assumptions with their sources. HTML is one "
                      "self-contained file; PDF is printed by headless Chromium (A4)."))
    add_design_options(parser)
    parser.add_argument("--format", choices=["html", "pdf"], default=None,
                        help=_("html (default; pdf when --output ends in .pdf): one self-contained file; pdf: A4, "
                               "needs Chromium"))
    parser.add_argument("--output", "-o", metavar="FILE", default=None,
                        help=_("write to FILE; without it HTML goes to stdout, and PDF too when stdout is not a "
                               "terminal"))
    from core.formats.report import COVER_TEXT_CHARS, EDITIONS, PUBLIC_URL_ENV

    parser.add_argument("--base-url", "--link-base", dest="link_base", type=_link_base, default=None, metavar="URL",
                        help=_("public address of the app the report's share link opens (default: the environment "
                               "variable {env}, else {default})").format(env=PUBLIC_URL_ENV, default=DEFAULT_LINK_BASE))
    parser.add_argument("--edition", choices=list(EDITIONS), default=EDITIONS[0],
                        help=_("customer (default): sources as clean citations, prices with basis and range; "
                               "internal: the catalog's research notes as recorded"))
    for flag, what in (("--customer", _("the customer the pack is for")), ("--author", _("who prepared the pack")),
                       ("--version-label", _("the pack's version, e.g. v1.2"))):
        parser.add_argument(flag, default="", metavar="TEXT",
                            help=_("{what}, on the cover (text, at most {limit} characters shown)").format(
                                what=what, limit=COVER_TEXT_CHARS))
    from core.cli.export import add_naming_options

    add_naming_options(parser.add_argument_group(_("device names (as the exports name them)")))
    add_units_option(parser)
    parser.set_defaults(handler=run)


def share_link(design, base: str = DEFAULT_LINK_BASE, unit: str = "GB/s") -> str:
    """The design's share link on the app at ``base``, in the current language, bandwidth ``unit`` and display
    currency (``core.formats.uilink``: the ``ui_`` keys the app keeps them in)."""
    from core.formats import sharelink
    from core.formats.uilink import display_params

    return base.rstrip("/") + "/?" + urlencode({**sharelink.encode(design), **display_params(unit),
                                                sharelink.LANG_KEY: current()})


def run(args: argparse.Namespace) -> str:
    from core.formats import report
    from core.plan import plan

    if args.output is not None:
        check_output(args.output)  # before the work
    if args.format is None:  # review.pdf is a PDF, whatever else is HTML
        args.format = "pdf" if str(args.output or "").lower().endswith(".pdf") else "html"
    from core.cli.export import naming_from_args

    design = design_from_args(args)
    naming_from_args(args)  # a bad prefix is said before the work
    p = plan(design)
    naming = naming_from_args(args, p)  # the single points' names as the exports give them
    stdout = sys.stdout
    if args.format == "pdf" and args.output is None and stdout.isatty():
        raise InputError(_("a PDF is binary: give --output FILE or redirect stdout to a file (> review.pdf)"))
    name = p.design.name or ""  # --name is a design option (Design.name); none: a title in words from the design
    link = share_link(design, args.link_base or report.public_base_url() or DEFAULT_LINK_BASE, bandwidth_unit(args))
    cover = report.Cover(customer=args.customer, author=args.author, version=args.version_label, edition=args.edition)
    if args.format == "pdf":
        data = report.design_report_pdf(p, name=name, share_link=link, cover=cover,
                                         unit=bandwidth_unit(args), naming=naming)
    else:
        data = report.design_report_html(p, name=name, share_link=link, cover=cover,
                                          unit=bandwidth_unit(args), naming=naming).encode("utf-8")
    if args.output is None:
        if args.format == "html":
            return data.decode("utf-8")
        stdout.flush()
        buffer = getattr(stdout, "buffer", None)
        if buffer is None:  # pragma: no cover - a text-only stream (some embedding hosts)
            raise InputError(_("stdout takes no binary data here: give --output FILE"))
        buffer.write(data)
        buffer.flush()
        return ""
    with open(args.output, "wb") as handle:  # a failed write (no folder, full disk, ...): core.cli._fail says it
        handle.write(data)
    return _("wrote {path} ({size} bytes)").format(path=args.output, size=number(len(data))) + "\n"
