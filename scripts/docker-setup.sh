#!/usr/bin/env bash
# Makes a Docker engine answer and builds the small local test images (no registry needed).
# Used by CI and by `npm test` (scripts/test.js); safe to run again at any time.
#
#   1. If an engine answers (DOCKER_HOST or /var/run/docker.sock), use it.
#   2. Otherwise, as root: install docker.io + busybox-static when dockerd is missing, start ONE
#      dockerd in the background (only when no dockerd process exists; never with
#      `--bridge none`, which would delete the shared docker0 bridge), log to
#      /var/log/iris-dockerd.log, and wait (bounded) until it answers.
#   3. Build with `docker import`, skipping an image whose `iris.inputs` label already matches
#      the hash of its inputs:
#        iris-test/busybox:latest  static busybox + applet links, /tmp, minimal /etc/passwd
#        iris-test/node:latest     the same + the pinned Node binary at /usr/local/bin/node and
#                                  the shared libraries `ldd` lists, at their own paths
#
# Prints one or two lines of what it did; exits non-zero with one clear message otherwise.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WAIT_SECONDS="${IRIS_DOCKER_WAIT_SECONDS:-30}"
LOG_FILE="${IRIS_DOCKERD_LOG:-/var/log/iris-dockerd.log}"
RECIPE_VERSION=1 # bump when the image layout below changes

fail() {
  echo "docker-setup: $*" >&2
  exit 1
}

address() {
  echo "${DOCKER_HOST:-unix:///var/run/docker.sock}"
}

