# shellcheck shell=bash
# The real kubelet (1.20.2, dockershim) as one test Node of the server of scripts/k8s-setup.sh.
# Sourced by k8s-setup.sh (it uses that script's CACHE, BIN, TOOLS, STATE, ROOT, fail, say,
# launch, alive, stop_one, api, free_port); not run on its own.
#
#   kubelet_build         `scripts/k8s-setup.sh kubelet`: make WHAT=cmd/kubelet in the tree that
#                         `build` unpacked, plus a static pause binary; cached in $BIN
#   kubelet_start         `start --with-kubelet`: a private Docker engine, then the kubelet,
#                         until its Node is Ready (and untainted)
#   kubelet_stop          from `stop`: kubelet, the private engine and everything they left
#
# Guarantees:
#   - The project's shared Docker engine is never touched: the kubelet gets its own dockerd
#     (own socket, data root, exec root, bridge), because on these VMs root lacks
#     CAP_SYS_RESOURCE and runc cannot apply the oom_score_adj of -998 that dockershim gives
#     every pod sandbox; the private engine's default runtime is a runc wrapper that raises a
#     negative oomScoreAdj to 0 (see docs/kubernetes.md, "The real kubelet").
#   - Everything lives under $STATE (and /run/iris-k8s-<id>, short socket paths), the pod
#     cgroups under /iris-k8s-<id> (so two state dirs never clean up each other's pods).
#   - The kubelet changes four kernel settings when it starts (vm.overcommit_memory=1,
#     kernel.panic=10, kernel.panic_on_oops=1, vm.panic_on_oom=0); the first kubelet of the
#     machine records the values before (/run/iris-k8s-sysctl.before) and the last one to stop
#     puts them back.

KUBELET_NODE="${IRIS_K8S_KUBELET_NODE:-iris-kubelet}"
PAUSE_IMAGE=iris-test/pause:3.2
KUBELET_SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops"
SYSCTL_SAVED=/run/iris-k8s-sysctl.before

kubelet_built() {
  [ -x "$BIN/kubelet" ] && [ -x "$BIN/pause" ]
}

kubelet_build() {
  [ $# -eq 0 ] || usage
  if kubelet_built; then
    echo "k8s-setup: cached: $BIN/kubelet ($("$BIN/kubelet" --version 2>/dev/null | awk '{print $2}')), $BIN/pause"
    return 0
  fi
  [ -d "$CACHE/src/tree" ] && [ -x "$TOOLS/usr/lib/go-1.19/bin/go" ] \
    || fail "the source tree is not unpacked yet; run: scripts/k8s-setup.sh build first"
  local start=$SECONDS nicer=(nice -n 19) rss_file="$CACHE/kubelet-build.rss"
  command -v ionice >/dev/null && nicer=(ionice -c3 nice -n 19)
  say "make WHAT=cmd/kubelet (nice -n 19, GOMAXPROCS=$BUILD_PROCS; 5 to 15 min, log: $CACHE/kubelet-build.log)"
  (
    cd "$CACHE/src/tree"
    export PATH="$TOOLS/usr/lib/go-1.19/bin:$TOOLS/usr/bin:$PATH"
    tool_libs="$TOOLS/usr/lib/x86_64-linux-gnu:$TOOLS/lib/x86_64-linux-gnu"
    export LD_LIBRARY_PATH="$tool_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export GOROOT="$TOOLS/usr/lib/go-1.19" GOPATH="$CACHE/gopath" GOCACHE="$CACHE/gocache"
    export GOMAXPROCS="$BUILD_PROCS" KUBE_BUILD_PLATFORMS=linux/amd64
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f '%M' -o "$rss_file" "${nicer[@]}" make WHAT=cmd/kubelet
    else
      "${nicer[@]}" make WHAT=cmd/kubelet
    fi
  ) >"$CACHE/kubelet-build.log" 2>&1 || fail "make failed; last lines of $CACHE/kubelet-build.log:
$(tail -n 15 "$CACHE/kubelet-build.log")"
  local out="$CACHE/src/tree/_output/local/go/bin/kubelet"
  [ -x "$out" ] || out="$(find "$CACHE/src/tree/_output" -name kubelet -type f | head -n1)"
  [ -x "$out" ] || fail "make ran but no kubelet binary was found under $CACHE/src/tree/_output"
  cp "$out" "$BIN/kubelet"
  (
    export PATH="$TOOLS/usr/lib/go-1.19/bin:$PATH" GOROOT="$TOOLS/usr/lib/go-1.19" GOCACHE="$CACHE/gocache"
    export GOPATH="$CACHE/gopath" GO111MODULE=off CGO_ENABLED=0
    go build -ldflags '-s -w' -o "$BIN/pause" "$ROOT/scripts/k8s-pause/main.go"
  ) >>"$CACHE/kubelet-build.log" 2>&1 || fail "building the pause binary failed; see $CACHE/kubelet-build.log"
  local cost="$((SECONDS - start)) s"
  [ -s "$rss_file" ] && cost="$cost, peak RSS of one build process $(($(tail -n1 "$rss_file") / 1024)) MiB"
  echo "k8s-setup: built $BIN/kubelet and $BIN/pause in $cost"
}

kubelet_id() { # short, stable per state dir (however it is spelled): names of the bridge, cgroup root and exec root
  local abs
  abs="$(cd "$STATE" 2>/dev/null && pwd -P)" || abs="$STATE"
  printf '%s' "$abs" | sha256sum | cut -c1-8
}

kdocker() { # docker against the private engine of this state dir
  DOCKER_HOST="unix:///run/iris-k8s-$(kubelet_id)/docker.sock" docker "$@"
}

node_ready() { # node_ready: the kubelet's Node has condition Ready=True
  local out
  out="$(api GET "/api/v1/nodes/$KUBELET_NODE" 2>/dev/null)" || return 1
  [ "$(tail -n1 <<<"$out")" = 200 ] || return 1
  sed '$d' <<<"$out" | "$ROOT/node_modules/.bin/node" -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const c = (JSON.parse(s).status?.conditions ?? []).find((x) => x.type === "Ready");
      process.exit(c?.status === "True" ? 0 : 1);
    });'
}

