# Sourced by bin/test and .ci/run: installs what the tests need when it is missing (Maven, and
# Debian's Jupyter clients and torch for the system Python, the classic notebook server, chromium and
# node for the browser test), with apt-get when running as root; then the browser test's npm packages.
ensure_test_deps() {
  local need=()
  command -v mvn >/dev/null || need+=(maven)
  /usr/bin/python3 -c 'import jupyter_client, nbclient, jupyter_kernel_test, nbformat' 2>/dev/null \
    || need+=(python3-jupyter-client python3-nbclient python3-jupyter-kernel-test python3-nbformat python3-ipykernel)
  # The torch bridge's tests run Debian's CPU torch for real (eager rows; 1.13 has no torch.compile).
  /usr/bin/python3 -c 'import torch' 2>/dev/null || need+=(python3-torch)
  # The Slurm sweep test starts its own one-node cluster (bin/lib/slurm-local.sh).
  { command -v slurmctld && command -v slurmd && command -v munged; } >/dev/null || need+=(slurm-wlm munge)
  # The browser test: Debian's classic notebook server and headless chromium, driven from node.
  command -v jupyter-notebook >/dev/null || need+=(jupyter-notebook)
  command -v chromium >/dev/null || need+=(chromium)
  command -v npm >/dev/null || need+=(nodejs npm)
  [ ${#need[@]} -eq 0 ] || install_debian_packages "${need[@]}" || return 1
  ensure_browser_test_packages
}

install_debian_packages() {
  local need=("$@")
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "bin/test: missing ${need[*]}; install them (Debian: apt-get install -y ${need[*]})" >&2
    return 1
  fi
  echo "bin/test: installing ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >&2
}

# playwright-core from the lock file (no browser download: the test drives Debian's chromium).
ensure_browser_test_packages() {
  local dir
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/kernel/src/test/browser"
  [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] && return 0
  echo "bin/test: npm ci in $dir" >&2
  (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >&2)
}
