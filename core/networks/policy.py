"""The sizing rules and defaults of the storage and management networks, read from
``assets/catalog/networks.toml`` (``[[policy]]`` entries, each with its value, ``source`` and ``as_of``).

``policy(name)`` is the value; ``POLICY_SOURCES`` lists where each came from (the Catalog page and the
report can show them). Values the source marks "assumption" say why they were chosen.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.catalog import CATALOG_DIR, read_toml
from core.errors import InputError
from core.i18n import N_, _


class Policy(BaseModel):
    """One sizing rule or default."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    value: float = Field(ge=0)
    source: str
    as_of: str

    @field_validator("id", "source", "as_of")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError(_("must not be empty"))
        return value


@lru_cache(maxsize=1)
def policies() -> dict[str, Policy]:
    """Every ``[[policy]]`` of ``networks.toml`` by id (cached)."""
    data = read_toml(CATALOG_DIR / "networks.toml", N_("catalog file"))
    try:
        entries = [Policy.model_validate(entry) for entry in data.get("policy", [])]
    except ValueError as exc:
        raise InputError(_("catalog under {directory} is invalid: {error}").format(
            directory=CATALOG_DIR, error=exc)) from exc
    return {entry.id: entry for entry in entries}


def policy(name: str) -> float:
    """The value of policy ``name`` (see ``networks.toml`` for its unit and source)."""
    try:
        return policies()[name].value
    except KeyError:
        raise InputError(_("catalog under {directory} is invalid: {error}").format(
            directory=CATALOG_DIR, error=f"networks.toml has no policy {name!r}")) from None


@lru_cache(maxsize=1)
def _whole_policies() -> dict[str, int]:
    """Every policy's value as a whole number, by id (``ipolicy``; made once, as ``policies``)."""
    return {name: int(round(entry.value)) for name, entry in policies().items()}


def ipolicy(name: str) -> int:
    """``policy(name)`` as a whole number."""
    try:
        return _whole_policies()[name]
    except KeyError:
        policy(name)  # raises the InputError naming the missing policy
        raise
