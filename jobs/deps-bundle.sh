#!/usr/bin/env bash
# Packs Debian's builds of the C libraries seisfd builds against (parallel
# HDF5 for Open MPI, libyaml, segyio, hwloc, and UCX's headers) into one
# directory, for a GPU host that has a compiler, Open MPI and CUDA but
# neither these libraries nor a network to fetch them with.
#
#   bash jobs/deps-bundle.sh [--arch ARCH] PREFIX
#       on a Debian or Ubuntu machine that reaches its package archive (after
#       apt-get update): fetches the packages with apt-get download (no root
#       needed, nothing installed) and unpacks them under PREFIX with
#       dpkg-deb -x; ARCH (e.g. arm64) fetches another architecture's builds.
#   bash jobs/deps-bundle.sh --check PREFIX
#       on the GPU host, after copying PREFIX there: lists the libraries the
#       bundle needs that the host lacks.
#
# Then, on the GPU host:  . PREFIX/env.sh && make
# env.sh sets the compiler's, linker's and loader's search paths and the
# Makefile's HDF5_*, YAML_*, SEGYIO_*, HWLOC* and UCX* variables.
set -euo pipefail
shopt -s inherit_errexit   # a failure inside $(...) stops the script too

readonly MARKER="# seisfd dependency bundle"
# The -dev packages hold the headers and the link names; each pins the
# packages of its libraries to its own version, which come along.
readonly DEV_PACKAGES="libhdf5-openmpi-dev libyaml-dev libsegyio-dev libhwloc-dev libucx-dev"
# HDF5's szip filter, which few hosts have, and hwloc's libudev, which
# containers without systemd lack; HDF5's other libraries (libcurl,
# libcrypto, zlib) and Open MPI's own are the host's (--check lists them).
readonly EXTRA_PACKAGES="libsz2 libaec0 libudev1"
# UCX's headers only: seisfd asks the UCX that Open MPI loaded, and a second
# libucp on the loader's path could become the one Open MPI loads.
readonly HEADERS_ONLY="libucx-dev"

usage() {
    cat <<'EOF'
usage: deps-bundle.sh [--arch ARCH] PREFIX   fetch and unpack the libraries under PREFIX
       deps-bundle.sh --check PREFIX         on the target host: list what the bundle lacks
Then: . PREFIX/env.sh && make
EOF
}

fail() {
    echo "deps-bundle: error: $*" >&2
    exit 1
}

# The library packages a -dev package pins to its own version ("= v").
pinned_packages() {
    local shown
    shown=$(apt-cache show --no-all-versions "$1" 2>/dev/null) ||
        fail "apt-cache knows no package '$1' (run 'apt-get update' first; a Debian or Ubuntu machine is needed)"
    sed -n 's/^Depends: //p' <<<"$shown" | tr ',' '\n' |
        sed -n 's/^ *\([a-z0-9][a-z0-9.+-]*\)\(:[a-z0-9]*\)\{0,1\} *(= .*/\1/p'
}

package_list() {
    local arch_suffix=$1 pkg
    for pkg in $DEV_PACKAGES; do
        echo "$pkg$arch_suffix"
        case " $HEADERS_ONLY " in *" $pkg "*) continue ;; esac
        pinned_packages "$pkg$arch_suffix" | sed "s/\$/$arch_suffix/"
    done
    for pkg in $EXTRA_PACKAGES; do echo "$pkg$arch_suffix"; done
}

# PREFIX must be new, empty or an earlier bundle: dpkg-deb -x writes over
# whatever lies there. Its path goes unquoted into the Makefile's flags.
check_prefix() {
    local prefix=$1
    case $prefix in
        *[!A-Za-z0-9._/+-]*) fail "PREFIX '$prefix': use only letters, digits and . _ - + / (its path goes into compiler flags)" ;;
    esac
    [ -e "$prefix" ] || return 0
    [ -d "$prefix" ] || fail "'$prefix' exists and is not a directory"
    [ -z "$(ls -A "$prefix")" ] && return 0
    head -n 1 "$prefix/env.sh" 2>/dev/null | grep -qx "$MARKER" ||
        fail "'$prefix' is neither empty nor an earlier bundle (no $prefix/env.sh of this script); choose a new directory"
}

