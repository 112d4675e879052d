#!/usr/bin/env bash
# A real Kubernetes API server (1.20, built from Debian's source package) on loopback, for tests.
# It is a test fixture only: iris has no kubernetes backend yet (issue 17 §1).
#
#   scripts/k8s-setup.sh build                   fetch + build once into the cache; a second call
#                                                is instant (prints "cached")
#   scripts/k8s-setup.sh kubelet                 build the real kubelet + a pause binary once
#                                                (after `build`; 5 to 15 min), cached
#   scripts/k8s-setup.sh start [--with-scheduler] [--with-kubelet] [--kubeconfig PATH]
#                                                start etcd + kube-apiserver (+ kube-scheduler) on
#                                                free loopback ports, wait for /readyz, create the
#                                                `default` ServiceAccount, print the kubeconfig path;
#                                                --with-kubelet (root): a real kubelet Node that runs
#                                                bound Pods in a private Docker engine
#   scripts/k8s-setup.sh stop                    stop what `start` started (pid files); idempotent
#   scripts/k8s-setup.sh status [--json]         what runs, where, and the kubeconfig path
#   scripts/k8s-setup.sh selftest [--with-kubelet]
#                                                start, create a Node and a Pod (schedulerName
#                                                iris), bind it with the Binding API, stop; with
#                                                --with-kubelet also run Pods on the real kubelet
#
# Guarantees:
#   - Nothing is installed on the system: the Go 1.19 toolchain, rsync and etcd come from
#     `apt-get download` + `dpkg-deb -x` into the cache, the source from `apt-get source
#     --download-only` with a private sources list. Only Debian's archive is contacted.
#   - The build runs under `nice -n 19` (and `ionice -c3`) with GOMAXPROCS=nproc by default
#     (IRIS_K8S_BUILD_PROCS to lower it), so other work on the machine goes first.
#   - Every process and file of a running server lives under the state dir IRIS_K8S_DIR
#     (default .cache/k8s/run); several state dirs can run side by side (ports are free ones
#     picked at start). `stop` leaves nothing of them running.
#   - Exit codes: 0 ok, 1 failure (message on stderr), 2 usage error.
#
# Environment: IRIS_K8S_CACHE (build cache, default <repo>/.cache/k8s), IRIS_K8S_DIR (state dir),
# IRIS_K8S_WAIT_SECONDS (readiness wait, default 60), IRIS_K8S_BUILD_PROCS (default 1),
# IRIS_K8S_AUTHORIZATION_MODE (the apiserver's --authorization-mode, default AlwaysAllow; RBAC or
# Node,RBAC enforces RBAC: the kubeconfig's token is in system:masters, so it keeps every right).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${IRIS_K8S_CACHE:-$ROOT/.cache/k8s}"
STATE="${IRIS_K8S_DIR:-$CACHE/run}"
WAIT_SECONDS="${IRIS_K8S_WAIT_SECONDS:-60}"
AUTHORIZATION_MODE="${IRIS_K8S_AUTHORIZATION_MODE:-AlwaysAllow}" # e.g. Node,RBAC to enforce RBAC
BUILD_PROCS="${IRIS_K8S_BUILD_PROCS:-$(nproc)}"
SUITE=bookworm
RECIPE_VERSION=2 # bump when the build steps below change
BIN="$CACHE/bin"
TOOLS="$CACHE/tools"

fail() {
  echo "k8s-setup: $*" >&2
  exit 1
}

