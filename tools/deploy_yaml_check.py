#!/usr/bin/env python3
"""Checks deploy/compose.yaml, deploy/nginx.conf and deploy/k8s/ parse and hang together, and
that every recipe (those two and the systemd unit) sets the first admin from a secret.

  deploy_yaml_check.py             the files under deploy/
  deploy_yaml_check.py --rendered  `kubectl kustomize` output of the example overlay, on stdin
Prints what it checked; exits 1 listing every problem found.
"""
import os
import re
import sys

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DEPLOY = os.path.join(ROOT, "deploy")
problems = []


def check(cond, what):
    if not cond:
        problems.append(what)
    return cond


def load_all(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def check_compose():
    path = os.path.join(DEPLOY, "compose.yaml")
    (doc,) = load_all(path)
    services = doc.get("services", {})
    pg = services.get("postgres", {})
    test = " ".join(pg.get("healthcheck", {}).get("test", []))
    check("pg_isready" in test, "compose: postgres has no pg_isready health check")
    migrate = services.get("migrate", {})
    check(migrate.get("command") == ["migrate"], "compose: no one-shot `migrate` service")
    check(migrate.get("depends_on", {}).get("postgres", {}).get("condition") == "service_healthy",
          "compose: migrate does not wait for a healthy postgres")
    servers = sorted(n for n, s in services.items() if s.get("command") == ["serve"])
    check(len(servers) >= 2, "compose: fewer than two imaxe-server replicas")
    for name in servers:
        s = services[name]
        check(s.get("build", {}).get("dockerfile") == "deploy/Dockerfile",
              f"compose: {name} is not built from deploy/Dockerfile")
        check(s.get("depends_on", {}).get("migrate", {}).get("condition")
              == "service_completed_successfully", f"compose: {name} starts before migrate ends")
        check(s.get("read_only") is True, f"compose: {name} has a writable root filesystem")
    nginx = services.get("nginx", {})
    check(nginx.get("image", "").startswith("nginx:") or "debian" in nginx.get("image", ""),
          "compose: no nginx service")
    declared = set(doc.get("secrets", {}))
    for name, s in services.items():
        for secret in s.get("secrets", []):
            check(secret in declared, f"compose: {name} uses undeclared secret {secret}")

    # The first admin: its email from the environment, its password from a secret of the service.
    for name in servers:
        s = services[name]
        env = s.get("environment", {})
        pw = env.get("IMAXE_ADMIN_PASSWORD_FILE", "")
        check("IMAXE_ADMIN_EMAIL" in env, f"compose: {name} sets no IMAXE_ADMIN_EMAIL")
        check(pw.startswith("/run/secrets/") and pw[len("/run/secrets/"):] in s.get("secrets", []),
              f"compose: {name}'s IMAXE_ADMIN_PASSWORD_FILE ({pw or 'unset'}) is not one of its "
              "secrets")

    # nginx balances exactly the serving replicas.
    with open(os.path.join(DEPLOY, "nginx.conf"), encoding="utf-8") as f:
        conf = f.read()
    upstream = sorted(re.findall(r"^\s*server\s+([\w.-]+):8080\b", conf, re.M))
    check(upstream == servers, f"nginx.conf: upstream {upstream} is not the replicas {servers}")
    check(conf.count("{") == conf.count("}"), "nginx.conf: unbalanced braces")
    print(f"compose.yaml: postgres (pg_isready), migrate, {len(servers)} replicas, nginx -> "
          f"{', '.join(upstream)}")


def check_kustomizations():
    k8s = os.path.join(DEPLOY, "k8s")
    count = 0
    for dirpath, _, files in os.walk(k8s):
        yamls = sorted(f for f in files if f.endswith((".yaml", ".yml")))
        for f in yamls:
            load_all(os.path.join(dirpath, f))  # raises on a parse error
            count += 1
        if "kustomization.yaml" not in yamls:
            check(not yamls, f"k8s: {os.path.relpath(dirpath, ROOT)} has manifests but no "
                  "kustomization.yaml")
            continue
        (kust,) = load_all(os.path.join(dirpath, "kustomization.yaml"))
        referenced = set()
        for ref in kust.get("resources", []) + [p["path"] for p in kust.get("patches", [])]:
            target = os.path.normpath(os.path.join(dirpath, ref))
            if os.path.isdir(target):
                check(os.path.exists(os.path.join(target, "kustomization.yaml")),
                      f"k8s: {ref} (from {dirpath}) is a directory without kustomization.yaml")
            else:
                check(os.path.isfile(target), f"k8s: {os.path.relpath(dirpath, ROOT)}/"
                      f"kustomization.yaml refers to missing {ref}")
                referenced.add(os.path.basename(target))
        for f in yamls:
            check(f == "kustomization.yaml" or f in referenced,
                  f"k8s: {os.path.relpath(os.path.join(dirpath, f), ROOT)} is not referenced")
    print(f"k8s: {count} YAML files parse; kustomization references resolve")

    base = {}
    for f in os.listdir(os.path.join(k8s, "base")):
        for d in load_all(os.path.join(k8s, "base", f)):
            base.setdefault(d.get("kind"), []).append(d)
    check_objects(base, "k8s base")


def check_objects(objs, where):
    for kind in ("Deployment", "Service", "ConfigMap", "Secret", "PodDisruptionBudget", "Job"):
        check(kind in objs, f"{where}: no {kind}")
    for dep in objs.get("Deployment", []):
        spec = dep["spec"]
        check(spec.get("replicas") == 3, f"{where}: Deployment replicas is not 3")
        pod = spec["template"]["spec"]
        check(pod.get("securityContext", {}).get("runAsNonRoot") is True,
              f"{where}: pod may run as root")
        check(pod.get("securityContext", {}).get("seccompProfile", {}).get("type")
              == "RuntimeDefault", f"{where}: no RuntimeDefault seccomp profile")
        (c,) = pod["containers"]
        check(c.get("readinessProbe", {}).get("httpGet", {}).get("path") == "/readyz",
              f"{where}: readiness probe is not /readyz")
        check(c.get("livenessProbe", {}).get("httpGet", {}).get("path") == "/livez",
              f"{where}: liveness probe is not /livez")
        check("preStop" in c.get("lifecycle", {}), f"{where}: no preStop drain")
        sc = c.get("securityContext", {})
        check(sc.get("readOnlyRootFilesystem") is True, f"{where}: writable root filesystem")
        check(sc.get("allowPrivilegeEscalation") is False, f"{where}: privilege escalation allowed")
        check(sc.get("capabilities", {}).get("drop") == ["ALL"], f"{where}: capabilities kept")
        res = c.get("resources", {})
        check("requests" in res and "limits" in res, f"{where}: no resource requests/limits")
        # The first admin's password is a file of a mounted Secret that holds that key.
        env = {e["name"]: e.get("value", "") for e in c.get("env", [])}
        pw = env.get("IMAXE_ADMIN_PASSWORD_FILE", "")
        secret_vols = {v["name"]: v["secret"]["secretName"] for v in pod.get("volumes", [])
                       if "secret" in v}
        mounted = [(m["mountPath"].rstrip("/") + "/", secret_vols[m["name"]])
                   for m in c.get("volumeMounts", []) if m["name"] in secret_vols]
        holder = [(sec, pw[len(path):]) for path, sec in mounted if pw.startswith(path)]
        check(holder, f"{where}: IMAXE_ADMIN_PASSWORD_FILE ({pw or 'unset'}) is not in a mounted "
              "Secret")
        for sec, key in holder:
            keys = [k for d in objs.get("Secret", []) if d["metadata"]["name"] == sec
                    for k in list(d.get("stringData", {})) + list(d.get("data", {}))]
            check(key in keys, f"{where}: Secret {sec} has no {key} for the first admin")
        check(any("IMAXE_ADMIN_EMAIL" in d.get("data", {}) for d in objs.get("ConfigMap", [])),
              f"{where}: no ConfigMap sets IMAXE_ADMIN_EMAIL")
    for job in objs.get("Job", []):
        (c,) = job["spec"]["template"]["spec"]["containers"]
        check(c.get("args") == ["migrate"], f"{where}: the Job does not run `imaxe-server migrate`")


def check_systemd():
    """The unit hands the first admin's password over as a credential, never the environment."""
    with open(os.path.join(DEPLOY, "imaxe.service"), encoding="utf-8") as f:
        unit = f.read()
    cred = re.search(r"^LoadCredential=admin-password:(\S+)$", unit, re.M)
    check(cred, "imaxe.service: no LoadCredential=admin-password:...")
    check(re.search(r"^Environment=IMAXE_ADMIN_PASSWORD_FILE=%d/admin-password$", unit, re.M),
          "imaxe.service: IMAXE_ADMIN_PASSWORD_FILE is not the admin-password credential")
    check(not re.search(r"^Environment=IMAXE_ADMIN_PASSWORD=", unit, re.M),
          "imaxe.service: the admin password is in the environment")
    with open(os.path.join(DEPLOY, "imaxe.env.example"), encoding="utf-8") as f:
        check(re.search(r"^IMAXE_ADMIN_EMAIL=\S+", f.read(), re.M),
              "imaxe.env.example: no IMAXE_ADMIN_EMAIL")
    print("imaxe.service: the first admin from the admin-password credential "
          f"({cred.group(1) if cred else '?'})")


def check_rendered():
    docs = [d for d in yaml.safe_load_all(sys.stdin) if d is not None]
    objs = {}
    for d in docs:
        objs.setdefault(d.get("kind"), []).append(d)
        if d.get("kind") != "Namespace":
            check(d["metadata"].get("namespace") == "imaxe-example",
                  f"rendered: {d['kind']}/{d['metadata']['name']} is outside imaxe-example")
    check_objects(objs, "rendered overlay")
    for kind in ("Deployment", "Job"):
        for d in objs.get(kind, []):
            for c in d["spec"]["template"]["spec"]["containers"]:
                check(":" in c["image"] and "/" in c["image"],
                      f"rendered: {kind} image {c['image']} is not a pinned registry image")
    print(f"rendered overlay: {len(docs)} objects, all in namespace imaxe-example")


def main():
    try:
        if sys.argv[1:] == ["--rendered"]:
            check_rendered()
        else:
            check_compose()
            check_kustomizations()
            check_systemd()
    except (yaml.YAMLError, OSError, KeyError, TypeError, ValueError) as e:
        problems.append(f"{type(e).__name__}: {e}")
    for p in problems:
        print(f"deploy-check: FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
