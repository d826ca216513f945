"""Dollar cost of an agent run: measured token counts priced at published list rates.

Prices are data, not code: ``aau_core/_agents/pricing.json`` (kind ``pricing``, schema
``schemas/pricing/v1/pricing.schema.json``) is shipped in the wheel, validated when first read,
and never refreshed over the network. A model the table does not list is an error
(``UnknownModelPricingError``) — never silently $0 — until it is registered with
``register_pricing`` or ``register_pricing_file``.

The one rule for an unpriced model (``cost_model_for``, used by ``aau lab run`` and ``aau bench
agentdojo``; ``aau review judge``, whose cost is optional, leaves it out instead): a ``local``
backend's model is *declared* at $0 — it runs on the user's hardware and has no per-token bill,
but that is a choice, so the price is recorded as declared (``CostTracker.as_dict()``'s
``price_declared``), as is a price the user gives (``declare_pricing``: ``--price-per-mtok``);
any other unpriced model is refused before a run starts, naming the fix, since its cost would
otherwise be reported as $0.

Formula (USD), for the tokens of every API call of one run added together::

    cost = ( input_tokens                 x input_rate
           + cache_creation_input_tokens  x input_rate x cache_write_multiplier
           + cache_read_input_tokens      x input_rate x cache_read_multiplier
           + output_tokens                x output_rate ) / 1_000_000

with rates in USD per million tokens. The shipped table bills cache writes at 1.25x the input rate
and cache reads at 0.10x, except model ids of the ``deepseek`` family (ids starting with
``deepseek`` or containing ``/deepseek``), read at 0.02x — the same rules and prices as
aau-harness 1.6 (``cost.py``), minus its network price lookup.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from importlib import resources
from typing import Any

import attrs

from .._errors import AauError
from .._files._converter import document_converter, optional_field, unstructure_document

PRICING_RESOURCE = "pricing.json"
"""File name of the shipped pricing table inside the ``aau_core`` package."""


class PricingError(AauError):
    """A pricing table is unreadable or invalid, or a price cannot be registered."""


class UnknownModelPricingError(PricingError, ValueError):
    """No price is known for a model; ``.model`` names it. Never priced at $0 silently."""

    def __init__(self, model: str) -> None:
        self.model = model
        super().__init__(
            f"no pricing for model {model!r}: give it with --price-per-mtok IN,OUT (USD per "
            "million input, output tokens) or --pricing-file FILE, or in Python "
            f"aau_core.register_pricing({model!r}, input_per_mtok=..., output_per_mtok=...) "
            "before creating its CostTracker; aau never reports an unknown price as $0"
        )


@attrs.frozen
class ModelPrice:
    """The rates that apply to one model.

    Attributes:
        input_per_mtok: USD per million uncached input tokens.
        output_per_mtok: USD per million output tokens.
        cache_write_multiplier: cache-write tokens cost this times the input rate.
        cache_read_multiplier: cache-read tokens cost this times the input rate.
        declared: why the price was declared rather than read from a published table
            (``declare_pricing``), else ``None``.
    """

    input_per_mtok: float
    output_per_mtok: float
    cache_write_multiplier: float
    cache_read_multiplier: float
    declared: str | None = None


@attrs.frozen(kw_only=True)
class PricingEntry:
    """One model's published rates: the model of a ``models`` value of kind ``pricing``.

    Attributes:
        input_per_mtok, output_per_mtok: USD per million input / output tokens (>= 0).
        cache_write_multiplier, cache_read_multiplier: this model's own multipliers of the
            input rate, or ``None`` (absent: the table's, or its family's, apply).
        provider: who serves this id at this price (informative), or ``None``.
        note: free text (approximations, free tiers, aliases), or ``None``.
    """

    input_per_mtok: float
    output_per_mtok: float
    cache_write_multiplier: float | None = optional_field()
    cache_read_multiplier: float | None = optional_field()
    provider: str | None = optional_field()
    note: str | None = optional_field()


@attrs.frozen(kw_only=True)
class PricingDocument:
    """A pricing table (kind ``pricing``, ``aau-pricing/1.0``) as a model; field meanings in
    the schema. Structured by aau-core's converter after the schema check."""

    pricing_version: str
    as_of: str
    source: str
    currency: str
    cache_write_multiplier: float
    cache_read_multiplier: float
    cache_read_multiplier_by_family: dict[str, float] | None = optional_field()
    models: dict[str, PricingEntry]


_lock = threading.Lock()
_table: PricingDocument | None = None  # the shipped table, registrations merged in
_declared: dict[str, str] = {}  # model -> why its registered price is declared (declare_pricing)


def _validated(doc: Any, source: str) -> dict[str, Any]:
    import aau_schemas

    try:
        aau_schemas.validate("pricing", doc, source=source)
    except aau_schemas.SchemaError as exc:
        raise PricingError(str(exc)) from None
    return doc


