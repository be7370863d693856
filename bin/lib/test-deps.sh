# Sourced by bin/test and .ci/run. ensure_test_deps installs what the tests need when it is missing:
# ensure_system_packages the Debian packages, with apt-get when running as root (Maven, Slurm + munge,
# chromium, node/npm, python3-venv, and python3-jupyter-kernel-test, which is not on the pip index);
# ensure_python_and_browser_packages the Python test environment (a virtual environment with JupyterLab,
# the Jupyter clients and CPU torch, pinned in bin/lib/test-requirements.txt) and the browser test's npm
# packages. bin/test runs the second beside the Maven build. ensure_test_venv sets TEST_PYTHON to the
# environment's python (test_venv_python prints its path).
test_deps_here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

ensure_test_deps() {
  ensure_system_packages || return 1
  ensure_python_and_browser_packages
}

ensure_system_packages() {
  local need=()
  command -v mvn >/dev/null || need+=(maven)
  # The Slurm sweep test starts its own one-node cluster (bin/lib/slurm-local.sh).
  { command -v slurmctld && command -v slurmd && command -v munged; } >/dev/null || need+=(slurm-wlm munge)
  command -v chromium >/dev/null || need+=(chromium)
  command -v npm >/dev/null || need+=(nodejs npm)
  /usr/bin/python3 -c 'import ensurepip' 2>/dev/null || need+=(python3-venv)
  [ -d "$(kernel_test_dir)/jupyter_kernel_test" ] || need+=(python3-jupyter-kernel-test)
  [ ${#need[@]} -eq 0 ] || install_debian_packages "${need[@]}"
}

ensure_python_and_browser_packages() {
  ensure_test_venv || return 1
  ensure_browser_test_packages
}

# Where Debian's python3-jupyter-kernel-test puts the module.
kernel_test_dir() { echo /usr/lib/python3/dist-packages; }

install_debian_packages() {
  local need=("$@")
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "bin/test: missing ${need[*]}; install them (Debian: apt-get install -y ${need[*]})" >&2
    return 1
  fi
  echo "bin/test: installing ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >&2
}

# The virtual environment lives outside the checkout so that reruns and other clones reuse it; it is
# made afresh when test-requirements.txt changes (a copy of the file inside it is the stamp). It is
# made from Debian's python3 (3.11, which the torch wheel is built for) without the system's
# site-packages, so only the pinned versions are seen; Debian's jupyter_kernel_test, a pure-Python
# module, is linked in by itself (its own dependencies, jupyter_client and jsonschema, come from pip).
test_venv_python() { echo "${GLUELAB_TEST_VENV:-$HOME/.cache/gluelab/test-venv}/bin/python"; }

ensure_test_venv() {
  local venv="${GLUELAB_TEST_VENV:-$HOME/.cache/gluelab/test-venv}"
  local req="$test_deps_here/bin/lib/test-requirements.txt"
  TEST_PYTHON="$(test_venv_python)"
  if ! cmp -s "$req" "$venv/test-requirements.txt" || ! "$TEST_PYTHON" -c 'import jupyter_kernel_test, jupyterlab, torch' 2>/dev/null; then
    echo "bin/test: making the Python test environment $venv (pip install -r $req)" >&2
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    /usr/bin/python3 -m venv "$venv" >&2 || return 1
    # The pip configuration here names index folders that may be absent; pip warns once per package.
    "$TEST_PYTHON" -m pip install --quiet --retries 0 --disable-pip-version-check -r "$req" 2>&1 \
      | { grep -v 'is ignored: it is neither a file nor a directory' >&2 || true; }
    [ "${PIPESTATUS[0]}" -eq 0 ] || { rm -rf "$venv"; return 1; }
    local site
    site="$("$TEST_PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    ln -s "$(kernel_test_dir)/jupyter_kernel_test" "$site/jupyter_kernel_test"
    "$TEST_PYTHON" -c 'import jupyter_kernel_test, jupyterlab, torch' >&2 || { rm -rf "$venv"; return 1; }
    cp "$req" "$venv/test-requirements.txt"
  fi
  export TEST_PYTHON
}

# playwright-core from the lock file (no browser download: the test drives Debian's chromium).
ensure_browser_test_packages() {
  local dir="$test_deps_here/kernel/src/test/browser"
  [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] && return 0
  echo "bin/test: npm ci in $dir" >&2
  (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >&2)
}
