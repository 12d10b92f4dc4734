#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# msccl_tools_check.py — msccl-tools' own reading of exported JSON: each file is loaded with its
# loader (msccl/serialization.py, load_msccl_object) and checked with its check
# (msccl/algorithm.py, Algorithm.check_implements against the file's own collective). Files
# after "--bad" must fail the check. Usage: msccl_tools_check.py MSCCL_TOOLS FILE... [--bad FILE...]
# MSCCL_TOOLS is a checkout of github.com/microsoft/msccl-tools (nothing is downloaded here).
# Its package's __init__ (autosynth) is not run: the modules the loader needs are pure Python.
import sys
import types

src, files = sys.argv[1], sys.argv[2:]
pkg = types.ModuleType("msccl")
pkg.__path__ = [src + "/msccl"]
sys.modules["msccl"] = pkg
from msccl.serialization import load_msccl_object  # noqa: E402

bad, fails = False, 0
for f in files:
    if f == "--bad":
        bad = True
        continue
    try:
        algo = load_msccl_object(f)
        algo.check_implements(algo.collective)
        err = None
    except Exception as e:  # msccl-tools raises RuntimeError, or AssertionError on bandwidth
        err = e
    c = algo.collective if err is None else None
    if bad != (err is not None):
        print(f"FAIL: {f}: " + (f"msccl-tools refuses it: {err}" if err else "msccl-tools accepts it"))
        fails += 1
    elif c is not None:
        kind = "combining" if c.is_combining else "non-combining"
        print(f"{f}: {c.name} ({c.runtime_name}, {kind}, {c.num_chunks} chunks at {c.num_addresses} addresses), "
              f"{len(algo.steps)} steps: check_implements passes")
sys.exit(1 if fails else 0)