# The multiarch directory (x86_64-linux-gnu, aarch64-linux-gnu, ...) the
# libraries were unpacked into.
multiarch_of() {
    local found
    found=$(find "$1/usr/lib" -maxdepth 2 -name 'libyaml-0.so.2' -print -quit)
    [ -n "$found" ] || fail "no libyaml-0.so.2 under $1/usr/lib after unpacking"
    basename "$(dirname "$found")"
}

# Fails naming what is missing when the packages' layout is not the one
# env.sh describes (another Debian or Ubuntu release may move things).
check_layout() {
    local prefix=$1 multiarch=$2 path missing=""
    for path in usr/include/hdf5/openmpi/hdf5.h usr/include/yaml.h usr/include/segyio/segy.h \
                usr/include/hwloc.h usr/include/hwloc/cudart.h usr/include/ucp/api/ucp.h \
                "usr/lib/$multiarch/hdf5/openmpi/libhdf5.so" "usr/lib/$multiarch/libyaml.so" \
                "usr/lib/$multiarch/libsegyio.so" "usr/lib/$multiarch/libhwloc.so"; do
        [ -e "$prefix/$path" ] || missing="$missing $path"
    done
    # hwloc's configuration header lies with the architecture's headers.
    [ -e "$prefix/usr/include/hwloc/autogen/config.h" ] ||
        [ -e "$prefix/usr/include/$multiarch/hwloc/autogen/config.h" ] ||
        missing="$missing usr/include/[$multiarch/]hwloc/autogen/config.h"
    [ -z "$missing" ] || fail "the unpacked packages lack:$missing"
}

write_env() {
    local prefix=$1 multiarch=$2
    cat >"$prefix/env.sh" <<EOF
$MARKER
# Debian's builds of seisfd's C libraries, unpacked by jobs/deps-bundle.sh.
# Source it before building or running seisfd:  . ${prefix}/env.sh && make
# The bundle is where this file lies (bash), else where it was made: after
# moving it, source it from bash or set SEISFD_DEPS to its new place first.
if [ -n "\${BASH_SOURCE:-}" ]; then
    SEISFD_DEPS=\$(cd "\$(dirname "\$BASH_SOURCE")" && pwd)
else
    SEISFD_DEPS=\${SEISFD_DEPS:-${prefix}}
fi
export SEISFD_DEPS
_seisfd_inc=\$SEISFD_DEPS/usr/include
_seisfd_inc_arch=\$SEISFD_DEPS/usr/include/${multiarch}
_seisfd_lib=\$SEISFD_DEPS/usr/lib/${multiarch}
# Compiler, linker and loader (at run time too: mpirun -x LD_LIBRARY_PATH
# carries it to the ranks of other nodes).
export CPATH="\$_seisfd_inc/hdf5/openmpi:\$_seisfd_inc:\$_seisfd_inc_arch\${CPATH:+:\$CPATH}"
export LIBRARY_PATH="\$_seisfd_lib/hdf5/openmpi:\$_seisfd_lib\${LIBRARY_PATH:+:\$LIBRARY_PATH}"
export LD_LIBRARY_PATH="\$_seisfd_lib/hdf5/openmpi:\$_seisfd_lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
# The Makefile's dependency variables, in place of pkg-config's answers.
export HDF5_CFLAGS="-I\$_seisfd_inc/hdf5/openmpi"
export HDF5_LIBS="-L\$_seisfd_lib/hdf5/openmpi -lhdf5"
export YAML_CFLAGS="-I\$_seisfd_inc" YAML_LIBS="-L\$_seisfd_lib -lyaml"
export SEGYIO_CFLAGS="-I\$_seisfd_inc" SEGYIO_LIBS="-L\$_seisfd_lib -lsegyio"
export HWLOC=1 HWLOC_CFLAGS="-I\$_seisfd_inc -I\$_seisfd_inc_arch" HWLOC_LIBS="-L\$_seisfd_lib -lhwloc"
export UCX=1 UCX_CFLAGS="-I\$_seisfd_inc"
unset _seisfd_inc _seisfd_inc_arch _seisfd_lib
EOF
}

