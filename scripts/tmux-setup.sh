#!/usr/bin/env bash
# Makes `tmux` available for the terminal test of `iris watch` (test/e2e/watch-terminal.test.ts).
# Used by `npm test` (scripts/test.js) and so by CI; safe to run again at any time.
#
#   1. If tmux is on PATH, use it.
#   2. Otherwise, as root: install Debian's `tmux` package with apt-get (as docker-setup.sh
#      installs docker.io).
#
# Prints one line of what it did; exits non-zero with one clear message otherwise.
set -euo pipefail

fail() {
  echo "tmux-setup: $*" >&2
  exit 1
}

if command -v tmux >/dev/null 2>&1; then
  echo "tmux-setup: $(tmux -V) already installed"
  exit 0
fi
[ "$(id -u)" = 0 ] || fail "tmux is not installed; install it (sudo apt-get install -y tmux)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || true
apt-get install -y -qq tmux >/dev/null 2>&1 \
  || fail "could not install tmux with apt-get (is Debian's archive reachable?)"
command -v tmux >/dev/null 2>&1 || fail "apt-get installed tmux but it is not on PATH"
echo "tmux-setup: installed $(tmux -V)"