def shipped_pricing() -> dict[str, Any]:
    """Return a fresh copy of the pricing document shipped with aau-core (kind ``pricing``).

    Raises:
        PricingError: the packaged file is missing or does not validate (a broken install).
    """
    try:
        text = resources.files("aau_core._agents").joinpath(PRICING_RESOURCE).read_text("utf-8")
    except OSError as exc:
        raise PricingError(f"aau_core/{PRICING_RESOURCE} is missing: {exc}") from None
    return _validated(json.loads(text), f"aau_core/{PRICING_RESOURCE}")


def _structured(doc: dict[str, Any]) -> PricingDocument:
    """A ``pricing`` document that passed ``_validated``, as its model."""
    return document_converter().structure(doc, PricingDocument)


def _current() -> PricingDocument:
    global _table
    if _table is None:
        _table = _structured(shipped_pricing())
    return _table


def pricing_table() -> dict[str, Any]:
    """Return a copy of the pricing document in force (shipped table plus registrations)."""
    with _lock:
        return unstructure_document(_current())


def _check_rate(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PricingError(f"{name} must be a number, got {value!r}")
    rate = float(value)
    if not rate >= 0 or rate == float("inf"):
        raise PricingError(f"{name} must be a finite number >= 0, got {value!r}")
    return rate


def register_pricing(
    model: str,
    input_per_mtok: float,
    output_per_mtok: float,
    *,
    cache_write_multiplier: float | None = None,
    cache_read_multiplier: float | None = None,
    note: str | None = None,
) -> None:
    """Add or replace one model's published rates for this process.

    Args:
        model: the model id exactly as sent to the provider (non-empty).
        input_per_mtok: USD per million input tokens (>= 0).
        output_per_mtok: USD per million output tokens (>= 0).
        cache_write_multiplier: override of the table's cache-write multiplier for this model.
        cache_read_multiplier: override of the table's (or the model family's) cache-read multiplier.
        note: where the price comes from (recorded in ``pricing_table()``).

    Raises:
        PricingError: an empty model id, or a rate that is not a finite number >= 0.
    """
    global _table
    if not isinstance(model, str) or not model:
        raise PricingError(f"model must be a non-empty string, got {model!r}")
    entry = PricingEntry(
        input_per_mtok=_check_rate("input_per_mtok", input_per_mtok),
        output_per_mtok=_check_rate("output_per_mtok", output_per_mtok),
        cache_write_multiplier=None if cache_write_multiplier is None
        else _check_rate("cache_write_multiplier", cache_write_multiplier),
        cache_read_multiplier=None if cache_read_multiplier is None
        else _check_rate("cache_read_multiplier", cache_read_multiplier),
        note=note if note is not None and note.strip() else None,
    )
    with _lock:
        current = _current()
        _table = attrs.evolve(current, models={**current.models, model: entry})
        _declared.pop(model, None)


def declare_pricing(model: str, input_per_mtok: float, output_per_mtok: float, *,
                    reason: str) -> None:
    """Register a price that is declared, not published: the user's (``--price-per-mtok``) or
    aau's $0 for a local model (``cost_model_for``). ``CostTracker.as_dict()`` then carries
    ``price_declared: reason``, so a result shows the cost rests on a declaration.

    Args:
        model, input_per_mtok, output_per_mtok: as ``register_pricing`` (USD per million tokens).
        reason: the declaration, recorded (non-empty).

    Raises:
        PricingError: as ``register_pricing``, or an empty reason.
    """
    if not reason.strip():
        raise PricingError("a declared price needs a reason")
    register_pricing(model, input_per_mtok, output_per_mtok, note=reason)
    with _lock:
        _declared[model] = reason


LOCAL_DECLARED_REASON = ("declared $0: a local model has no per-token bill (aau's default for "
                         "--backend local; give a price with --price-per-mtok)")
"""``price_declared`` of a ``local`` model nobody priced (``cost_model_for``)."""


def cost_model_for(backend: Any, backend_kind: str) -> str:
    """The model id whose price a run of ``backend`` is charged at (the module's one rule).

    Args:
        backend: a built backend; its ``model`` attribute (``None``/absent: ``"mock"``).
        backend_kind: its ``make_backend`` kind (``"local"`` gets the declared $0).

    Returns:
        the model id, priced: already in the table, or (``local`` only) just declared at $0
        with ``LOCAL_DECLARED_REASON``.

    Raises:
        UnknownModelPricingError: an unpriced model of any other kind, before any run.
    """
    model = str(getattr(backend, "model", None) or "mock")
    try:
        price_for(model)
    except UnknownModelPricingError:
        if backend_kind != "local":
            raise
        declare_pricing(model, 0.0, 0.0, reason=LOCAL_DECLARED_REASON)
    return model


def register_pricing_file(path: str | os.PathLike[str]) -> int:
    """Merge the models of a ``pricing`` document (``aau-pricing/1.0``) into the table in force.

    The file's own multipliers travel with its models (each model gets them as overrides), so a
    file's rates mean the same whichever table they are merged into.

    Returns:
        the number of models registered.

    Raises:
        InputError: the file is unreadable or not strict JSON.
        PricingError: it does not validate against the ``pricing`` schema.
    """
    from .._files._strict_json import read_json_file

    doc = _structured(_validated(read_json_file(path, max_bytes=10_000_000), os.fspath(path)))
    for model, entry in doc.models.items():
        register_pricing(
            model,
            entry.input_per_mtok,
            entry.output_per_mtok,
            cache_write_multiplier=_write_multiplier(doc, entry),
            cache_read_multiplier=_read_multiplier(doc, model, entry),
            note=entry.note,
        )
    return len(doc.models)


def _write_multiplier(doc: PricingDocument, entry: PricingEntry) -> float:
    if entry.cache_write_multiplier is not None:
        return entry.cache_write_multiplier
    return doc.cache_write_multiplier


def _read_multiplier(doc: PricingDocument, model: str, entry: PricingEntry) -> float:
    """The model's own read multiplier, else its family's, else the table's (the schema's
    order)."""
    if entry.cache_read_multiplier is not None:
        return entry.cache_read_multiplier
    for family, mult in (doc.cache_read_multiplier_by_family or {}).items():
        if model.startswith(family) or f"/{family}" in model:
            return float(mult)
    return float(doc.cache_read_multiplier)


def price_for(model: str) -> ModelPrice:
    """Return the rates that apply to ``model`` (exact id match; see the module docstring).

    Raises:
        UnknownModelPricingError: the table has no entry for ``model``.
    """
    with _lock:
        doc = _current()
        entry = doc.models.get(model)
        if entry is None:
            raise UnknownModelPricingError(model)
        return ModelPrice(
            input_per_mtok=float(entry.input_per_mtok),
            output_per_mtok=float(entry.output_per_mtok),
            cache_write_multiplier=float(_write_multiplier(doc, entry)),
            cache_read_multiplier=float(_read_multiplier(doc, model, entry)),
            declared=_declared.get(model),
        )


def _reset_pricing() -> None:
    """Forget registrations (tests only): the next lookup re-reads the shipped table."""
    global _table
    with _lock:
        _table = None
        _declared.clear()


_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


def _count(usage: Any, name: str) -> int:
    value = usage.get(name) if isinstance(usage, Mapping) else getattr(usage, name, None)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"usage.{name} must be a token count >= 0, got {value!r}")
    return int(value)


