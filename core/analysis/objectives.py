"""What the optimizer minimises: the user's objective, and the money axis of its Pareto front.

Six objectives (``OBJECTIVES``), each a value of an evaluated candidate (``core.analysis.optimize.Candidate``):

* ``cluster``: the whole cluster's capex [USD] (``CostSummary.capex_usd``: GPU nodes, compute fabric, storage and
  management networks, racks; the default);
* ``compute``: the compute fabric's capex [USD] (``CostSummary.compute_fabric_capex_usd``: its switches,
  transceivers, cables and the nodes' NICs);
* ``tco``: the total cost of ownership [USD] (``CostSummary.tco_usd``: capex and the energy of ``tco_years``);
* ``gpu_hour``: the cost per GPU-hour [USD per GPU-hour]: the TCO over every GPU-hour of ``tco_years``
  (``usd_per_gpu_hour``; the same order as ``tco`` within one search, a different figure);
* ``days``: days to train the training job (needs one; the fastest design wins, ties to the cheaper);
* ``usd_per_mtok``: the serving target's cost per million output tokens [USD] (needs a serving target).

The front plots money against performance: its money axis is the objective's value for the four money
objectives, the whole cluster's capex for ``days`` and ``usd_per_mtok`` (``cost_axis``). Ties: the whole
cluster's capex, fewer switches, grid order (``order``).
"""

from __future__ import annotations

from core import vocab
from core.cost import holds_level2
from core.errors import InputError
from core.i18n import N_, _
from core.plan import tco_share_usd_per_s

SECONDS_PER_HOUR = 3600.0

OBJECTIVES = ("cluster", "compute", "tco", "gpu_hour", "days", "usd_per_mtok")
"""Every objective, the default first."""
OBJECTIVE_WORDS = {"cluster": N_("whole-cluster capex"), "compute": vocab.COMPUTE_FABRIC_WORDS[False]["capex"],
                   "tco": N_("total cost of ownership"), "gpu_hour": N_("cost per GPU-hour"),
                   "days": N_("days to train the job"), "usd_per_mtok": N_("cost per million output tokens")}
"""Objective -> its words in messages and menus; the compute fabric's capex in the Designer's words
(``core.vocab.compute_fabric``: with NVLink level 2 when it holds that level's parts, ``objective_word``)."""
MONEY = ("cluster", "compute", "tco", "gpu_hour")
"""Objectives that are an amount of money (the front's money axis is the objective itself)."""
PER_UNIT = ("gpu_hour", "usd_per_mtok")
"""Objectives that are a price per unit: shown with cents."""
NEEDS = {"days": "job", "usd_per_mtok": "serving"}
"""Objective -> the ``Constraints`` field it needs set (a training job, a serving target)."""


def objective_word(objective: str, c=None) -> str:
    """The objective in words, in the current language; the compute fabric's capex as the Designer and Compare
    name it for the candidate ``c`` (``core.vocab.compute_fabric``: "and NVLink level 2" when its compute fabric
    capex holds a second NVLink level's parts, ``core.cost.holds_level2``)."""
    if objective == "compute":
        return vocab.compute_fabric("capex", holds_level2([c]))
    return _(OBJECTIVE_WORDS[objective])


def check_objective(objective: str, constraints=None) -> str:
    """``objective`` when it is one of ``OBJECTIVES`` (and, with ``constraints``, what it needs is set);
    ``InputError`` naming the choices or what is missing otherwise."""
    if objective not in OBJECTIVES:
        raise InputError(_("objective must be one of {choices} (got {value})").format(
            choices=", ".join(OBJECTIVES), value=str(objective)[:40]))
    need = NEEDS.get(objective)
    if constraints is not None and need is not None and getattr(constraints, need) is None:
        message = _("the objective \"{objective}\" needs a training job") if need == "job" else \
            _("the objective \"{objective}\" needs a serving target")
        raise InputError(message.format(objective=objective_word(objective)))
    return objective


def cost_axis(objective: str) -> str:
    """The money objective the front's money axis shows for ``objective``: itself for the money objectives, the
    whole cluster's capex for ``days`` and ``usd_per_mtok``."""
    return objective if objective in MONEY else "cluster"


def usd_per_gpu_hour(c) -> float:
    """The candidate's TCO over every GPU-hour of its ``tco_years`` [USD per GPU-hour]: one GPU's share of it for
    an hour (``core.plan.tco_share_usd_per_s``, the rule a job's cost uses)."""
    d = c.design
    return tco_share_usd_per_s(c.tco_usd, d.tco_years, 1, d.gpus) * SECONDS_PER_HOUR


def capex_of(c, objective: str = "cluster") -> float:
    """The candidate's value on the front's money axis (``cost_axis``) [USD; USD per GPU-hour for ``gpu_hour``]:
    the whole cluster's capex (``capex_usd``), the compute fabric's (``network_capex_usd``: its switches,
    transceivers, cables and NICs, no GPU nodes), the TCO, or the cost per GPU-hour."""
    axis = cost_axis(objective)
    if axis == "compute":
        return c.network_capex_usd
    if axis == "tco":
        return c.tco_usd
    if axis == "gpu_hour":
        return usd_per_gpu_hour(c)
    return c.capex_usd


def objective_value(c, objective: str = "cluster") -> float:
    """What ``objective`` minimises for the candidate: its money (``capex_of``), days to train, or the cost per
    million output tokens [USD]."""
    if objective == "days":
        return c.days
    if objective == "usd_per_mtok":
        return c.usd_per_mtok
    return capex_of(c, objective)


def places(objective: str) -> int:
    """Decimal places ``order`` compares ``objective``'s value to: money [USD] to the cent, other values (a cost
    per GPU-hour or per million tokens [USD], days) to a millionth."""
    return 2 if objective in ("cluster", "compute", "tco") else 6


def order(c, objective: str = "cluster") -> tuple:
    """Best first by ``objective`` (to its ``places``); ties: the whole cluster's capex, fewer switches, grid
    order."""
    value = objective_value(c, objective)
    return (round(value, places(objective)), round(c.capex_usd, 2), c.switches, c.index)


def floor_of(c, objective: str = "cluster") -> float:
    """A lower bound on ``capex_of(c, objective)`` from an optimizer candidate's floors (``capex_floor_usd``,
    ``network_floor_usd``, ``tco_floor_usd``: ``core.cost.cost_floor``) [USD; USD per GPU-hour for ``gpu_hour``]:
    ``capex_of`` is non-decreasing in each amount it reads."""
    from types import SimpleNamespace

    return capex_of(SimpleNamespace(capex_usd=c.capex_floor_usd, network_capex_usd=c.network_floor_usd,
                                    tco_usd=c.tco_floor_usd, design=c.design), objective)


def objective_text(c, objective: str = "cluster") -> str:
    """The candidate's value of ``objective`` as messages show it: money in the one money format
    (``core.i18n.usd``; with cents for a price per unit), days with one decimal."""
    from core.i18n import usd

    value = objective_value(c, objective)
    if objective == "days":
        return _("{days} days").format(days=f"{value:,.1f}")
    return usd(value, cents=objective in PER_UNIT)


def money_text(c, objective: str = "cluster") -> str:
    """The candidate's value on the front's money axis (``capex_of``) in the one money format, with cents for the
    cost per GPU-hour."""
    from core.i18n import usd

    return usd(capex_of(c, objective), cents=cost_axis(objective) in PER_UNIT)
