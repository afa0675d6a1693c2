"""jobs/deps-bundle.sh, which packs Debian's builds of seisfd's C
libraries for a GPU host without them. The bundle test runs it offline:
stand-ins for apt-cache and apt-get serve small packages built here with
dpkg-deb, whose headers and libraries are made up."""
import os
import shutil
import subprocess

from testlib import ROOT, Skipped, check, time_limit

SCRIPT = os.path.join(ROOT, "jobs", "deps-bundle.sh")
MULTIARCH = "testarch-linux-gnu"   # found in the packages, not assumed
LIB = f"usr/lib/{MULTIARCH}"


def bundle_script(*args, env=None, cwd=None):
    p = subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, cwd=cwd,
                       env=dict(os.environ, **(env or {})), timeout=time_limit(60))
    return p.returncode, p.stdout, p.stderr


def test_script_parses_and_explains_its_usage(tmp):
    """bash -n accepts it; no argument, two, an unknown option or a PREFIX
    the flags cannot carry print the usage or one error and exit non-zero
    without touching anything; --help prints the usage and exits 0."""
    p = subprocess.run(["bash", "-n", SCRIPT], capture_output=True, text=True)
    check(p.returncode == 0, f"bash -n: {p.stderr}")
    for args in ([], ["a", "b"], ["--check"], ["--arch"], ["--bogus", "x"]):
        rc, out, err = bundle_script(*args, cwd=tmp)
        check(rc == 2 and out == "" and "usage: deps-bundle.sh [--arch ARCH] PREFIX" in err,
              f"{args}: exit {rc}:\n{out}{err}")
    rc, out, err = bundle_script("--help")
    check(rc == 0 and out.startswith("usage: deps-bundle.sh") and "--check PREFIX" in out, out + err)
    rc, out, err = bundle_script(os.path.join(tmp, "a b"))
    check(rc == 1 and "deps-bundle: error: PREFIX" in err and "use only letters" in err, err)
    occupied = os.path.join(tmp, "occupied")
    os.makedirs(occupied)
    with open(os.path.join(occupied, "keep"), "w") as f:
        f.write("mine\n")
    rc, out, err = bundle_script(occupied)
    check(rc == 1 and "is neither empty nor an earlier bundle" in err
          and os.listdir(occupied) == ["keep"], f"exit {rc}:\n{err}")
    check(os.listdir(tmp) == ["occupied"], f"made: {os.listdir(tmp)}")
    return "bash -n; usage for 5 bad command lines; PREFIX with a space and a used one refused"


# Package: (files, the packages it pins to its version). A file is text, a
# ("link", target) or a ("lib", soname, [libraries it needs]) whose one
# function seisfd_fake_<key>() returns its soname, the key being its name
# without "lib" and what follows ".so" or "-0".
def fake_packages():
    def header(key):
        return f"#define SEISFD_FAKE_{key.upper()} 1\nconst char *seisfd_fake_{key}(void);\n"
    return {
        "libhdf5-openmpi-dev": ({"usr/include/hdf5/openmpi/hdf5.h": header("hdf5_openmpi"),
                                 f"{LIB}/hdf5/openmpi/libhdf5.so": ("link", "../../libhdf5_openmpi.so"),
                                 f"{LIB}/libhdf5_openmpi.so": ("link", "libhdf5_openmpi.so.103.3.1")},
                                ["libhdf5-openmpi-103-1"]),
        "libhdf5-openmpi-103-1": ({f"{LIB}/libhdf5_openmpi.so.103.3.1":
                                   ("lib", "libhdf5_openmpi.so.103", ["libseisfdtest-sz.so.2"]),
                                   f"{LIB}/libhdf5_openmpi.so.103": ("link", "libhdf5_openmpi.so.103.3.1")},
                                  []),
        "libsz2": ({f"{LIB}/libseisfdtest-sz.so.2": ("lib", "libseisfdtest-sz.so.2", [])}, []),
        "libaec0": ({"usr/share/doc/libaec0/copyright": "made up\n"}, []),
        "libudev1": ({"usr/share/doc/libudev1/copyright": "made up\n"}, []),
        "libyaml-dev": ({"usr/include/yaml.h": header("yaml"),
                         f"{LIB}/libyaml.so": ("link", "libyaml-0.so.2")}, ["libyaml-0-2"]),
        "libyaml-0-2": ({f"{LIB}/libyaml-0.so.2": ("lib", "libyaml-0.so.2", [])}, []),
        "libsegyio-dev": ({"usr/include/segyio/segy.h": header("segyio"),
                           f"{LIB}/libsegyio.so": ("link", "libsegyio.so.1")}, ["libsegyio1"]),
        "libsegyio1": ({f"{LIB}/libsegyio.so.1": ("lib", "libsegyio.so.1", [])}, []),
        "libhwloc-dev": ({"usr/include/hwloc.h": "#include <hwloc/autogen/config.h>\n" + header("hwloc"),
                          "usr/include/hwloc/cudart.h": "",
                          f"usr/include/{MULTIARCH}/hwloc/autogen/config.h": "#define SEISFD_FAKE_HWLOC_CONFIG 1\n",
                          f"{LIB}/libhwloc.so": ("link", "libhwloc.so.15")}, ["libhwloc15"]),
        "libhwloc15": ({f"{LIB}/libhwloc.so.15": ("lib", "libhwloc.so.15", [])}, []),
        "libucx-dev": ({"usr/include/ucp/api/ucp.h": "#define SEISFD_FAKE_UCP 1\n",
                        f"{LIB}/libucp.so": ("link", "libucp.so.0")}, ["libucx0"]),
        "libucx0": ({f"{LIB}/libucp.so.0": ("lib", "libucp.so.0", [])}, []),
    }


