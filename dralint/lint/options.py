"""Run options: everything a lint run is parameterised by, gathered from CLI and config."""

from __future__ import annotations

from dataclasses import dataclass, field

from dralint.yaml.sources import MAX_FILE_BYTES

PROFILES = ("dra", "recommended", "strict")
#: ``--fail-on`` levels: the lowest severity that fails the run, or never.
FAIL_ON = ("error", "warning", "info", "never")
#: ``--pss-level``: the Pod Security Standards level every namespace enforces unless its labels say otherwise.
PSS_LEVELS = ("baseline", "restricted")


@dataclass
class LintOptions:
    """What to lint and how; the CLI and the config file both fill this one object."""

    paths: list[str] = field(default_factory=lambda: ["."])
    exclude: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    slices: list[str] = field(default_factory=list)
    feature_gates: dict[str, bool] = field(default_factory=dict)
    #: The release of each DRA driver the cluster runs (``gpu.nvidia.com: 25.8.0``); drivers not
    #: named here are judged against every release of the driver catalog (docs/drivers.md).
    drivers: dict[str, str] = field(default_factory=dict)
    #: A team's own driver catalog files, added to the one dralint ships.
    driver_catalogs: list[str] = field(default_factory=list)
    closed_world: set[str] = field(default_factory=set)
    profile: str = "recommended"
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    severity_overrides: dict[str, str] = field(default_factory=dict)
    stdin_name: str = "<stdin>"
    max_file_bytes: int = MAX_FILE_BYTES
    #: Worker processes (``--jobs``); 0 means one per available CPU.
    jobs: int = 0
    # Stages after the engine run (suppression, baseline, gates, SARIF) read these.
    per_path_ignores: dict[str, list[str]] = field(default_factory=dict)
    baseline: str | None = None
    fail_on: str = "error"
    min_score: int | None = None
    sarif_root: str = "."
    pss_level: str | None = None
    # Thresholds and lists of the general checks, where other linters make them configurable.
    #: Service types SEC042 reports (kube-linter's forbiddenServiceTypes).
    exposed_service_types: list[str] = field(default_factory=lambda: ["NodePort", "LoadBalancer"])
    #: The fewest replicas REL011 accepts as an autoscaler's minReplicas.
    hpa_min_replicas: int = 2
    #: priorityClassNames pods may use; REL019 is off while this is empty.
    allowed_priority_classes: list[str] = field(default_factory=list)
    #: Label and annotation keys every workload must carry; REL025 is off while both are empty.
    required_labels: list[str] = field(default_factory=list)
    required_annotations: list[str] = field(default_factory=list)
    #: The highest resolver ``ndots`` REL026 accepts for ClusterFirst pods; off while unset.
    max_dns_ndots: int | None = None
    # Rendering charts and overlays (dralint.lint.rendering): `helm template` settings for every
    # chart, and per chart directory in `charts` ({values: [..], set: [..], release, namespace}).
    helm_values: list[str] = field(default_factory=list)
    helm_set: list[str] = field(default_factory=list)
    helm_release: str = "release-name"
    helm_namespace: str | None = None
    helm_command: str = "helm"
    charts: dict[str, dict] = field(default_factory=dict)
