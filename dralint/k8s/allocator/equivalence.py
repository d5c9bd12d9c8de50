"""Nodes that look the same to the allocator get the same answer, computed once.

A fleet is mostly copies of a few node shapes. The allocator never sees node or device names
(CEL sees driver, attributes and capacity; constraints see attribute values), so two nodes
whose candidate devices match one for one in content, pool grouping, occupancy and free
counters give the same search result, with devices mapped by position. Only the snapshot's
own occupancy is keyed this way: packing states change with every placed pod.

A node's class adds what the rest of a placement reads of the node (allocatable, for
device-plugin resources, and the kubelet version) to its shape. Labels and the node name only
matter to a pod's node selector and affinity, which the simulator checks per node.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from dralint.k8s.allocator.model import Claim
from dralint.k8s.allocator.search import ClaimResult, Pick, Selection
from dralint.k8s.allocator.view import NodeView, State
from dralint.k8s.inventory import Device, Node


def _device_key(dev: Device) -> Hashable:
    """What the search reads of a device; its attributes and capacity are in the selector key."""
    return (
        dev.selector_key,
        dev.consumes,
        dev.taints,
        dev.allow_multiple,
        dev.binding_conditions,
        dev.binds_to_node,
    )


def reads_key(
    selection: Selection, selectors: Sequence[tuple[str, ...]], attributes: Sequence[str]
) -> Callable[[Device], Hashable]:
    """A device key for pods whose classes and requests select with ``selectors`` and whose
    constraints compare ``attributes``: the selectors' answers instead of the attributes, so
    devices that differ only in attributes the pod never reads (a serial number, a PCI address)
    look the same. Capacity, counters, taints and flags are read by the search itself."""

    def key(dev: Device) -> Hashable:
        return (
            tuple(selection.evaluate(exprs, dev) for exprs in selectors),
            tuple(dev.attribute(name) for name in attributes),
            tuple(sorted((name, cap.value, cap.policy) for name, cap in dev.capacity.items())),
            dev.consumes,
            dev.taints,
            dev.allow_multiple,
            dev.binding_conditions,
            dev.binds_to_node,
        )

    return key


class NodeShapes:
    """Shape keys of nodes under one fixed state, and position lookup for result mapping.

    ``device_key`` says when two devices are alike: by default in everything selectors can
    see; :func:`reads_key` narrows that to what one pod's selectors answer."""

    def __init__(self, state: State, device_key: Callable[[Device], Hashable] = _device_key) -> None:
        self.state = state
        self._device_key = device_key
        #: A small number per device (by id), the same for devices alike under ``device_key``:
        #: shapes of small numbers hash in a fraction of the time of the keys themselves.
        self._devices: dict[int, int] = {}
        self._contents: dict[Hashable, int] = {}
        self._nodes: dict[int, int] = {}
        self._shapes: dict[Hashable, int] = {}
        self._positions: dict[int, dict[int, int]] = {}
        self._classes: dict[Hashable, int] = {}

    def key(self, view: NodeView) -> int:
        """A small number per distinct shape (hashing the full shape on every lookup would cost
        more than the search it saves): devices in order, pools, occupancy, counters left."""
        found = self._nodes.get(id(view))
        if found is not None:
            return found
        pools: dict[tuple[str, str], int] = {}
        items = []
        state = self.state
        for dev in view.candidates:
            content = self._devices.get(id(dev))
            if content is None:
                content = self._devices[id(dev)] = self._contents.setdefault(self._device_key(dev), len(self._contents))
            dev_id = dev.id
            pool = pools.setdefault((dev_id.driver, dev_id.pool), len(pools))
            used = state.shared_use(dev_id)
            items.append((content, pool, state.is_dedicated(dev_id), tuple(sorted(used.items())) if used else ()))
        counters = tuple(
            tuple(
                sorted((k, total - state.counters_used(p).get(k, 0)) for k, total in view.counters.get(p, {}).items())
            )
            for p in pools
        )
        incomplete = tuple(label.split("/", 1)[0] for label in view.incomplete)
        shape = (tuple(items), counters, incomplete, bool(view.invalid))
        found = self._nodes[id(view)] = self._shapes.setdefault(shape, len(self._shapes))
        return found

    def node_class(self, node: Node, view: NodeView) -> int:
        """A small number per equivalence class: same shape, allocatable, kubelet version and taints."""
        key = (self.key(view), tuple(sorted(node.allocatable.items())), node.kubelet, node.taints)
        return self._classes.setdefault(key, len(self._classes))

    def portable(self, view: NodeView, results: list[ClaimResult]) -> list[tuple[Any, list[tuple]]]:
        """Results with devices replaced by their position among the view's candidates (each
        result keeps its claim, which :meth:`restore` replaces by the asking pod's own)."""
        positions = self._positions.get(id(view))
        if positions is None:
            positions = self._positions[id(view)] = {id(d): i for i, d in enumerate(view.candidates)}
        return [
            (r.claim, [(p.request, positions[id(p.device)], p.shared, p.consumed, p.admin) for p in r.picks])
            for r in results
        ]

    @staticmethod
    def restore(view: NodeView, portable: list[tuple[Any, list[tuple]]], claims: Sequence[Claim]) -> list[ClaimResult]:
        """The same results on another node of the same shape, for ``claims`` (the asking pod's,
        equal in content to those the results were found for; a result past them, the special
        claim of extended resources, keeps its own)."""
        return [
            ClaimResult(
                claims[k] if k < len(claims) else claim,
                tuple(Pick(req, view.candidates[i], shared, used, admin) for req, i, shared, used, admin in picks),
            )
            for k, (claim, picks) in enumerate(portable)
        ]


def claim_key(claim: Claim) -> Hashable:
    """A claim's content as the search reads it: everything but its label and source, which only
    name it in messages (and a search that succeeds, or fails without an explanation, has none)."""
    return (
        tuple(
            (
                req.name,
                req.prioritized,
                tuple(
                    (
                        alt.request,
                        alt.sub,
                        alt.class_name,
                        alt.selectors,
                        alt.all_mode,
                        alt.count,
                        alt.admin,
                        alt.tolerations,
                        tuple(sorted(alt.capacity.items())),
                    )
                    for alt in req.alternatives
                ),
            )
            for req in claim.requests
        ),
        claim.constraints,
        claim.extended,
    )
