"""Generate a realistic multi-document manifest stream for benchmarks.

The mix follows a GPU platform repository: Deployments, Jobs and Pods that claim devices
through ResourceClaimTemplates, the DeviceClasses they name, flow mappings, quoted strings and
multi-line CEL selectors. Output is deterministic for a given count.
"""

from __future__ import annotations

import argparse
import sys

DEVICE_CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu-{g}.example.com
spec:
  selectors:
  - cel:
      expression: |
        device.driver == "gpu.example.com" &&
        device.attributes["gpu.example.com"].model == "model-{m}"
"""
TEMPLATE = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: claim-{g}-{i}
  namespace: team-{ns}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu-{g}.example.com
          count: {count}
          selectors:
          - cel:
              expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: serve-{i}
  namespace: team-{ns}
  labels: {{app: serve-{i}, tier: "gpu"}}
spec:
  replicas: {count}
  selector:
    matchLabels: {{app: serve-{i}}}
  template:
    metadata:
      labels: {{app: serve-{i}}}
    spec:
      resourceClaims:
      - name: gpu
        resourceClaimTemplateName: claim-{g}-{t}
      containers:
      - name: server
        image: "registry.example.com/serve:1.{m}.0"
        args: ["--port=8080", "--model=/models/m{m}"]
        ports:
        - containerPort: 8080
        resources:
          claims:
          - name: gpu
          requests: {{cpu: "2", memory: 8Gi}}
          limits: {{memory: 8Gi}}
        readinessProbe:
          httpGet: {{path: /ready, port: 8080}}
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: train-{i}
  namespace: team-{ns}
spec:
  parallelism: {count}
  template:
    spec:
      restartPolicy: Never
      resourceClaims:
      - name: gpus
        resourceClaimTemplateName: claim-{g}-{t}
      containers:
      - name: trainer
        image: registry.example.com/train:2.{m}
        command: ["python", "train.py"]
        env:
        - name: EPOCHS
          value: "{count}0"
        resources:
          claims:
          - name: gpus
"""
POD = """apiVersion: v1
kind: Pod
metadata:
  name: smoke-{i}
  namespace: team-{ns}
spec:
  containers:
  - name: smoke
    image: registry.example.com/cuda-smoke:12.{m}
    resources:
      limits:
        nvidia.com/gpu: {count}
"""
SHAPES = (TEMPLATE, DEPLOYMENT, JOB, POD, TEMPLATE, DEPLOYMENT, JOB, POD, DEVICE_CLASS)


def generate(count: int, start: int = 0) -> str:
    """``count`` documents joined by ``---``, numbered from ``start`` (so files generated with
    different starts hold different objects).

    Documents come in groups of nine, like a team's directory: two claim templates, the
    workloads that use them and the DeviceClass they name, so references resolve as they do
    in a real repository (a run that is mostly broken references measures something else).
    """
    docs = []
    for i in range(start, start + count):
        group, position = divmod(i, len(SHAPES))
        template = group * len(SHAPES) + (0 if position < 4 else 4)
        docs.append(SHAPES[position].format(i=i, g=group, t=template, ns=group % 7, m=i % 5, count=1 + i % 4))
    return "---\n".join(docs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("count", type=int, nargs="?", default=1000)
    args = parser.parse_args()
    sys.stdout.write(generate(args.count))


if __name__ == "__main__":
    main()
