"""Clean citations of catalog entries for a customer: who published what, without the research trail.

The catalog (``assets/catalog/*.toml``) records for each entry a ``source`` (where its figures come from),
``as_of`` (when they were checked) and, for priced parts, ``price_basis``, ``price_usd`` with its
``price_low_usd``/``price_high_usd`` range and a ``price_source``. Those texts are research notes: they quote
the documents, name stored copies by id, link spreadsheets, mark evidence grades (``[P]``, ``[S]``, ``[D]``)
and say "unsourced" where a figure is assumed. ``citation(text)`` keeps what a reader can look up
(publisher and document, e.g. ``NVIDIA DGX SuperPOD H100 reference architecture Table 1``) and drops the rest;
``price_basis_text(entry)`` says "estimate" once when the price has no public source. Nothing here is
translated but the words "estimate" and "assumption"; publishers and document titles are quoted as
published.

What the customer sees (the pack's customer edition): the hardware facts' documents as the catalog grades them
(``source_citation``: the vendor's own, graded ``[P]``, and only when the catalog grades none so, the secondary
copies, ``[S]``: a reseller's page, a blog, a compilation), and each price as its basis, never the shop or blog it
was read in (``price_basis_text``: "street: a reseller or reported purchase price, 2023-12", the Catalog page's
price-basis words, ``core.catalog.PRICE_BASIS_MEANINGS``, with the price's date). The internal edition shows the notes as recorded.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from core.i18n import _

MAX_CITATION_CHARS = 160
"""Longest citation shown [characters]; a longer one is cut at a word and ends with an ellipsis."""
MAX_CITATIONS = 3
"""Most documents cited for one entry (the first ones the catalog names)."""

_INTERNAL = re.compile(
    r"stored cop|copy id|note id|shared/|/work\b|research compilation|research pass|hardware[- ]facts|"
    r"docs\.google|spreadsheet|cited in|as summari[sz]ed|as reproduced|as tabulated|our reading|not re-verified|"
    r"not verified|this session|easymanua|mirror\b|\w_\w|\bcopy\b|\breplaces\b", re.I)
"""Words of the research trail: a parenthesis holding one is dropped whole, a segment naming only it too."""
_ESTIMATE = re.compile(r"^\W*(?:estimate|derived|assum|unsourced|generic|no (?:public |list )?price|typical|"
                       r"low\b|high\b|range\b|\d[\d.,]* ?(?:u|m)\b)", re.I)
"""A segment that states an estimate or an assumption rather than naming a document."""
_DOCUMENT = re.compile(
    r"\b(?:manual|datasheet|data sheet|docs?\b|documentation|guide|reference architecture|RA\b|white ?paper|"
    r"release|press|blog|paper|spec(?:ification)?s?\b|standard|IEEE|MSA\b|table|listing|list\b|price list|"
    r"reseller|catalog(?:ue)?|announcement|product|notes|MLCommons|Epoch|arXiv|SIGCOMM|NSDI|ISCA|GTC|PR\b|"
    r"knowledge-base|tables?|sheet|article)", re.I)
"""Words that mark a segment as naming a document a reader can look up."""
_MARKER = re.compile(r"\s*\[(?:P|S|D)(?:[^\]]{0,40})\]")
_GRADED = re.compile(r".*?\[([PSDMA][^\]]{0,40})\]", re.S)
"""A piece of a source up to its evidence grade (``[P]`` vendor document, ``[P via S]`` one read in a copy, ``[S]``
secondary: a reseller, a blog, a compilation; ``[D]`` derived; ``[M]`` a maintainer's word; ``[A]`` assumed)."""
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_DATE = re.compile(r"\b(20\d\d-\d\d(?:-\d\d)?|(" + "|".join(_MONTHS) + r")[a-z]* (20\d\d)|20\d\d Q[1-4])\b")
"""A date a price source states (``2023-12``, ``2026-09-22``, ``Aug 2024``: written ``2024-08``, ``2017 Q3``)."""

_QUOTE = re.compile(r"(?<![A-Za-z0-9])'[^']{0,400}'(?![A-Za-z0-9])|"
                    r"\"[^\"]{0,400}\"|‘[^’]{0,400}’|“[^”]{0,400}”")
_TRAIL = re.compile(r",?\s*\b(?:as tabulated|as summari[sz]ed|as reproduced|cited in|citing|per (?:stored|note))\b.*$",
                    re.I)
"""Where a document was read (a compilation, a note): cut from there on."""
_FIGURES = re.compile(r"\d\s?(?:GB|Gb|TB|Tb|W\b|x\b|m\b|links|ports|lanes)|\bx\s?\d")
"""Figures (bandwidths, counts, lengths): a parenthesis holding them quotes the document, it does not name it."""
_MONEY = re.compile(r"(?:~\s*)?(?:US\$|\$|EUR|GBP|CNY)\s?[\d,.]+\s?[kM]?(?:\s?(?:-|to)\s?\$?[\d,.]+\s?[kM]?)?")
_URL = re.compile(r"https?://[^\s;,)]+|\b(?:[a-z0-9-]+\.)+(?:com|org|net|io|co|ai|dev|es|nl|de)(?:/[^\s;,)]*)?",
                  re.I)


def _split(text: str, sep: str = ";") -> list[str]:
    """``text`` split at ``sep`` outside parentheses and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"" and (i == 0 or not text[i - 1].isalnum()):
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _host(match: re.Match) -> str:
    text = match.group(0)
    host = urlsplit(text if "//" in text else "//" + text).netloc
    return "" if _INTERNAL.search(text) else host.removeprefix("www.")


def _parentheses(text: str) -> str:
    """Parentheses of the research trail dropped; the others (a venue, a year, a document number) kept."""
    out, changed = text, True
    while changed:
        changed = False
        for m in re.finditer(r"\(([^()]*)\)", out):
            inner = m.group(1)
            if (_INTERNAL.search(inner) or _URL.fullmatch(inner.strip()) or not inner.strip() or len(inner) > 60
                    or ";" in inner or not inner.strip()[0].isalnum() or _FIGURES.search(inner)):
                out = out[:m.start()].rstrip() + out[m.end():]
                changed = True
                break
    return out


def _quotes(part: str, keep: bool) -> str:
    """Quoted passages dropped; with ``keep``, a short one without figures (a document's title) stays."""
    def one(m: re.Match) -> str:
        quote = m.group(0)
        title = len(quote) < 60 and ":" not in quote and not _FIGURES.search(quote)
        return quote if keep and title else ""
    return _QUOTE.sub(one, part)


def _document(segment: str) -> str:
    """The document a segment names ("" when it names none): the part before or after its colon."""
    text = _MARKER.sub("", segment)
    head, colon, tail = _quotes(text, True).partition(": ")
    head = _TRAIL.sub("", _parentheses(head))
    if _INTERNAL.search(_parentheses(head)):  # a segment citing the research trail itself: nothing to cite
        return ""
    for part in ([head, _quotes(tail, False)] if colon else [head]):
        if " = " in part:  # a derivation (HDR = 4x 50G PAM4): the document, if any, is in its parentheses
            inner = [m.group(1) for m in re.finditer(r"\(([^()]*)\)", part) if _DOCUMENT.search(m.group(1))]
            part = inner[0] if inner else ""
        part = _MONEY.sub("", _parentheses(part))
        part = _URL.sub(_host, part)
        part = _TRAIL.sub("", part)
        part = re.sub(r"\(\s*\)|\(\s*[;,]", "(", part)
        if part.count("(") != part.count(")"):
            part = part.replace("(", " ").replace(")", " ")
        part = re.sub(r"\s*,(?:\s*,)+", ",", re.sub(r"\s{2,}", " ", part)).strip(" ,.;:-–—(")
        if part and not _INTERNAL.search(part) and not _ESTIMATE.match(part) and (
                _DOCUMENT.search(part) or re.search(r"\b[a-z0-9-]+\.[a-z]{2,}\b", part)):
            return part
    return ""


def _cut(text: str) -> str:
    if len(text) <= MAX_CITATION_CHARS:
        return text
    return text[:MAX_CITATION_CHARS].rsplit(" ", 1)[0].rstrip(" ,;:(") + "…"


def _graded(segment: str) -> list[tuple[str, bool | None]]:
    """``segment`` cut after each evidence grade (``_GRADED``): each piece and whether the catalog grades it a
    vendor document (``[P]``, ``[P via S]``, ``[P, D]``: True; another grade: False; none: None)."""
    pieces, end = [], 0
    for m in _GRADED.finditer(segment):
        pieces.append((re.sub(r"^[\s,;]*(?:and\s+)?", "", m.group(0)), m.group(1).startswith("P")))
        end = m.end()
    rest = re.sub(r"^and\s+", "", segment[end:].strip(" ,;"))
    return pieces + ([(rest, None)] if rest else [])


def citation(text: str, most: int = MAX_CITATIONS, primary: bool = False) -> str:
    """The documents ``text`` (a catalog ``source`` or ``price_source``) names, as "publisher document"
    citations joined by "; " (at most ``most``, each at most ``MAX_CITATION_CHARS`` characters); "" when it
    names none a reader could look up. ``primary``: when the catalog grades any part of ``text`` a vendor document
    (``[P]``), only those and the ungraded parts (a reseller's page or a blog graded ``[S]`` is left out)."""
    found: list[str] = []
    segments = [sentence for part in _split(str(text or ""))
                for sentence in re.split(r"(?<=[a-z)\]])\. (?=[A-Z])", part)]  # sentences of each ";" segment
    if primary:
        pieces = [piece for segment in segments for piece in _graded(segment)]
        if any(grade for _piece, grade in pieces):
            segments = [piece for piece, grade in pieces if grade is not False]
    for segment in segments:
        document = _document(segment)
        if document and document not in found:
            found.append(_cut(document))
        if len(found) >= most:
            break
    if not found:  # no document named, but public addresses cited (a compilation's sources): their sites
        hosts = (_host(m) for m in re.finditer(r"https?://[^\s;,)]+", str(text or "")))
        found = [h for h in dict.fromkeys(hosts) if h][:most]
    return "; ".join(dict.fromkeys(found))


def source_citation(entry) -> str:
    """Where a catalog entry's figures come from, for a customer: the vendor's documents (the secondary copies only
    when the catalog grades none a vendor's, ``citation(primary=True)``), or the word "assumption"."""
    return citation(getattr(entry, "source", ""), primary=True) or _("assumption")


def price_is_estimate(entry) -> bool:
    """Whether a catalog entry's price has no public source (its basis is ``estimate``, or the catalog says it
    was estimated or derived)."""
    basis = str(getattr(entry, "price_basis", "") or "")
    text = str(getattr(entry, "price_source", "") or "")
    return basis == "estimate" or bool(_ESTIMATE.match(text)) or not citation(text)


def price_basis_text(entry) -> str:
    """A catalog entry's price as a customer reads its source: its basis and what that basis means, in the Catalog
    page's words (``core.catalog.PRICE_BASIS_MEANINGS``), and the date the price source states, else the date the
    entry was checked (``street: a reseller or reported purchase price, 2023-12``), or "estimate" when it has no
    public source (``price_is_estimate``). Never the shop, the blog or the sheet it was read in."""
    from core.catalog import PRICE_BASIS_MEANINGS
    from core.vocab import PRICE_BASES

    basis = str(getattr(entry, "price_basis", "") or "")
    if price_is_estimate(entry) or basis not in PRICE_BASIS_MEANINGS:
        return _("estimate")
    found = _DATE.search(str(getattr(entry, "price_source", "") or ""))
    date = getattr(entry, "as_of", "") if not found else found.group(1) if not found.group(2) else \
        f"{found.group(3)}-{_MONTHS.index(found.group(2)) + 1:02d}"  # ISO in every language, as the catalog's dates
    return _("{basis}: {meaning}, {date}").format(basis=PRICE_BASES.label(basis), meaning=_(PRICE_BASIS_MEANINGS[basis]),
                                                  date=date)