answers() {
  command -v docker >/dev/null 2>&1 && timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

is_root() {
  [ "$(id -u)" = 0 ]
}

engine_note=""
if answers; then
  engine_note="engine $(docker version --format '{{.Server.Version}}') already running at $(address)"
else
  case "$(address)" in
    unix:///var/run/docker.sock | unix:///run/docker.sock) ;;
    *) fail "Docker engine not reachable at $(address) (DOCKER_HOST); start it there," \
      "or unset DOCKER_HOST to use a local engine" ;;
  esac
  if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1 \
    || ! command -v busybox >/dev/null 2>&1; then
    is_root || fail "no Docker engine answers at $(address) and dockerd is not installed;" \
      "install it (sudo apt-get install -y docker.io busybox-static) and start it (sudo systemctl start docker)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y -qq docker.io busybox-static >/dev/null 2>&1 \
      || fail "could not install docker.io and busybox-static with apt-get (is Debian's archive reachable?)"
    engine_note="installed docker.io; "
  fi
  sock="${DOCKER_HOST:-unix:///var/run/docker.sock}"
  sock="${sock#unix://}"
  if [ -S "$sock" ] && [ ! -w "$sock" ]; then
    fail "permission denied on $sock: run as root or add your user to the docker group" \
      "(sudo usermod -aG docker \$USER, then log in again)"
  fi
  if ! answers; then
    if pgrep -x dockerd >/dev/null 2>&1; then
      engine_note="${engine_note}waited for the running dockerd"
    else
      is_root || fail "no Docker engine answers at $(address);" \
        "start it with \"sudo systemctl start docker\" (or \"sudo dockerd &\")"
      mkdir -p "$(dirname "$LOG_FILE")"
      setsid nohup dockerd >>"$LOG_FILE" 2>&1 </dev/null &
      engine_note="${engine_note}started dockerd (log: $LOG_FILE)"
    fi
    deadline=$((SECONDS + WAIT_SECONDS))
    until answers; do
      [ "$SECONDS" -lt "$deadline" ] \
        || fail "the Docker engine did not answer at $(address) within ${WAIT_SECONDS} s (see $LOG_FILE)"
      sleep 0.2
    done
    engine_note="${engine_note}; engine $(docker version --format '{{.Server.Version}}') answers at $(address)"
  fi
fi

# ---- images ---------------------------------------------------------------------------------

BUSYBOX="$(command -v busybox || true)"
[ -n "$BUSYBOX" ] || fail "busybox is missing: install busybox-static (sudo apt-get install -y busybox-static)"
BUSYBOX="$(readlink -f "$BUSYBOX")"
file_is_static() { ! ldd "$1" >/dev/null 2>&1; }
file_is_static "$BUSYBOX" || fail "$BUSYBOX is not statically linked: install busybox-static"

NODE_LINK="$ROOT/node_modules/.bin/node"
[ -e "$NODE_LINK" ] || fail "$NODE_LINK is missing: run npm ci first"
NODE_BIN="$(readlink -f "$NODE_LINK")"
# Absolute library paths ldd resolves (including the loader), one per line.
NODE_LIBS="$(ldd "$NODE_BIN" | awk '/=>/ { if ($3 ~ /^\//) print $3; next } $1 ~ /^\// { print $1 }' | sort -u)"

WORK="$(mktemp -d /tmp/iris-images.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

label_of() {
  docker image inspect --format '{{index .Config.Labels "iris.inputs"}}' "$1" 2>/dev/null || true
}

busybox_rootfs() {
  local dir="$1"
  mkdir -p "$dir/bin" "$dir/sbin" "$dir/usr/bin" "$dir/usr/sbin" "$dir/usr/local/bin" \
    "$dir/etc" "$dir/root" "$dir/tmp" "$dir/dev" "$dir/proc" "$dir/sys"
  chmod 1777 "$dir/tmp"
  cp "$BUSYBOX" "$dir/bin/busybox"
  local applet
  for applet in $("$BUSYBOX" --list-full); do
    [ "$applet" = bin/busybox ] || [ -e "$dir/$applet" ] || ln -s /bin/busybox "$dir/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$dir/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$dir/etc/group"
}

# build NAME HASH ROOTFS-DIR: imports the directory as NAME:latest labelled with HASH.
import_image() {
  local name="$1" hash="$2" dir="$3"
  tar --numeric-owner --owner=0 --group=0 -C "$dir" -cf - . \
    | docker import --change "LABEL iris.inputs=$hash" \
      --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin' \
      --change 'CMD ["/bin/sh"]' - "$name:latest" >/dev/null \
    || fail "docker import of $name failed"
}

notes=()
busybox_hash="$( {
  echo "recipe $RECIPE_VERSION busybox"
  sha256sum "$BUSYBOX" | cut -d' ' -f1
} | sha256sum | cut -c1-16)"
if [ "$(label_of iris-test/busybox:latest)" = "$busybox_hash" ]; then
  notes+=("iris-test/busybox up to date")
else
  start=$SECONDS
  busybox_rootfs "$WORK/busybox"
  import_image iris-test/busybox "$busybox_hash" "$WORK/busybox"
  notes+=("iris-test/busybox built ($((SECONDS - start)) s)")
fi

node_hash="$( {
  echo "recipe $RECIPE_VERSION node $busybox_hash"
  sha256sum "$NODE_BIN" | cut -d' ' -f1
  for lib in $NODE_LIBS; do echo "$lib $(sha256sum "$(readlink -f "$lib")" | cut -d' ' -f1)"; done
} | sha256sum | cut -c1-16)"
if [ "$(label_of iris-test/node:latest)" = "$node_hash" ]; then
  notes+=("iris-test/node up to date")
else
  start=$SECONDS
  busybox_rootfs "$WORK/node"
  cp "$NODE_BIN" "$WORK/node/usr/local/bin/node"
  for lib in $NODE_LIBS; do
    mkdir -p "$WORK/node$(dirname "$lib")"
    cp -L "$lib" "$WORK/node$lib"
  done
  import_image iris-test/node "$node_hash" "$WORK/node"
  notes+=("iris-test/node built ($((SECONDS - start)) s)")
fi

echo "docker-setup: $engine_note"
echo "docker-setup: images: $(IFS=,; echo "${notes[*]}" | sed 's/,/, /g')"
