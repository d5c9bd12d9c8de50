"""The allocator's selector matcher backed by the DRA CEL adapter.

The allocator evaluates selectors through a ``Matcher`` callable so it never depends on a CEL
engine; this module is the one place that joins the two, for the lint run and ``dralint doctor``.
"""

from __future__ import annotations

from collections.abc import Sequence

from dralint.k8s.allocator import EvalError, Matcher
from dralint.k8s.cel import Device as CelDevice
from dralint.k8s.cel import matches as cel_matches
from dralint.k8s.inventory import Device, DeviceId


def cel_view(views: dict[DeviceId, CelDevice], dev: Device) -> CelDevice:
    """The CEL adapter's view of a device, converted once and kept in ``views``."""
    view = views.get(dev.id)
    if view is None:
        view = views[dev.id] = CelDevice.from_slice(dev.driver, dev.data, dev.id.pool)
    return view


def cel_matcher(views: dict[DeviceId, CelDevice] | None = None) -> Matcher:
    """Selector evaluation through the CEL adapter, with one CEL device view per device."""
    cache: dict[DeviceId, CelDevice] = {} if views is None else views

    def matches(expressions: Sequence[str], dev: Device) -> bool | EvalError:
        view = cel_view(cache, dev)
        result = cel_matches(tuple(expressions), view)
        if result.unsupported:
            return EvalError(result.selector or 0, result.unsupported, "unsupported")
        if result.error:
            kind = "compile" if result.error.startswith("CEL compile error") else "runtime"
            return EvalError(result.selector or 0, result.error, kind)
        return result.matched

    return matches
