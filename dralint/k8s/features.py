"""The Kubernetes v1.37 feature gates that change what dralint checks, with their defaults.

Source: the "Feature gates in Kubernetes v1.37" reference and the DRA gates in the
Kubernetes features list (see docs/api-validation.md). A gate outside this table changes
nothing dralint models, so naming one is most likely a typo of one that does.
"""

from __future__ import annotations

#: Gate name -> default in v1.37.
DRA_GATES: dict[str, bool] = {
    "DynamicResourceAllocation": True,
    "DRAPrioritizedList": True,
    "DRAAdminAccess": True,
    "DRAResourceClaimDeviceStatus": True,
    "DRAExtendedResource": True,
    "DRADeviceTaints": True,
    "DRADeviceTaintRules": True,
    "DRAConsumableCapacity": True,
    "DRADeviceBindingConditions": True,
    "DRAPartitionableDevices": True,
    "DRAFractionalCapacityRange": True,
    "DRAResourceClaimGranularStatusAuthorization": True,
    "DRASchedulerFilterTimeout": True,
    "DRAListTypeAttributes": False,
    "DRANodeAllocatableResources": False,
    "DRAResourcePoolStatus": False,
    "DRAWorkloadResourceClaims": False,
    "DRADerivedAttributes": False,
    "DRADeviceCompatibilityGroups": False,
    "DRAOptionalNodeOperations": False,
    "DRAPartitionableDevicesType": False,
}
