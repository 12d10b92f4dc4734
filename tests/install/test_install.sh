#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_install.sh — `cmake --install` into a temporary prefix, then what a user does with it:
# run the tools, read the man pages, complete a command, build and run a client both with
# `pkg-config --cflags --libs gossip` and with `find_package(gossip)` (shared and static), and
# (when the build has GOSSIP_PYTHON) import the Python module from the prefix.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
p=$(mktemp -d /tmp/gossip_install.XXXXXX)
trap 'rm -rf "$p"' EXIT
fail=0
check() { # DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@" >"$p/.out" 2>&1; then echo "ok: $what"; else echo "FAIL: $what"; tail -5 "$p/.out"; fail=1; fi
}
check "cmake --install" cmake --install "$build" --prefix "$p/usr"
P=$p/usr
# The version the build was configured with (project() in CMakeLists.txt): the installed files
# must all carry it.
ver=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[[ "$ver" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "FAIL: no project version in $build/CMakeCache.txt"; exit 1; }
major=${ver%%.*} minor=${ver#*.}
minor=${minor%%.*}
lib=$(cd "$P" && ls -d lib*/ | head -1)
lib=${lib%/}
for f in bin/gossip bin/gossip-mpi "$lib/libgossip.a" "$lib/libgossip_mpi.a" "$lib/libgossip_pmpi.so" \
    include/gossip/gossip.h include/gossip/version.h include/gossip/mpi.h "$lib/pkgconfig/gossip.pc" \
    "$lib/pkgconfig/gossip-mpi.pc" "$lib/cmake/gossip/gossipConfig.cmake" "$lib/cmake/gossip/gossipConfigVersion.cmake" \
    share/man/man1/gossip.1 share/man/man1/gossip-plan.1 share/man/man1/gossip-verify.1 \
    share/bash-completion/completions/gossip share/doc/gossip/LICENSE share/doc/gossip/README.md share/doc/gossip/CHANGELOG.md; do
    check "installed $f" test -s "$P/$f"
done
# A versioned SONAME, and the unversioned name for linking.
check "libgossip.so SONAME" bash -c "objdump -p '$P/$lib/libgossip.so' | grep -q 'SONAME *libgossip.so.$major\$'"
check "libgossip.so.$ver" test -f "$P/$lib/libgossip.so.$ver"
# The installed tools run from anywhere (no build tree, RPATH to the installed libraries).
check "installed gossip --version" bash -c "cd / && '$P/bin/gossip' --version | grep -qx 'gossip $ver'"
check "installed gossip plans" bash -c "'$P/bin/gossip' plan allgather torus:4x4 | grep -q optimal"
# Man pages: one per command, from the tool's --help.
check "gossip-plan.1 is a man page of plan" bash -c "grep -q '^\.TH \"GOSSIP-PLAN\" 1' '$P/share/man/man1/gossip-plan.1' && grep -q -- '--packets' '$P/share/man/man1/gossip-plan.1'"
# Every man page has the sections man(7) readers look for.
for m in "$P"/share/man/man1/*.1; do
    check "$(basename "$m") has SYNOPSIS, OPTIONS, ENVIRONMENT and EXAMPLES" bash -c \
        "for s in SYNOPSIS OPTIONS ENVIRONMENT EXAMPLES; do grep -qx \".SH \$s\" '$m' || { echo \"no \$s\"; exit 1; }; done"
done
# The documents the tools' help cites (docs/NAME.md) are installed in share/doc/gossip/docs.
helps=$("$P/bin/gossip" --help; for c in $("$P/bin/gossip" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { exit }'); do
    "$P/bin/gossip" "$c" --help; done; [ -x "$P/bin/gossip-mpi" ] && { "$P/bin/gossip-mpi" --help; "$P/bin/gossip-mpi" help calibrate; })
cited=$(grep -oE 'docs/[a-z-]+\.md' <<<"$helps" | sort -u)
check "the help cites documents" test -n "$cited"
for d in $cited; do check "installed share/doc/gossip/$d (cited by --help)" test -s "$P/share/doc/gossip/$d"; done
# Completion: "gossip pl<TAB>" gives plan; "gossip plan --pa<TAB>" gives --packets.
check "bash completion" bash -c "PATH='$P/bin':\$PATH; source '$P/share/bash-completion/completions/gossip'; COMP_WORDS=(gossip pl); COMP_CWORD=1; _gossip; [ \"\${COMPREPLY[*]}\" = plan ] && COMP_WORDS=(gossip plan --pa); COMP_CWORD=2; _gossip; [ \"\${COMPREPLY[*]}\" = --packets ]"
# Completion offers only what each command takes: list has no operands; a plan's --method only
# its collective's methods (the registry's, asked of the installed tool).
check "completion: list takes no operand" bash -c "PATH='$P/bin':\$PATH; source '$P/share/bash-completion/completions/gossip'; COMP_WORDS=(gossip list ''); COMP_CWORD=2; _gossip; [ -z \"\${COMPREPLY[*]}\" ]"
check "completion: broadcast methods only" bash -c "PATH='$P/bin':\$PATH; source '$P/share/bash-completion/completions/gossip'; COMP_WORDS=(gossip plan broadcast torus:4x4 --method ''); COMP_CWORD=5; _gossip; want=\$(gossip list --collective broadcast --json | jq -r '.methods[].name' | sort | tr '\\n' ' '); got=\$(printf '%s\\n' \"\${COMPREPLY[@]}\" | grep -vx auto | sort | tr '\\n' ' '); [ \"\$got\" = \"\$want\" ] && ! printf '%s\\n' \"\${COMPREPLY[@]}\" | grep -qx rotation"
# gossip-mpi's --algorithm offers the runtime algorithms of the collective it runs, only.
if [ -f "$P/share/bash-completion/completions/gossip-mpi" ]; then
    check "completion: gossip-mpi broadcast algorithms only" bash -c "PATH='$P/bin':\$PATH; source '$P/share/bash-completion/completions/gossip-mpi'; COMP_WORDS=(gossip-mpi run broadcast torus:4x4 --algorithm ''); COMP_CWORD=5; _gossip_mpi; want=\$(gossip list --runtime --collective broadcast --json | jq -r '.algorithms[].name' | sort | tr '\\n' ' '); got=\$(printf '%s\\n' \"\${COMPREPLY[@]}\" | grep -vx auto | sort | tr '\\n' ' '); [ \"\$got\" = \"\$want\" ] && ! printf '%s\\n' \"\${COMPREPLY[@]}\" | grep -qx gather"
fi
# pkg-config: a client compiled and linked with nothing but what gossip.pc says.
export PKG_CONFIG_PATH=$P/$lib/pkgconfig
check "gossip.pc states the licence" grep -qx 'License: GPL-3.0-or-later' "$P/$lib/pkgconfig/gossip.pc"
check "installed LICENSE is the GPL-3" grep -q 'Version 3, 29 June 2007' "$P/share/doc/gossip/LICENSE"
check "pkg-config --modversion" bash -c "[ \"\$(pkg-config --modversion gossip)\" = $ver ]"
check "pkg-config client builds" bash -c "cc -std=c11 -Wall -Werror '$src/examples/plan_verify.c' -o '$p/client_pc' \$(pkg-config --cflags --libs gossip)"
check "pkg-config client runs" bash -c "LD_LIBRARY_PATH='$P/$lib' '$p/client_pc' torus:4x4 '$p/s.json' | grep -q 'verifier: valid' && '$P/bin/gossip' verify '$p/s.json' >/dev/null"
check "pkg-config --static client builds" bash -c "cc -std=c11 '$src/examples/plan_verify.c' -o '$p/client_pcs' \$(pkg-config --cflags gossip) '$P/$lib/libgossip.a' \$(pkg-config --static --libs-only-l gossip | sed 's/-lgossip\\b//')"
check "pkg-config --static client runs" bash -c "'$p/client_pcs' hypercube:4 | grep -q 'verifier: valid'"
# find_package: gossip::gossip (shared) and gossip::gossip_static.
check "find_package client configures" cmake -S "$src/tests/install/client" -B "$p/cb" -DCMAKE_PREFIX_PATH="$P" -DEXAMPLE="$src/examples/plan_verify.c" -DGOSSIP_WANT="$major.$minor"
check "find_package client builds" cmake --build "$p/cb"
check "find_package client (shared) runs" bash -c "'$p/cb/client_shared' star:4 | grep -q 'verifier: valid'"
check "find_package client (static) runs" bash -c "'$p/cb/client_static' cycle:7 | grep -q 'verifier: valid'"
# The Python module: imported from the prefix alone (no build tree, no GOSSIP_LIBRARY or
# LD_LIBRARY_PATH), it loads the libgossip.so of that prefix, plans and verifies.
if grep -q '^GOSSIP_PYTHON:BOOL=ON$' "$build/CMakeCache.txt"; then
    pydir=$(sed -n 's/^GOSSIP_PYTHON_DIR:STRING=//p' "$build/CMakeCache.txt")
    py=$(sed -n 's/^_\{0,1\}Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
    for f in __init__.py _capi.py _config.py; do
        check "installed $pydir/gossip/$f" test -s "$P/$pydir/gossip/$f"
    done
    check "python: import gossip from the prefix and plan" bash -c "cd / && env -u GOSSIP_LIBRARY -u LD_LIBRARY_PATH \
        PYTHONPATH='$P/$pydir' '${py:-python3}' -c 'import gossip, os, sys
assert gossip.version() == \"$ver\", gossip.version()
lib = gossip._lib._name
assert os.path.realpath(lib).startswith(os.path.realpath(\"$P\") + os.sep), lib
s = gossip.plan(\"allgather\", \"torus:5x5\")
assert (s.rounds, s.verify()[\"ok\"]) == (6, True)
s.save(\"$p/py.json\")' && '$P/bin/gossip' verify '$p/py.json' >/dev/null"
fi
exit $fail