usage() {
  echo 'usage:' >&2
  sed -n '5,21p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

say() {
  echo "k8s-setup: $*" >&2
}

# ---- build ------------------------------------------------------------------------------------

# etcd is Debian's binary unpacked into the tools; bin/etcd is a link to it. A cache that was
# moved or restored elsewhere (a CI cache) may hold an absolute link to the old place, so the
# tools' copy is what runs.
ETCD="$TOOLS/usr/bin/etcd"

built() {
  [ -x "$BIN/kube-apiserver" ] && [ -x "$BIN/kube-scheduler" ] && [ -x "$ETCD" ] \
    && [ "$(cat "$CACHE/recipe" 2>/dev/null)" = "$RECIPE_VERSION" ]
}

apt_private() {
  # apt-get with its own sources list, lists and archives under the cache (system files untouched)
  apt-get -q \
    -o Dir::Etc::SourceList="$CACHE/apt/sources.list" \
    -o Dir::Etc::SourceParts=/dev/null \
    -o Dir::State::Lists="$CACHE/apt/lists" \
    -o Dir::Cache="$CACHE/apt/cache" \
    -o Debug::NoLocking=1 \
    "$@"
}

cmd_build() {
  if built; then
    echo "k8s-setup: cached: $BIN (kube-apiserver $("$BIN/kube-apiserver" --version 2>/dev/null | awk '{print $2}')," \
      "etcd $("$ETCD" --version 2>/dev/null | awk '/etcd Version/ {print $3}'))"
    return 0
  fi
  command -v apt-get >/dev/null || fail "apt-get not found: this recipe needs Debian's archive"
  command -v dpkg-source >/dev/null || fail "dpkg-source not found; install dpkg-dev (sudo apt-get install dpkg-dev)"
  local start=$SECONDS
  mkdir -p "$CACHE/apt/lists/partial" "$CACHE/apt/cache/archives/partial" "$CACHE/debs" "$CACHE/src" "$TOOLS" "$BIN"
  cat >"$CACHE/apt/sources.list" <<EOF
deb http://deb.debian.org/debian $SUITE main
deb-src http://deb.debian.org/debian $SUITE main
EOF
  say "[1/4] apt-get update (private sources list, $SUITE)"
  apt_private update >"$CACHE/apt.log" 2>&1 \
    || fail "apt-get update failed (is deb.debian.org reachable?); see $CACHE/apt.log"

  say "[2/4] tools: golang-1.19-go golang-1.19-src rsync libpopt0 etcd-server golang-github-modern-go-reflect2-dev" \
    "(dpkg-deb -x, no install)"
  (cd "$CACHE/debs" && apt_private download golang-1.19-go golang-1.19-src rsync libpopt0 etcd-server \
    golang-github-modern-go-reflect2-dev) >>"$CACHE/apt.log" 2>&1 \
    || fail "apt-get download of the tools failed; see $CACHE/apt.log"
  local deb
  for deb in "$CACHE"/debs/*.deb; do dpkg-deb -x "$deb" "$TOOLS"; done
  [ -x "$TOOLS/usr/lib/go-1.19/bin/go" ] || fail "go 1.19 not found in $TOOLS after unpacking"

  say "[3/4] source: apt-get source --download-only kubernetes"
  if [ ! -d "$CACHE/src/tree" ]; then
    (cd "$CACHE/src" && apt_private source --download-only kubernetes) >>"$CACHE/apt.log" 2>&1 \
      || fail "apt-get source kubernetes failed; see $CACHE/apt.log"
    local dsc
    dsc="$(ls "$CACHE"/src/kubernetes_*.dsc | head -n1)"
    rm -rf "$CACHE/src/tree.tmp"
    dpkg-source --no-check -x "$dsc" "$CACHE/src/tree.tmp" >>"$CACHE/apt.log" 2>&1 \
      || fail "dpkg-source -x failed; see $CACHE/apt.log"
    mv "$CACHE/src/tree.tmp" "$CACHE/src/tree"
  fi

  # The tree vendors github.com/modern-go/reflect2 v1.0.1, which panics under Go >= 1.18 (nil
  # pointer in reflect2.Type2) the first time JSON with a map (labels!) is decoded, so every
  # JSON request with labels gets an empty reply. Debian's 1.0.2 fixes it; same API.
  local reflect2="$TOOLS/usr/share/gocode/src/github.com/modern-go/reflect2"
  [ -f "$reflect2/reflect2.go" ] || fail "reflect2 1.0.2 source not found at $reflect2"
  rm -rf "$CACHE/src/tree/vendor/github.com/modern-go/reflect2"
  cp -r "$reflect2" "$CACHE/src/tree/vendor/github.com/modern-go/reflect2"
  rm -rf "$CACHE/src/tree/vendor/github.com/modern-go/reflect2/"{debian,test,go.mod}

  say "[4/4] make WHAT=\"cmd/kube-apiserver cmd/kube-scheduler\" (nice -n 19, GOMAXPROCS=$BUILD_PROCS;" \
    "7 to 30 min cold depending on load, log: $CACHE/build.log)"
  local nicer=(nice -n 19)
  command -v ionice >/dev/null && nicer=(ionice -c3 nice -n 19)
  local rss_file="$CACHE/build.rss"
  (
    cd "$CACHE/src/tree"
    export PATH="$TOOLS/usr/lib/go-1.19/bin:$TOOLS/usr/bin:$PATH"
    tool_libs="$TOOLS/usr/lib/x86_64-linux-gnu:$TOOLS/lib/x86_64-linux-gnu"
    export LD_LIBRARY_PATH="$tool_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export GOROOT="$TOOLS/usr/lib/go-1.19" GOPATH="$CACHE/gopath" GOCACHE="$CACHE/gocache"
    export GOMAXPROCS="$BUILD_PROCS"
    export KUBE_BUILD_PLATFORMS=linux/amd64
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f '%M' -o "$rss_file" "${nicer[@]}" make WHAT="cmd/kube-apiserver cmd/kube-scheduler"
    else
      "${nicer[@]}" make WHAT="cmd/kube-apiserver cmd/kube-scheduler"
    fi
  ) >"$CACHE/build.log" 2>&1 || fail "make failed; last lines of $CACHE/build.log:
$(tail -n 15 "$CACHE/build.log")"
  local out="$CACHE/src/tree/_output/bin"
  [ -x "$out/kube-apiserver" ] \
    || out="$(dirname "$(find "$CACHE/src/tree/_output" -name kube-apiserver -type f | head -n1)")"
  cp "$out/kube-apiserver" "$out/kube-scheduler" "$BIN/"
  [ -x "$ETCD" ] || fail "etcd not found at $ETCD"
  ln -sf ../tools/usr/bin/etcd "$BIN/etcd" # relative: the cache may be moved or restored elsewhere
  echo "$RECIPE_VERSION" >"$CACHE/recipe"
  local cost="$((SECONDS - start)) s"
  [ -s "$rss_file" ] && cost="$cost, peak RSS of one build process $(($(tail -n1 "$rss_file") / 1024)) MiB"
  echo "k8s-setup: built $BIN/kube-apiserver, kube-scheduler, etcd in $cost; cache $(du -sh "$CACHE" | cut -f1)"
}

# shellcheck source=scripts/k8s-kubelet.sh
. "$ROOT/scripts/k8s-kubelet.sh"

# ---- run ----------------------------------------------------------------------------------------

free_port() {
  if command -v python3 >/dev/null; then
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
  else
    "$ROOT/node_modules/.bin/node" -e \
      'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
  fi
}

# alive NAME: the pid in $STATE/NAME.pid runs and is that program (guards against pid reuse)
alive() {
  local pid
  pid="$(cat "$STATE/$1.pid" 2>/dev/null)" || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$1"
}

launch() { # launch NAME ARGS...: start in its own session, log and pid under $STATE
  local name="$1"
  shift
  setsid "$@" >>"$STATE/$name.log" 2>&1 </dev/null &
  local pid=$! tries=0
  echo "$pid" >"$STATE/$name.pid"
  # Until the child has exec'd, its cmdline is still this script's and `alive` would call it dead
  # (seen on a loaded machine: "kube-scheduler exited" with an empty log). Bounded: 5 s.
  while [ "$tries" -lt 100 ] && [ -r "/proc/$pid/cmdline" ] \
    && [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ] \
    && ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$name"; do
    sleep 0.05
    tries=$((tries + 1))
  done
}

api() { # api METHOD PATH [BODY [CONTENT-TYPE]]: prints the response body, then the HTTP code on its own line
  local args=(-sk --http1.1 -X "$1" -H "Authorization: Bearer $(cat "$STATE/token")" -w '\n%{http_code}')
  [ $# -ge 3 ] && args+=(-H "Content-Type: ${4:-application/json}" --data-binary "$3")
  curl "${args[@]}" "https://127.0.0.1:$(cat "$STATE/apiserver.port")$2"
}

ready() {
  [ -f "$STATE/apiserver.port" ] && [ "$(api GET /readyz 2>/dev/null | head -n1)" = ok ]
}

write_kubeconfig() { # write_kubeconfig PATH PORT TOKEN
  printf '%s\n' \
    'apiVersion: v1' 'kind: Config' 'clusters:' '- name: iris-test' '  cluster:' \
    "    server: https://127.0.0.1:$2" '    insecure-skip-tls-verify: true' \
    'users:' '- name: iris-admin' '  user:' "    token: $3" \
    'contexts:' '- name: iris-test' '  context:' '    cluster: iris-test' '    user: iris-admin' \
    '    namespace: default' 'current-context: iris-test' >"$1"
  chmod 600 "$1"
}

cmd_start() {
  local with_scheduler=0 with_kubelet=0 kubeconfig=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --with-scheduler) with_scheduler=1 ;;
      --with-kubelet) with_kubelet=1 ;;
      --kubeconfig)
        [ $# -ge 2 ] || usage
        kubeconfig="$2"
        shift
        ;;
      *)
        echo "k8s-setup: unknown option for start: $1" >&2
        usage
        ;;
    esac
    shift
  done
  built || fail "not built yet; run: scripts/k8s-setup.sh build (7 to 30 min once depending on load, cached in $CACHE)"
  if [ "$with_kubelet" = 1 ]; then
    [ "$(id -u)" = 0 ] \
      || fail "--with-kubelet needs root: the kubelet and its Docker engine manage cgroups, mounts and a bridge"
    kubelet_built \
      || fail "the kubelet is not built; run: scripts/k8s-setup.sh kubelet (5 to 15 min once, cached in $BIN)"
  fi
  command -v curl >/dev/null || fail "curl not found; install it (sudo apt-get install curl)"
  command -v openssl >/dev/null || fail "openssl not found; install it (sudo apt-get install openssl)"
  mkdir -p "$STATE"
  STATE="$(cd "$STATE" && pwd)"
  if alive etcd || alive kube-apiserver; then
    fail "already running in $STATE; stop it first: IRIS_K8S_DIR=$STATE scripts/k8s-setup.sh stop"
  fi
  local start=$SECONDS
  rm -rf "$STATE/etcd-data" "$STATE/certs" "$STATE"/*.log "$STATE"/*.pid "$STATE"/*.port
  mkdir -p "$STATE/certs"
  [ -n "$kubeconfig" ] || kubeconfig="$STATE/kubeconfig"
  mkdir -p "$(dirname "$kubeconfig")"
  kubeconfig="$(cd "$(dirname "$kubeconfig")" && pwd)/$(basename "$kubeconfig")"
  local etcd_port peer_port api_port sched_port token
  etcd_port="$(free_port)"
  peer_port="$(free_port)"
  api_port="$(free_port)"
  echo "$etcd_port" >"$STATE/etcd.port"
  echo "$api_port" >"$STATE/apiserver.port"
  token="$(openssl rand -hex 16)"
  echo "$token" >"$STATE/token"
  echo "$token,iris-admin,iris-admin,system:masters" >"$STATE/tokens.csv"
  [ -f "$STATE/sa.key" ] || openssl genrsa -out "$STATE/sa.key" 2048 2>/dev/null

  launch etcd "$ETCD" --name default --data-dir "$STATE/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "default=http://127.0.0.1:$peer_port" --logger zap --log-level warn
  launch kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" --insecure-port 0 \
    --cert-dir "$STATE/certs" --token-auth-file "$STATE/tokens.csv" --authorization-mode "$AUTHORIZATION_MODE" \
    --service-account-key-file "$STATE/sa.key" --service-account-signing-key-file "$STATE/sa.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --api-audiences https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range 10.96.0.0/16 --allow-privileged=true \
    --kubelet-preferred-address-types InternalIP,Hostname,InternalDNS,ExternalDNS,ExternalIP
  write_kubeconfig "$kubeconfig" "$api_port" "$token"
  echo "$kubeconfig" >"$STATE/kubeconfig.path"

  local deadline=$((SECONDS + WAIT_SECONDS))
  until ready; do
    alive etcd || fail "etcd exited; last lines of $STATE/etcd.log:
$(tail -n 10 "$STATE/etcd.log")"
    alive kube-apiserver || fail "kube-apiserver exited; last lines of $STATE/kube-apiserver.log:
$(tail -n 10 "$STATE/kube-apiserver.log")"
    [ "$SECONDS" -lt "$deadline" ] \
      || fail "kube-apiserver not ready within ${WAIT_SECONDS} s (IRIS_K8S_WAIT_SECONDS); see $STATE/kube-apiserver.log"
    sleep 0.5
  done
  local code
  code="$(api POST /api/v1/namespaces/default/serviceaccounts '{"metadata":{"name":"default"}}' | tail -n1)"
  case "$code" in 201 | 409) ;; *) fail "could not create the default ServiceAccount (HTTP $code)" ;; esac
  # The ServiceAccount admission plugin of 1.20 refuses a Pod until the account references a
  # token Secret, which the controller-manager's tokens controller would create. Create it
  # here: a Secret of the token type, annotated with the account's name and uid (its token is a
  # placeholder: nothing here validates tokens that pods would carry).
  local sa uid
  sa="$(api GET /api/v1/namespaces/default/serviceaccounts/default)"
  uid="$(grep -o '"uid": *"[^"]*"' <<<"$sa" | head -n1 | sed 's/.*"\([^"]*\)"$/\1/')"
  [ -n "$uid" ] || fail "could not read the default ServiceAccount: $(head -c 300 <<<"$sa")"
  local secret='{"apiVersion":"v1","kind":"Secret","metadata":{"name":"default-token-iris","annotations":{'
  secret+='"kubernetes.io/service-account.name":"default","kubernetes.io/service-account.uid":"'"$uid"'"}},'
  secret+='"type":"kubernetes.io/service-account-token","data":{"token":"'
  code="$(api POST /api/v1/namespaces/default/secrets "$secret$(printf 'not-a-token' | base64)"'"}}' | tail -n1)"
  case "$code" in
    201 | 409) ;;
    *) fail "could not create the default ServiceAccount's token Secret (HTTP $code)" ;;
  esac
  code="$(api PATCH /api/v1/namespaces/default/serviceaccounts/default '{"secrets":[{"name":"default-token-iris"}]}' \
    application/merge-patch+json | tail -n1)"
  [ "$code" = 200 ] || fail "could not attach the token Secret to the default ServiceAccount (HTTP $code)"

  if [ "$with_scheduler" = 1 ]; then
    sched_port="$(free_port)"
    echo "$sched_port" >"$STATE/kube-scheduler.port"
    launch kube-scheduler "$BIN/kube-scheduler" --kubeconfig "$kubeconfig" --leader-elect=false \
      --port 0 --bind-address 127.0.0.1 --secure-port "$sched_port"
    until [ "$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$sched_port/healthz")" = 200 ]; do
      alive kube-scheduler || fail "kube-scheduler exited; last lines of $STATE/kube-scheduler.log:
$(tail -n 10 "$STATE/kube-scheduler.log")"
      [ "$SECONDS" -lt "$deadline" ] \
        || fail "kube-scheduler not healthy within ${WAIT_SECONDS} s; see $STATE/kube-scheduler.log"
      sleep 0.5
    done
  fi
  [ "$with_kubelet" = 1 ] && kubelet_start
  local note=""
  [ "$with_scheduler" = 1 ] && note=", with kube-scheduler"
  [ "$with_kubelet" = 1 ] && note="$note, with a kubelet Node $KUBELET_NODE"
  say "ready in $((SECONDS - start)) s: https://127.0.0.1:$api_port (state $STATE$note)"
  echo "$kubeconfig"
}

stop_one() { # prints the name when it stopped something
  local name="$1" pid i
  if ! alive "$name"; then
    rm -f "$STATE/$name.pid"
    return 0
  fi
  pid="$(cat "$STATE/$name.pid")"
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do
    alive "$name" || break
    sleep 0.2
  done
  if alive "$name"; then
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.2
  fi
  alive "$name" && fail "could not stop $name (pid $pid)"
  rm -f "$STATE/$name.pid"
  echo "$name"
}

cmd_stop() {
  [ $# -eq 0 ] || usage
  if [ ! -d "$STATE" ]; then
    say "nothing to stop in $STATE"
    return 0
  fi
  local stopped
  stopped="$( (
    kubelet_stop
    stop_one kube-scheduler
    stop_one kube-apiserver
    stop_one etcd
  ) | tr '\n' ' ')"
  if [ -n "$stopped" ]; then say "stopped: ${stopped}(state $STATE)"; else say "nothing running in $STATE"; fi
}

cmd_status() {
  local json=0
  if [ "${1:-}" = --json ]; then
    json=1
    shift
  fi
  [ $# -eq 0 ] || usage
  local name running=() r=false kc="" port="" is_built=false kubelet_is_built=false
  for name in etcd kube-apiserver kube-scheduler kubelet dockerd; do alive "$name" && running+=("$name"); done
  [ -d "$STATE" ] && ready && r=true
  built && is_built=true
  kubelet_built && kubelet_is_built=true
  kc="$(cat "$STATE/kubeconfig.path" 2>/dev/null || true)"
  port="$(cat "$STATE/apiserver.port" 2>/dev/null || true)"
  if [ "$json" = 1 ]; then
    local list="" server=null kcj=null
    for name in "${running[@]}"; do list="$list${list:+,}\"$name\""; done
    if [ "$r" = true ]; then
      server="\"https://127.0.0.1:$port\""
      kcj="\"$kc\""
    fi
    printf '{"built":%s,"kubeletBuilt":%s,"stateDir":"%s","running":[%s],"ready":%s,"server":%s,"kubeconfig":%s}\n' \
      "$is_built" "$kubelet_is_built" "$STATE" "$list" "$r" "$server" "$kcj"
  else
    if [ "$is_built" = true ]; then
      echo "built:      yes ($BIN)"
    else
      echo "built:      no (run: scripts/k8s-setup.sh build)"
    fi
    if [ "$kubelet_is_built" = true ]; then
      echo "kubelet:    built"
    else
      echo "kubelet:    not built (run: scripts/k8s-setup.sh kubelet)"
    fi
    echo "state dir:  $STATE"
    echo "running:    ${running[*]:-nothing}"
    if [ "$r" = true ]; then
      echo "server:     https://127.0.0.1:$port (ready)"
      echo "kubeconfig: $kc"
    fi
  fi
  # exit 1 when something runs but the server does not answer (half up)
  [ "$r" = true ] || [ ${#running[@]} -eq 0 ]
}

# ---- selftest ---------------------------------------------------------------------------------

check() { # check WHAT EXPECTED-CODE METHOD PATH [BODY [CONTENT-TYPE]]: fail unless the HTTP code matches
  local what="$1" want="$2" out code
  shift 2
  out="$(api "$@")" || true
  code="$(tail -n1 <<<"$out")"
  [ "$code" = "$want" ] || fail "selftest: $what: HTTP $code, expected $want: $(head -c 400 <<<"$out")"
  LAST_BODY="$(sed '$d' <<<"$out")"
}

pod_json() { # pod_json NAME EXTRA-SPEC-FIELDS
  local body='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"'"$1"'","labels":{"iris.dev/job":"selftest"}},'
  body+='"spec":{'"$2"'"containers":[{"name":"main","image":"iris-test/busybox:latest","command":["true"],'
  body+='"resources":{"requests":{"cpu":"100m"}}}]}}'
  printf '%s' "$body"
}

cmd_selftest() {
  local with_kubelet=0
  if [ "${1:-}" = --with-kubelet ]; then
    with_kubelet=1
    shift
  fi
  [ $# -eq 0 ] || usage
  built || fail "not built yet; run: scripts/k8s-setup.sh build (7 to 30 min once depending on load, cached in $CACHE)"
  # a state dir of its own, so a server the user runs in the default state dir is left alone
  [ -n "${IRIS_K8S_DIR:-}" ] || STATE="$CACHE/selftest"
  local start=$SECONDS node=iris-selftest-node
  trap 'cmd_stop >/dev/null 2>&1 || true' EXIT
  if [ "$with_kubelet" = 1 ]; then
    cmd_start --with-scheduler --with-kubelet >/dev/null
  else
    cmd_start --with-scheduler >/dev/null
  fi
  say "selftest: started in $((SECONDS - start)) s"

  local node_status='"status":{"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},'
  node_status+='"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},'
  node_status+='"conditions":[{"type":"Ready","status":"True","reason":"IrisSelftest","message":"fake node"}]}'
  local node_body='{"apiVersion":"v1","kind":"Node","metadata":{"name":"'$node'",'
  node_body+='"labels":{"cloud.google.com/gke-nodepool":"pool-a"}},'"$node_status"'}'
  check "create Node" 201 POST /api/v1/nodes "$node_body"
  # the TaintNodesByCondition admission adds node.kubernetes.io/not-ready on create; with no
  # controller-manager nothing removes it, so the creator must
  check "remove the not-ready taint" 200 PATCH "/api/v1/nodes/$node" \
    '{"spec":{"taints":null}}' application/merge-patch+json
  grep -q 'not-ready' <<<"$LAST_BODY" && fail "selftest: the node still has the not-ready taint: $LAST_BODY"
  check "set Node status" 200 PATCH "/api/v1/nodes/$node/status" '{'"$node_status"'}' application/merge-patch+json

  check "create Pod (schedulerName iris)" 201 POST /api/v1/namespaces/default/pods \
    "$(pod_json iris-selftest '"schedulerName":"iris",')"
  sleep 1
  check "read Pod" 200 GET /api/v1/namespaces/default/pods/iris-selftest
  grep -q '"nodeName"' <<<"$LAST_BODY" && fail "selftest: a pod with schedulerName iris was placed by something else"
  local binding='{"apiVersion":"v1","kind":"Binding","metadata":{"name":"iris-selftest"},'
  binding+='"target":{"apiVersion":"v1","kind":"Node","name":"'$node'"}}'
  check "bind Pod (Binding API)" 201 POST /api/v1/namespaces/default/pods/iris-selftest/binding "$binding"
  check "read bound Pod" 200 GET /api/v1/namespaces/default/pods/iris-selftest
  grep -q "\"nodeName\": *\"$node\"" <<<"$LAST_BODY" || fail "selftest: the pod is not on $node after the binding"
  check "bind again" 409 POST /api/v1/namespaces/default/pods/iris-selftest/binding "$binding"

  check "create Pod (default scheduler)" 201 POST /api/v1/namespaces/default/pods "$(pod_json default-selftest '')"
  local deadline=$((SECONDS + 30))
  until grep -q '"nodeName": *"' <<<"$LAST_BODY"; do
    [ "$SECONDS" -lt "$deadline" ] \
      || fail "selftest: kube-scheduler did not place the default-scheduler pod within 30 s;" \
        "see $STATE/kube-scheduler.log"
    sleep 0.5
    check "read Pod" 200 GET /api/v1/namespaces/default/pods/default-selftest
  done
  check "delete Pod" 200 DELETE /api/v1/namespaces/default/pods/iris-selftest
  [ "$with_kubelet" = 1 ] && selftest_kubelet

  trap - EXIT
  cmd_stop >/dev/null 2>&1
  local name
  for name in etcd kube-apiserver kube-scheduler kubelet dockerd; do
    alive "$name" && fail "selftest: $name still runs after stop"
  done
  local more=""
  [ "$with_kubelet" = 1 ] \
    && more=", on the kubelet a Pod exited 3 (phase Failed, log read through the API) and a Pod was deleted gracefully"
  echo "k8s-setup: selftest passed in $((SECONDS - start)) s: Node created and untainted," \
    "Pod with schedulerName iris bound through the Binding API," \
    "a default pod placed by kube-scheduler$more, all stopped"
}

main() {
  local sub="${1:-}"
  [ $# -gt 0 ] && shift
  case "$sub" in
    build) cmd_build "$@" ;;
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    status) cmd_status "$@" ;;
    selftest) cmd_selftest "$@" ;;
    kubelet) kubelet_build "$@" ;;
    *) usage ;;
  esac
}

main "$@"
