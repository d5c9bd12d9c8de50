#!/usr/bin/env bash
# Build the helm and kustomize binaries the chart and overlay tests run, with Go and the Go
# module proxy, into a cache directory outside the repository (default ~/.cache/dralint-tools;
# override with DRALINT_TOOLS_DIR). A binary already there is kept, so later runs cost nothing.
# Prints the directory; the tests find the binaries through DRALINT_TOOLS_DIR.
# dralint itself never needs Go: it runs whatever helm/kustomize/kubectl is on PATH.
set -euo pipefail
HELM_VERSION=v3.22.0
# kustomize v5.8.2 builds on sigs.k8s.io/kustomize/api v0.21.2, which Go 1.26 compiles
# (v5.8.3 needs api v0.21.3 and a newer Go).
KUSTOMIZE_VERSION=v5.8.2
dir="${DRALINT_TOOLS_DIR:-$HOME/.cache/dralint-tools}"
mkdir -p "$dir"
build() {  # build NAME MODULE@VERSION, unless a stamp says $dir/NAME is that version
    # (a stamp, because `helm version` of a go-installed helm prints only "v3.22")
    local name="$1" module="$2" stamp="$dir/.$1-${2##*@}"
    if [ -x "$dir/$name" ] && [ -f "$stamp" ]; then
        return
    fi
    (cd "$(mktemp -d)" && GOBIN="$dir" GOFLAGS=-mod=mod go install "$module") >&2
    touch "$stamp"
}
build helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
build kustomize "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
echo "$dir"