make_bundle() {
    local arch=$1 prefix=$2 arch_suffix="" packages deb multiarch
    if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
        fail "needs apt-get and dpkg-deb (a Debian or Ubuntu machine)"
    fi
    [ -z "$arch" ] || arch_suffix=":$arch"
    check_prefix "$prefix"
    packages=$(package_list "$arch_suffix")
    WORK_DIR=$(mktemp -d)
    trap 'rm -rf "$WORK_DIR"' EXIT
    # As root apt-get download hands the download to its sandbox user,
    # who cannot write into the private work directory.
    local as_root=()
    [ "$(id -u)" != 0 ] || as_root=(-o APT::Sandbox::User=root)
    # shellcheck disable=SC2086  # one word per package
    if ! (cd "$WORK_DIR" && apt-get download -q "${as_root[@]}" $packages) >"$WORK_DIR/log" 2>&1; then
        tail -n 20 "$WORK_DIR/log" >&2
        fail "apt-get download failed (no network, or run 'apt-get update' first?)"
    fi
    # Unpacked and checked aside first: a failure leaves PREFIX as it was.
    local staged=$WORK_DIR/root
    mkdir "$staged"
    for deb in "$WORK_DIR"/*.deb; do
        dpkg-deb -x "$deb" "$staged" || fail "cannot unpack $(basename "$deb")"
        # shellcheck disable=SC2016  # dpkg-deb's fields, not the shell's
        dpkg-deb --show --showformat='${Package} ${Version} ${Architecture}\n' "$deb" >>"$staged/packages.txt"
    done
    multiarch=$(multiarch_of "$staged")
    check_layout "$staged" "$multiarch"
    mkdir -p "$prefix"
    prefix=$(cd "$prefix" && pwd)
    rm -rf "${prefix:?}/usr"   # an earlier bundle's files
    mv "$staged/usr" "$staged/packages.txt" "$prefix/"
    write_env "$prefix" "$multiarch"
    echo "deps-bundle: $(wc -l <"$prefix/packages.txt") packages ($(du -sh "$prefix" | cut -f1)) in $prefix"
    echo "deps-bundle: copy it to the GPU host, then: . $prefix/env.sh && make"
}

# On the target host: every library of the bundle that seisfd links must
# find its own dependencies there (libmpi, libcurl, libcrypto, zlib, ...).
check_host() {
    local prefix=$1 lib found missing
    head -n 1 "$prefix/env.sh" 2>/dev/null | grep -qx "$MARKER" ||
        fail "'$prefix' holds no bundle of this script (no $prefix/env.sh)"
    command -v ldd >/dev/null || fail "needs ldd"
    missing=$(
        # shellcheck disable=SC1091  # written by write_env
        . "$prefix/env.sh"
        for lib in "$prefix"/usr/lib/*/libhdf5_openmpi.so.[0-9]* "$prefix"/usr/lib/*/libyaml-0.so.[0-9]* \
                   "$prefix"/usr/lib/*/libsegyio.so.[0-9]* "$prefix"/usr/lib/*/libhwloc.so.[0-9]*; do
            if [ ! -f "$lib" ] || [ -L "$lib" ]; then continue; fi   # a link: the same library again
            if ! found=$(ldd "$lib" 2>&1); then
                echo "$(basename "$lib") itself, which ldd cannot load here (another architecture?)"
                continue
            fi
            sed -n "s|^[[:space:]]*\([^ ]*\) => not found|\1 (needed by $(basename "$lib"))|p" <<<"$found"
        done | sort -u
    )
    if [ -n "$missing" ]; then
        echo "deps-bundle: this host lacks:" >&2
        # shellcheck disable=SC2001  # indents every line
        sed 's/^/  /' <<<"$missing" >&2
        exit 1
    fi
    echo "deps-bundle: every library of $prefix finds what it needs on this host"
}

main() {
    local arch="" mode=bundle
    while [ $# -gt 0 ]; do
        case $1 in
            -h|--help) usage; exit 0 ;;
            --arch) [ $# -ge 2 ] || { usage >&2; exit 2; }; arch=$2; shift 2 ;;
            --check) mode=check; shift ;;
            -*) echo "deps-bundle: unknown option '$1'" >&2; usage >&2; exit 2 ;;
            *) break ;;
        esac
    done
    if [ $# -ne 1 ] || [ -z "$1" ]; then
        usage >&2
        exit 2
    fi
    if [ "$mode" = check ]; then
        check_host "$1"
    else
        make_bundle "$arch" "$1"
    fi
}

main "$@"