kubelet_start() {
  [ "$(id -u)" = 0 ] \
    || fail "--with-kubelet needs root: the kubelet and its Docker engine manage cgroups, mounts and a bridge"
  kubelet_built || fail "the kubelet is not built; run: scripts/k8s-setup.sh kubelet (5 to 15 min once, cached in $BIN)"
  local tool
  for tool in dockerd docker runc ip; do
    command -v "$tool" >/dev/null \
      || fail "$tool not found; --with-kubelet needs Docker (sudo apt-get install -y docker.io) and iproute2"
  done
  local id run dir bridge subnet="" n node_ip start=$SECONDS
  id="$(kubelet_id)"
  run="/run/iris-k8s-$id"
  dir="$STATE/kubelet"
  bridge="irisk-$id"
  mkdir -p "$run" "$dir/root" "$dir/certs" "$dir/dockershim" "$dir/plugins" "$STATE/docker"
  # the first kubelet on the machine records the kernel settings it is about to change
  [ -f "$SYSCTL_SAVED" ] || sysctl $KUBELET_SYSCTLS >"$SYSCTL_SAVED" 2>/dev/null || true

  # a private bridge on a free 10.252.N.0/24
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    for n in $(seq 0 255); do
      ip -4 addr | grep -q "inet 10\.252\.$n\." || { subnet="10.252.$n"; break; }
    done
    [ -n "$subnet" ] || fail "no free 10.252.N.0/24 subnet for the kubelet's bridge"
    ip link add "$bridge" type bridge && ip addr add "$subnet.1/24" dev "$bridge" && ip link set "$bridge" up \
      || fail "could not create the bridge $bridge"
  fi

  local oom_fix='[ -n "$bundle" ] && [ -f "$bundle/config.json" ]'
  oom_fix+=' && sed -i '\''s/"oomScoreAdj":-[0-9]*/"oomScoreAdj":0/'\'' "$bundle/config.json"'
  printf '%s\n' '#!/bin/sh' \
    '# runc for the kubelet'\''s engine: a negative oomScoreAdj (dockershim gives every pod sandbox -998)' \
    '# becomes 0, because root on these VMs lacks CAP_SYS_RESOURCE and runc could not apply it.' \
    'prev=""; bundle=""' \
    'for a in "$@"; do { [ "$prev" = --bundle ] || [ "$prev" = -b ]; } && bundle="$a"; prev="$a"; done' \
    "$oom_fix" \
    "exec $(command -v runc) \"\$@\"" >"$dir/runc-wrap"
  chmod +x "$dir/runc-wrap"

  launch dockerd dockerd --host "unix://$run/docker.sock" --data-root "$STATE/docker/data" --exec-root "$run/exec" \
    --pidfile "$run/dockerd.pid" --bridge "$bridge" --iptables=false --ip-masq=false \
    --add-runtime "iris-runc=$dir/runc-wrap" --default-runtime iris-runc --exec-opt native.cgroupdriver=cgroupfs
  local deadline=$((SECONDS + WAIT_SECONDS))
  until kdocker version >/dev/null 2>&1; do
    alive dockerd || fail "the kubelet's dockerd exited; last lines of $STATE/dockerd.log:
$(tail -n 10 "$STATE/dockerd.log")"
    [ "$SECONDS" -lt "$deadline" ] \
      || fail "the kubelet's dockerd did not answer within ${WAIT_SECONDS} s; see $STATE/dockerd.log"
    sleep 0.3
  done
  # images: the project's test images, and the pause image from the static binary
  DOCKER_HOST="unix://$run/docker.sock" bash "$ROOT/scripts/docker-setup.sh" >>"$STATE/dockerd.log" 2>&1 \
    || fail "building the test images in the kubelet's engine failed; see $STATE/dockerd.log"
  # a second tag that is not `latest`: a Pod that sets no imagePullPolicy (iris's Pods) gets
  # Always for `:latest`, which needs a registry; for `:local` it gets IfNotPresent
  local image
  for image in iris-test/busybox iris-test/node; do
    kdocker tag "$image:latest" "$image:local" || fail "docker tag $image:local failed"
  done
  rm -rf "$dir/pause-root" && mkdir -p "$dir/pause-root" && cp "$BIN/pause" "$dir/pause-root/pause"
  tar --numeric-owner --owner=0 --group=0 -C "$dir/pause-root" -cf - . \
    | kdocker import --change 'ENTRYPOINT ["/pause"]' - "$PAUSE_IMAGE" >/dev/null \
    || fail "docker import of $PAUSE_IMAGE failed"

  # a cgroup root of its own in every hierarchy (the kubelet refuses a missing one)
  local cg
  for cg in /sys/fs/cgroup/*/; do
    if [ -f "$cg/cgroup.procs" ]; then mkdir -p "$cg/iris-k8s-$id"; fi
  done

  node_ip="$(ip -4 route show default 2>/dev/null \
    | awk '{for (i = 1; i < NF; i++) if ($i == "dev") print $(i + 1)}' | head -n1)"
  [ -n "$node_ip" ] && node_ip="$(ip -4 -o addr show dev "$node_ip" | awk '{print $4}' | cut -d/ -f1 | head -n1)"
  [ -n "$node_ip" ] || fail "no IPv4 address on the default route's interface: the kubelet refuses a loopback node IP"
  local port healthz
  port="$(free_port)"
  healthz="$(free_port)"
  echo "$port" >"$STATE/kubelet.port"
  # for tests: the Node's name and the private engine (DOCKER_HOST) that runs its containers
  echo "$KUBELET_NODE" >"$STATE/kubelet.node"
  echo "unix://$run/docker.sock" >"$STATE/kubelet.docker-host"
  printf '%s\n' 'apiVersion: kubelet.config.k8s.io/v1beta1' 'kind: KubeletConfiguration' \
    "address: $node_ip" "port: $port" 'readOnlyPort: 0' 'healthzBindAddress: 127.0.0.1' "healthzPort: $healthz" \
    'authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}' 'authorization: {mode: AlwaysAllow}' \
    'cgroupDriver: cgroupfs' "cgroupRoot: /iris-k8s-$id" 'failSwapOn: false' 'makeIPTablesUtilChains: false' \
    'imageGCHighThresholdPercent: 100' 'imageGCLowThresholdPercent: 99' \
    'evictionHard: {memory.available: 1Mi, nodefs.available: 1%, imagefs.available: 1%}' \
    'resolvConf: /etc/resolv.conf' 'nodeStatusUpdateFrequency: 5s' 'syncFrequency: 10s' >"$dir/config.yaml"
  launch kubelet "$BIN/kubelet" --config "$dir/config.yaml" --kubeconfig "$(cat "$STATE/kubeconfig.path")" \
    --container-runtime docker --docker-endpoint "unix://$run/docker.sock" \
    --container-runtime-endpoint "unix://$run/dockershim.sock" \
    --experimental-dockershim-root-directory "$dir/dockershim" \
    --pod-infra-container-image "$PAUSE_IMAGE" --root-dir "$dir/root" --cert-dir "$dir/certs" \
    --volume-plugin-dir "$dir/plugins" --hostname-override "$KUBELET_NODE" --node-ip "$node_ip" --v 1
  until node_ready; do
    alive kubelet || fail "the kubelet exited; last lines of $STATE/kubelet.log:
$(grep -v 'watcher.go' "$STATE/kubelet.log" | tail -n 10)"
    [ "$SECONDS" -lt "$deadline" ] \
      || fail "the kubelet's Node $KUBELET_NODE was not Ready within ${WAIT_SECONDS} s; see $STATE/kubelet.log"
    sleep 0.5
  done
  # the TaintNodesByCondition admission tainted it not-ready; no controller-manager removes that
  [ "$(api PATCH "/api/v1/nodes/$KUBELET_NODE" '{"spec":{"taints":null}}' \
    application/merge-patch+json | tail -n1)" = 200 ] \
    || fail "could not remove the not-ready taint of $KUBELET_NODE"
  say "kubelet: Node $KUBELET_NODE Ready in $((SECONDS - start)) s" \
    "(node IP $node_ip, port $port, engine $run/docker.sock)"
}

kubelet_stop() { # prints the names of what it stopped
  local id run dir cg m
  id="$(kubelet_id)"
  run="/run/iris-k8s-$id"
  dir="$STATE/kubelet"
  stop_one kubelet
  if alive dockerd; then
    local ids
    ids="$(kdocker ps -aq 2>/dev/null || true)"
    # shellcheck disable=SC2086
    [ -z "$ids" ] || kdocker rm -f $ids >/dev/null 2>&1 || true
    stop_one dockerd
  fi
  # mounts the kubelet (its root dir, secret volumes) and dockerd left, deepest first
  for m in $(awk -v a="$dir/" -v b="$STATE/docker/" -v c="$run/" \
    'index($2, a) == 1 || $2 == substr(a, 1, length(a) - 1) || index($2, b) == 1 || index($2, c) == 1 {print $2}' \
    /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  for cg in /sys/fs/cgroup/*/iris-k8s-"$id"; do
    if [ -d "$cg" ]; then find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null || true; fi
  done
  if ip link show "irisk-$id" >/dev/null 2>&1; then ip link delete "irisk-$id" 2>/dev/null || true; fi
  rm -rf "$run"
  # the last kubelet of the machine to stop puts the kernel settings back
  if [ -f "$SYSCTL_SAVED" ] && ! ls -d /run/iris-k8s-*/ >/dev/null 2>&1; then
    sysctl -q -p "$SYSCTL_SAVED" >/dev/null 2>&1 || true
    rm -f "$SYSCTL_SAVED"
  fi
  return 0
}

