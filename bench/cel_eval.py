"""Evaluate one DRA selector against 10,000 generated devices and print the time.

Run: PYTHONPATH=. /work/venv/bin/python bench/cel_eval.py [devices]
The devices mix two drivers (85% gpu.example.com) so short-circuiting is exercised; each has
string, int, bool and version attributes and a memory capacity, like a real GPU slice.
Compilation happens once and is timed separately; device conversion is included.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dralint.k8s.cel import Device, check, matching_devices  # noqa: E402
from dralint.k8s.quantity import parse_quantity  # noqa: E402
from dralint.k8s.semver import parse_semver  # noqa: E402

SELECTOR = (
    'device.driver == "gpu.example.com" && '
    'device.attributes["gpu.example.com"].productName.lowerAscii().contains("a100") && '
    'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("550.0.0")) && '
    'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0 && '
    'device.attributes["gpu.example.com"].index % 2 == 0'
)


def make_devices(count: int) -> list[Device]:
    devices = []
    for i in range(count):
        driver = "gpu.example.com" if i % 20 < 17 else "nic.example.com"
        devices.append(
            Device(
                driver=driver,
                name=f"dev-{i}",
                pool=f"node-{i // 8}",
                attributes={
                    driver: {
                        "productName": "NVIDIA A100" if i % 3 else "NVIDIA H100",
                        "index": i % 8,
                        "healthy": True,
                        "driverVersion": parse_semver(f"{540 + i % 20}.1.{i % 5}"),
                    }
                },
                capacity={driver: {"memory": parse_quantity("80Gi" if i % 2 else "40Gi")}},
            )
        )
    return devices


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    devices = make_devices(count)
    start = time.perf_counter()
    result = check(SELECTOR)
    compile_ms = (time.perf_counter() - start) * 1000
    assert result.ok, result
    for label in ("first run (converts devices)", "second run (device data cached)"):
        start = time.perf_counter()
        selection = matching_devices([SELECTOR], devices)
        elapsed = time.perf_counter() - start
        print(
            f"{label}: {count} devices in {elapsed * 1000:.1f} ms "
            f"({count / elapsed:,.0f} devices/s), {len(selection.matched)} matched"
        )
    print(f"check + cost estimate: {compile_ms:.2f} ms")


if __name__ == "__main__":
    main()