@attrs.define
class CostTracker:
    """Token counts and dollar cost of the API calls of one agent run.

    Args:
        model: the model id whose rates apply (looked up once, here).

    Raises:
        UnknownModelPricingError: no price is known for ``model``.

    Attributes:
        input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens: the
            token counts added so far; ``api_calls``: how many usage blocks were added.
    """

    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    api_calls: int = 0
    price: ModelPrice = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        self.price = price_for(self.model)

    def add_usage(self, usage: Any) -> None:
        """Add one API call's usage and count the call.

        Args:
            usage: an object (e.g. an SDK ``usage``) or a mapping with any of ``input_tokens``,
                ``output_tokens``, ``cache_creation_input_tokens``, ``cache_read_input_tokens``;
                a missing or ``None`` field counts as 0; ``None`` itself counts the call only.

        Raises:
            ValueError: a field that is not a token count >= 0.
        """
        counts = [0, 0, 0, 0] if usage is None else [_count(usage, f) for f in _USAGE_FIELDS]
        self.input_tokens += counts[0]
        self.output_tokens += counts[1]
        self.cache_creation_input_tokens += counts[2]
        self.cache_read_input_tokens += counts[3]
        self.api_calls += 1

    @property
    def total_input_tokens(self) -> int:
        """The whole prompt size: uncached + cache-written + cache-read tokens."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @property
    def cost_usd(self) -> float:
        """Cost in USD of everything added so far (unrounded; formula in the module docstring)."""
        p = self.price
        return (
            self.input_tokens * p.input_per_mtok
            + self.cache_creation_input_tokens * p.input_per_mtok * p.cache_write_multiplier
            + self.cache_read_input_tokens * p.input_per_mtok * p.cache_read_multiplier
            + self.output_tokens * p.output_per_mtok
        ) / 1_000_000

    def as_dict(self) -> dict[str, Any]:
        """Return ``{model, api_calls, <four token counts>, cost_usd}``, cost rounded to 6 places
        (the ``usage`` shape aau-harness 1.6 stores in a result's ``detail``), plus
        ``price_declared`` (the reason) when the price was declared (``declare_pricing``).

        Stays a dict built here: it is no document of a schema kind (a value inside a result's
        free-form ``detail``), and ``cost_usd`` is derived and rounded, not a field."""
        out: dict[str, Any] = {
            "model": self.model,
            "api_calls": self.api_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cost_usd": round(self.cost_usd, 6),
        }
        if self.price.declared is not None:
            out["price_declared"] = self.price.declared
        return out