# ---- selftest steps (from `selftest --with-kubelet`; check, api and LAST_BODY are k8s-setup.sh's) ----

kubelet_pod_json() { # kubelet_pod_json NAME SHELL-SCRIPT
  local body='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"'"$1"'"},"spec":{"schedulerName":"iris",'
  body+='"restartPolicy":"Never","terminationGracePeriodSeconds":5,"automountServiceAccountToken":false,'
  body+='"containers":[{"name":"main","image":"iris-test/busybox:latest","imagePullPolicy":"Never",'
  body+='"command":["sh","-c","'"$2"'"],"resources":{"requests":{"cpu":"100m","memory":"16Mi"}}}]}}'
  printf '%s' "$body"
}

pod_state() { # pod_state NAME: "<phase> <exit code of the first container, or ->"
  api GET "/api/v1/namespaces/default/pods/$1" | sed '$d' | "$ROOT/node_modules/.bin/node" -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const p = JSON.parse(s);
      const t = p.status?.containerStatuses?.[0]?.state?.terminated;
      console.log(`${p.status?.phase ?? p.code} ${t?.exitCode ?? "-"}`);
    });'
}

wait_pod() { # wait_pod NAME PATTERN SECONDS: until pod_state matches the grep pattern
  local deadline=$((SECONDS + $3)) state=""
  until grep -Eq "$2" <<<"$state"; do
    [ "$SECONDS" -lt "$deadline" ] \
      || fail "selftest: pod $1 is \"$state\" after $3 s, expected /$2/; see $STATE/kubelet.log"
    sleep 0.5
    state="$(pod_state "$1")"
  done
}

