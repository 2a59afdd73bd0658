#!/usr/bin/env bash
# Static checks of deploy/: the systemd unit (systemd-analyze verify + security score), the
# Dockerfile (two linters), compose.yaml and nginx.conf, and the Kubernetes manifests (YAML,
# kustomization references, and `kubectl kustomize` when kubectl can). Part of `make test`.
set -uo pipefail
cd "$(dirname "$0")/.."
fail=0
bad() { echo "deploy-check: FAIL: $*" >&2; fail=1; }

# systemd: the unit's exposure must be at most 3.9 and rated OK, SAFE or PERFECT (systemd-analyze
# calls 1.0-4.9 OK, 0.1-0.9 SAFE, 0 PERFECT; MEDIUM and worse fail).
max_exposure=3.9
if command -v systemd-analyze >/dev/null 2>&1; then
    out=$(systemd-analyze security --offline=yes deploy/imaxe.service 2>&1)
    line=$(printf '%s\n' "$out" | grep 'Overall exposure level' | tail -1)
    score=$(printf '%s\n' "$line" | sed -n 's/.*: \([0-9.]*\) .*/\1/p')
    if [ -z "$score" ]; then
        printf '%s\n' "$out" >&2
        bad "systemd-analyze security gave no score"
    elif python3 -c "import sys; sys.exit(0 if float('$score') <= $max_exposure else 1)" &&
        printf '%s\n' "$line" | grep -Eq " $score (OK|SAFE|PERFECT)"; then
        echo "systemd-analyze security: ${line#*: } (limit $max_exposure)"
    else
        printf '%s\n' "$out" | grep '✗' >&2
        bad "imaxe.service exposure $score is above $max_exposure"
    fi
    # verify needs the ExecStart binary to exist: point it at this build's.
    tmp=$(mktemp -d)
    sed "s|/usr/bin/imaxe-server|$PWD/build/imaxe-server|" deploy/imaxe.service >"$tmp/imaxe.service"
    vout=$(systemd-analyze verify "$tmp/imaxe.service" 2>&1)
    rm -rf "$tmp"
    if [ -n "$vout" ]; then
        printf '%s\n' "$vout" >&2
        bad "systemd-analyze verify complained about imaxe.service"
    else
        echo "systemd-analyze verify: imaxe.service clean"
    fi
else
    echo "deploy-check: SKIPPED the systemd unit checks: systemd-analyze is not installed (apt-get install systemd)"
fi

# Dockerfile: dockerfile-utils (instruction syntax and flags) and dockerfilelint (practices).
tools/npm-deps.sh
if tests/node_modules/.bin/dockerfile-utils lint deploy/Dockerfile; then
    echo "dockerfile-utils lint: deploy/Dockerfile clean"
else
    bad "dockerfile-utils lint deploy/Dockerfile"
fi
if out=$(tests/node_modules/.bin/dockerfilelint deploy/Dockerfile 2>&1); then
    echo "dockerfilelint: deploy/Dockerfile clean"
else
    printf '%s\n' "$out" >&2
    bad "dockerfilelint deploy/Dockerfile"
fi

# compose.yaml, nginx.conf and the Kubernetes manifests.
python3 tools/deploy_yaml_check.py || fail=1

if command -v kubectl >/dev/null 2>&1 && kubectl version --client 2>/dev/null | grep -q 'Kustomize Version: v[4-9]'; then
    if out=$(kubectl kustomize deploy/k8s/overlays/example 2>&1); then
        n=$(printf '%s\n' "$out" | grep -c '^kind:')
        echo "kubectl kustomize deploy/k8s/overlays/example: $n objects rendered"
        printf '%s\n' "$out" | python3 tools/deploy_yaml_check.py --rendered || fail=1
    else
        printf '%s\n' "$out" >&2
        bad "kubectl kustomize deploy/k8s/overlays/example"
    fi
else
    echo "deploy-check: kubectl with kustomize v4+ is not installed: checked the manifests as YAML and their kustomization references only"
fi

exit $fail