def fake_key(soname):
    return soname.split(".so")[0].removesuffix("-0")[3:].replace("-", "_")


def build_package(work, name, files, libraries):
    """A .deb of the files under work/debs; libraries: where each made-up
    library lies once built (others link against it)."""
    root = os.path.join(work, "roots", name)
    os.makedirs(os.path.join(root, "DEBIAN"))
    with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
        f.write(f"Package: {name}\nVersion: 1.0-1\nArchitecture: all\nMaintainer: tests\n"
                f"Description: a made-up {name}\n")
    for path, content in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if isinstance(content, str):
            with open(full, "w") as f:
                f.write(content)
        elif content[0] == "link":
            os.symlink(content[1], full)
        else:
            _, soname, needs = content
            source = os.path.join(work, f"{soname}.c")
            with open(source, "w") as f:
                # A call into each library it needs, which the linker keeps
                # even where it drops unused ones (--as-needed).
                calls = [f"seisfd_fake_{fake_key(n)}()" for n in needs]
                f.writelines(f"const char *{c[:-2]}(void);\n" for c in calls)
                f.write(f'const char *seisfd_fake_{fake_key(soname)}(void) {{ '
                        f'return {" && ".join(calls + ["1"])} ? "{soname}" : ""; }}\n')
            links = [f"-l:{n}" for n in needs]
            dirs = [f"-L{os.path.dirname(libraries[n])}" for n in needs]
            p = subprocess.run(["gcc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", full,
                                source, *dirs, *links], capture_output=True, text=True)
            check(p.returncode == 0, f"gcc for {soname}: {p.stderr}")
            libraries[soname] = full
    deb = os.path.join(work, "debs", f"{name}_1.0-1_all.deb")
    p = subprocess.run(["dpkg-deb", "-Znone", "--root-owner-group", "--build", root, deb],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"dpkg-deb --build {name}: {p.stderr}")


STAND_INS = {
    # apt-cache show --no-all-versions PACKAGE: its Depends line.
    "apt-cache": """#!/bin/sh
pkg=$(echo "$3" | sed 's/:.*//')
[ -f "$FAKE_ARCHIVE/depends/$pkg" ] || { echo "E: No packages found" >&2; exit 100; }
echo "Package: $pkg"; cat "$FAKE_ARCHIVE/depends/$pkg"
""",
    # apt-get download [options] PACKAGE...: the packages' files into the
    # current directory; every command line kept in a log.
    "apt-get": """#!/bin/sh
echo "$@" >>"$FAKE_ARCHIVE/apt-get.log"
[ -z "${FAKE_OFFLINE:-}" ] || { echo "E: Failed to fetch http://deb.debian.org/..." >&2; exit 100; }
for a in "$@"; do
    case $a in download|-q|-o|APT::*) continue ;; esac
    cp "$FAKE_ARCHIVE/debs/${a%%:*}_"*.deb . || { echo "E: Unable to locate package $a" >&2; exit 100; }
    [ "${a%%:*}" != "$FAKE_BROKEN" ] || rm -f ./"${a%%:*}"_*.deb
done
""",
}


def fake_archive(tmp):
    """The made-up packages and stand-ins for apt-cache and apt-get; the
    environment that puts them first on PATH."""
    for tool in ("gcc", "dpkg-deb"):
        if not shutil.which(tool):
            raise Skipped(f"needs {tool} to make the packages the stand-in archive serves")
    work = os.path.join(tmp, "archive")
    for d in ("debs", "depends", "bin"):
        os.makedirs(os.path.join(work, d))
    packages, libraries = fake_packages(), {}
    # Libraries first: the others link against them.
    order = sorted(packages, key=lambda n: not any(
        isinstance(c, tuple) and c[0] == "lib" and not c[2] for c in packages[n][0].values()))
    for name in order:
        files, pinned = packages[name]
        build_package(work, name, files, libraries)
        depends = ", ".join([f"{p} (= 1.0-1)" for p in pinned] + ["zlib1g-dev", "libfoo | libbar"])
        with open(os.path.join(work, "depends", name), "w") as f:
            f.write(f"Depends: {depends}\n")
    for tool, text in STAND_INS.items():
        path = os.path.join(work, "bin", tool)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    return work, {"PATH": os.path.join(work, "bin") + ":" + os.environ["PATH"],
                  "FAKE_ARCHIVE": work, "FAKE_BROKEN": ""}


def shell(command, cwd):
    """bash -c command, outside any bundle the caller's shell sourced."""
    env = {k: v for k, v in os.environ.items() if k != "SEISFD_DEPS"}
    p = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True,
                       env=env, timeout=time_limit(60))
    return p.returncode, p.stdout, p.stderr