selftest_kubelet() {
  local bind='{"apiVersion":"v1","kind":"Binding","metadata":{"name":"NAME"},'
  bind+='"target":{"apiVersion":"v1","kind":"Node","name":"'$KUBELET_NODE'"}}'
  check "create Pod for the kubelet" 201 POST /api/v1/namespaces/default/pods \
    "$(kubelet_pod_json kubelet-exit3 'echo to stdout; echo to stderr >&2; exit 3')"
  check "bind it to the kubelet's Node" 201 POST /api/v1/namespaces/default/pods/kubelet-exit3/binding \
    "${bind/NAME/kubelet-exit3}"
  wait_pod kubelet-exit3 '^Failed 3$' 60
  check "read its log" 200 GET /api/v1/namespaces/default/pods/kubelet-exit3/log
  grep -q 'to stdout' <<<"$LAST_BODY" || fail "selftest: the pod log misses its output: $LAST_BODY"
  check "create a long Pod" 201 POST /api/v1/namespaces/default/pods \
    "$(kubelet_pod_json kubelet-term 'trap \"exit 0\" TERM; while true; do sleep 0.2; done')"
  check "bind it" 201 POST /api/v1/namespaces/default/pods/kubelet-term/binding "${bind/NAME/kubelet-term}"
  wait_pod kubelet-term '^Running' 60
  check "delete it (grace 5 s)" 200 DELETE /api/v1/namespaces/default/pods/kubelet-term '{"gracePeriodSeconds":5}'
  wait_pod kubelet-term '^404' 120
}
