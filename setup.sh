#!/bin/sh
# seisfd's first command on Debian or Ubuntu, needing nothing a bare system
# lacks (not even make): installs the packages that the build, the tests and
# the pictures need (as root; otherwise it lists the apt-get command), then
# builds seisfd and runs the demo (make demo).
#   sh setup.sh          packages, build, demo
#   sh setup.sh deps     the packages only (make deps and .ci/run use this)
set -eu
cd "$(dirname "$0")"

# libopenblas0-pthread: numpy's linear algebra through OpenBLAS rather than
# the reference LAPACK (the CPML stability tests' eigenvalues: 53 s -> 7 s).
PACKAGES="gcc make pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev libyaml-dev
          libhwloc-dev libsegyio-dev libucx-dev python3 python3-numpy python3-h5py python3-matplotlib
          python3-segyio libopenblas0-pthread"

missing_packages() {
    for p in $PACKAGES; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
    done
}

install_packages() {
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "setup: not a Debian system; install the equivalents of:" $PACKAGES >&2
        exit 1
    fi
    missing=$(missing_packages)
    if [ -z "$missing" ]; then
        echo "setup: all packages are installed"
    elif [ "$(id -u)" = 0 ]; then
        echo "setup: installing" $missing
        apt-get update -q
        # shellcheck disable=SC2086  # one word per package
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
    else
        echo "setup: missing packages:" $missing >&2
        echo "setup: install them as root: apt-get install" $missing >&2
        exit 1
    fi
}

case "${1:-demo}" in
    deps) install_packages ;;
    demo) install_packages && make demo ;;
    *) echo "usage: sh setup.sh [deps|demo]" >&2; exit 2 ;;
esac