# Includes every bundled header (the made-up ones must win over any the
# machine has) and calls every bundled library.
PROGRAM = r"""
#include <hdf5.h>
#include <yaml.h>
#include <segyio/segy.h>
#include <hwloc.h>
#include <ucp/api/ucp.h>
#include <stdio.h>
#if !(SEISFD_FAKE_HDF5_OPENMPI && SEISFD_FAKE_YAML && SEISFD_FAKE_SEGYIO && SEISFD_FAKE_HWLOC && \
      SEISFD_FAKE_HWLOC_CONFIG && SEISFD_FAKE_UCP)
#error not the bundle's headers
#endif
int main(void) {
    printf("%s %s %s %s\n", seisfd_fake_hdf5_openmpi(), seisfd_fake_yaml(), seisfd_fake_segyio(),
           seisfd_fake_hwloc());
    return 0;
}
"""


def test_bundle_builds_and_runs_from_its_env(tmp):
    """Offline, from a stand-in archive: the -dev packages, the libraries
    each pins to its version, libsz2, libaec0 and libudev1 are fetched, but
    not UCX's library; a copy of the bundle elsewhere, its env.sh sourced,
    compiles a program against the bundle's headers, links and runs it with
    the bundle's libraries alone; --check finds them all, then names one
    removed; a fetch that fails and a package without its files are one
    error each, leaving no PREFIX; a second run refreshes a bundle."""
    work, env = fake_archive(tmp)
    prefix = os.path.join(tmp, "bundle")
    rc, out, err = bundle_script(prefix, env=env)
    with open(os.path.join(work, "apt-get.log")) as f:
        fetched = set(f.read().split()) - {"download", "-q", "-o", "APT::Sandbox::User=root"}
    check(rc == 0 and f"deps-bundle: {len(fetched)} packages" in out, f"exit {rc}:\n{out}{err}")
    check(fetched == set(fake_packages()) - {"libucx0"}, f"fetched {sorted(fetched)}")
    with open(os.path.join(prefix, "packages.txt")) as f:
        check(sorted(f.read().splitlines()) == sorted(f"{p} 1.0-1 all" for p in fetched),
              "packages.txt")

    moved = os.path.join(tmp, "moved")
    shutil.copytree(prefix, moved, symlinks=True)
    with open(os.path.join(tmp, "program.c"), "w") as f:
        f.write(PROGRAM)
    rc, out, err = shell(
        ". moved/env.sh && echo \"$SEISFD_DEPS|$HDF5_CFLAGS|$HWLOC|$UCX\" && "
        "gcc $HDF5_CFLAGS $YAML_CFLAGS $SEGYIO_CFLAGS $HWLOC_CFLAGS $UCX_CFLAGS program.c "
        "$HDF5_LIBS $YAML_LIBS $SEGYIO_LIBS $HWLOC_LIBS -o program && ./program", tmp)
    check(rc == 0 and out.splitlines() == [
        f"{moved}|-I{moved}/usr/include/hdf5/openmpi|1|1",
        "libhdf5_openmpi.so.103 libyaml-0.so.2 libsegyio.so.1 libhwloc.so.15"],
        f"exit {rc}:\n{out}{err}")
    # Another shell has no BASH_SOURCE: the place the bundle was made.
    rc, out, err = shell(f"sh -c '. {moved}/env.sh && echo $SEISFD_DEPS'", tmp)
    check(rc == 0 and out.strip() == prefix, f"sh: {out}{err}")

    rc, out, err = bundle_script("--check", moved)
    check(rc == 0 and "every library of" in out, f"--check: exit {rc}:\n{out}{err}")
    os.remove(os.path.join(moved, LIB, "libseisfdtest-sz.so.2"))
    rc, out, err = bundle_script("--check", moved)
    check(rc == 1 and "libseisfdtest-sz.so.2 (needed by libhdf5_openmpi.so.103.3.1)" in err,
          f"--check without libsz: exit {rc}:\n{out}{err}")

    for name, extra, message in (
            ("offline", {"FAKE_OFFLINE": "1"}, "apt-get download failed (no network, or run "
                                               "'apt-get update' first?)"),
            ("broken", {"FAKE_BROKEN": "libhwloc-dev"}, "the unpacked packages lack: "
                                                        "usr/include/hwloc.h usr/include/hwloc/cudart.h")):
        rc, out, err = bundle_script(os.path.join(tmp, name), env=dict(env, **extra))
        check(rc == 1 and message in err, f"{name}: exit {rc}:\n{out}{err}")
        check(not os.path.exists(os.path.join(tmp, name)), f"{name}: PREFIX made")

    stale = os.path.join(prefix, LIB, "libstale.so.1")
    open(stale, "w").close()
    rc, out, err = bundle_script(prefix, env=env)
    check(rc == 0 and not os.path.exists(stale), f"refresh: exit {rc}:\n{err}")
    return (f"{len(fetched)} packages (not libucx0); built, linked and ran from a moved copy; "
            f"--check; 2 errors")
