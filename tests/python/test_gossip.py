# SPDX-License-Identifier: GPL-3.0-or-later
"""test_gossip.py — the Python module (python/gossip) against independent truth: the structures
it mirrors against the C headers (a probe compiled from its own tables), invariants and round
counts known in closed form, a schedule simulator written here, the command line's --json output
and verdicts, and the C heap before and after many calls.

Run by CTest (tests/CMakeLists.txt) with PYTHONPATH=BUILD/python and GOSSIP_LIBRARY=the build's
libgossip.so; GOSSIP_CLI (the gossip tool), GOSSIP_CC and GOSSIP_INCLUDE (compiler and include
folders for the layout probe) and GOSSIP_TEST_DATA (tests/data) name the rest."""

import ctypes
import doctest
import gc
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

import gossip
from gossip import _capi

CLI = os.environ.get("GOSSIP_CLI")
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("GOSSIP_TEST_DATA", os.path.join(HERE, "..", "data"))
DOCS = os.path.join(HERE, "..", "..", "docs")


def cli(*args):
    """Runs the gossip tool: (exit code, stdout, stderr)."""
    r = subprocess.run([CLI, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def cli_json(*args):
    code, out, err = cli(*args, "--json")
    if code not in (0, 1):
        raise AssertionError(f"gossip {' '.join(args)}: exit {code}: {err}")
    return json.loads(out)


def torus_neighbours(dims, x):
    """The neighbours of node x of torus:dims (row-major, last coordinate fastest), from the
    definition: one coordinate changed by +-1 modulo its side."""
    coords = []
    for p in reversed(dims):
        coords.append(x % p)
        x //= p
    coords.reverse()
    out = set()
    for j, p in enumerate(dims):
        for step in (1, -1):
            c = list(coords)
            c[j] = (c[j] + step) % p
            y = 0
            for q, cj in zip(dims, c):
                y = y * q + cj
            out.add(y)
    return out


def simulate_allgather(n, rounds, neighbours, packets=1):
    """A schedule simulator of its own (docs/schedule-format.md's rules for allgather): every
    transfer on an arc, its packet held by the sender at the start of the round, at most
    `packets` transfers per arc per round, and every node holding every packet at the end.
    Returns None when correct, else what is wrong."""
    held = [{v} for v in range(n)]
    for t, sends in enumerate(rounds):
        load = {}
        got = []
        for (u, v, x) in sends:
            if v not in neighbours(u):
                return f"round {t}: ({u}, {v}) is not an arc"
            if x not in held[u]:
                return f"round {t}: {u} does not hold packet {x}"
            load[(u, v)] = load.get((u, v), 0) + 1
            if load[(u, v)] > packets:
                return f"round {t}: more than {packets} packets on ({u}, {v})"
            got.append((v, x))
        for v, x in got:
            held[v].add(x)
    for v in range(n):
        if len(held[v]) != n:
            return f"node {v} ends with {len(held[v])} of {n} packets"
    return None


class Layout(unittest.TestCase):
    """The ctypes structures and constants of gossip._capi are those of the headers: a C probe,
    generated from the Python tables, prints sizeof and offsetof of every field."""

    def test_structures_match_headers(self):
        cc = os.environ.get("GOSSIP_CC")
        inc = [d for d in os.environ.get("GOSSIP_INCLUDE", "").split(os.pathsep) if d]
        if not cc or not inc:
            self.skipTest("GOSSIP_CC and GOSSIP_INCLUDE not set")
        src = ["#include <stddef.h>", "#include <stdio.h>", "#include <gossip/gossip.h>", "int main(void) {"]
        for cname, cls in _capi.STRUCTS.items():
            src.append(f'printf("size {cname} %zu\\n", sizeof({cname}));')
            for fname, _ in cls._fields_:
                src.append(f'printf("offset {cname}.{fname} %zu\\n", offsetof({cname}, {fname}));')
                src.append(f'printf("fsize {cname}.{fname} %zu\\n", sizeof((({cname} *)0)->{fname}));')
        for k in _capi.CONSTANTS:
            src.append(f'printf("const {k} %lld\\n", (long long)({k}));')
        src += ["return 0;", "}"]
        with tempfile.TemporaryDirectory() as d:
            c, exe = os.path.join(d, "probe.c"), os.path.join(d, "probe")
            with open(c, "w") as f:
                f.write("\n".join(src) + "\n")
            r = subprocess.run([cc, "-std=c11", *("-I" + i for i in inc), c, "-o", exe], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, "the probe does not compile (a field renamed?):\n" + r.stderr[-3000:])
            out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        want = {}
        for line in out.splitlines():
            kind, key, val = line.split()
            want[(kind, key)] = int(val)
        bad = []
        for cname, cls in _capi.STRUCTS.items():
            if ctypes.sizeof(cls) != want[("size", cname)]:
                bad.append(f"sizeof({cname}) is {want[('size', cname)]} in C, {ctypes.sizeof(cls)} in _capi")
            for fname, ftype in cls._fields_:
                k = f"{cname}.{fname}"
                if getattr(cls, fname).offset != want[("offset", k)]:
                    bad.append(f"offsetof({k}) is {want[('offset', k)]} in C, {getattr(cls, fname).offset} in _capi")
                if ctypes.sizeof(ftype) != want[("fsize", k)]:
                    bad.append(f"sizeof({k}) is {want[('fsize', k)]} in C, {ctypes.sizeof(ftype)} in _capi")
        for k, v in _capi.CONSTANTS.items():
            if want[("const", k)] != v:
                bad.append(f"{k} is {want[('const', k)]} in C, {v} in _capi")
        self.assertEqual(bad, [], "\n".join(bad))


class Loading(unittest.TestCase):
    def test_version(self):
        self.assertEqual(gossip.version(), gossip.__version__)
        self.assertRegex(gossip.__version__, r"^\d+\.\d+\.\d+$")

    def run_python(self, env):
        code = "import gossip; print(gossip.version(), gossip.plan('allgather', 'torus:4x4').rounds)"
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)

    def test_finds_library_beside_package(self):
        # Without GOSSIP_LIBRARY, the build tree's package finds the build's library.
        env = {k: v for k, v in os.environ.items() if k != "GOSSIP_LIBRARY"}
        r = self.run_python(env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), [gossip.__version__, "4"])

    def test_missing_library(self):
        env = dict(os.environ, GOSSIP_LIBRARY="/nonexistent/libgossip.so.0")
        r = self.run_python(env)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("ImportError: gossip: cannot load libgossip (GOSSIP_LIBRARY=/nonexistent/libgossip.so.0)", r.stderr)


class Topology(unittest.TestCase):
    def test_hypercube(self):
        t = gossip.topology("hypercube:4")
        self.assertEqual((t["nodes"], t["arcs"], t["diameter"]), (16, 64, 4))
        self.assertEqual(t["degree"], {"min": 4, "max": 4})
        self.assertEqual(t["distance_counts"], [math.comb(4, m) for m in range(5)])
        self.assertTrue(t["vertex_transitive"])
        self.assertFalse(t["directed"])
        # Q_4's adjacency eigenvalues: 4 - 2k with multiplicity C(4, k).
        self.assertEqual(t["spectrum"]["values"], [[4 - 2 * k, math.comb(4, k)] for k in range(5)])
        self.assertEqual(t["lower_bound"], 4)

    def test_torus(self):
        t = gossip.topology("torus:5x5")
        self.assertEqual((t["nodes"], t["diameter"], t["degree"]["max"]), (25, 4, 4))
        self.assertEqual(sum(t["distance_counts"]), 25)
        # Allgather with one packet per arc: N - 1 packets over d in-arcs, ceil((N - 1) / d).
        self.assertEqual(t["bounds"]["degree"], math.ceil(24 / 4))

    def test_petersen_is_vertex_transitive_not_cayley(self):
        t = gossip.topology("file:" + os.path.join(DATA, "petersen.txt"))
        self.assertEqual((t["nodes"], t["arcs"], t["diameter"]), (10, 30, 2))
        self.assertTrue(t["vertex_transitive"])
        self.assertIs(t["cayley_graph"], False)
        self.assertIsNone(t["complete_rotation"])

    def test_options(self):
        t = gossip.topology("torus:4x4", spectrum=False, rotation=False)
        self.assertIsNone(t["spectrum"])
        self.assertIsNone(t["complete_rotation"])

    @unittest.skipUnless(CLI, "GOSSIP_CLI not set")
    def test_same_as_cli_info(self):
        for spec in ("torus:6x6", "star:4", "hypercube:3", "product(cycle:5,complete:2)", "circulant:12:1,5",
                     "file:" + os.path.join(DATA, "petersen.txt"), "file:" + os.path.join(DATA, "dicycle3.txt"),
                     "file:" + os.path.join(DATA, "torus3x4-relabelled.txt")):
            with self.subTest(spec=spec):
                want = cli_json("info", spec)
                got = gossip.topology(spec)
                del want["seconds"], got["seconds"]
                self.assertEqual(got, want)

    @unittest.skipUnless(CLI, "GOSSIP_CLI not set")
    def test_fabric_keys_same_as_cli_info(self):
        """Fabrics (capacities, switches, one-way links): the keys of gossip info --json, the
        exact optimum included, with the broadcast root by name."""
        for spec, root in (("dgx:8x2", None), ("mi250:1", None), ("fattree:4x4:spines=2,oversub=2", None),
                           ("torus:4x4@1,2", None), ("file:" + os.path.join(DATA, "fabric.txt"), None),
                           ("file:" + os.path.join(DATA, "dgx-a100-2box.txt"), None), ("dgx:8x2", "b1.gpu3")):
            with self.subTest(spec=spec, root=root):
                want = cli_json("info", spec, *(["--root", root] if root else []))
                got = gossip.topology(spec, root=root)
                del want["seconds"], got["seconds"]
                self.assertEqual(got, want)
        # ForestColl's published optimum of two A100 boxes, exactly (docs/fabrics.md).
        self.assertEqual(gossip.topology("dgx:8x2", spectrum=False)["optimum"]["allgather"]["algbw"], "1040/3")
        self.assertIsNone(gossip.topology("dgx:8x2", optimum=False)["optimum"])
        with self.assertRaises(gossip.GossipError) as e:
            gossip.topology("dgx:8x2", root="ib")
        self.assertIn("is a switch", str(e.exception))


class Plan(unittest.TestCase):
    def test_torus_allgather_meets_counting_bound(self):
        with gossip.plan("allgather", "torus:5x5") as s:
            n, d = 25, 4
            self.assertEqual(s.rounds, math.ceil((n - 1) / d))
            self.assertEqual(s.plan["lower_bound"], 6)
            self.assertTrue(s.plan["optimal"])
            self.assertEqual(s.plan["optimality"], "bound met")
            self.assertEqual(s.transfers, n * (n - 1))
            self.assertEqual((s.collective, s.topology, s.nodes), ("allgather", "torus:5x5", 25))
            self.assertEqual(s.model, {"packets": 1, "ports": "all", "duplex": "full"})
            self.assertIsNone(s.root)
            rounds = s.sends()
            self.assertEqual(len(rounds), 6)
            self.assertIsNone(simulate_allgather(n, rounds, lambda u: torus_neighbours([5, 5], u)))
            v = s.verify()
            self.assertTrue(v["ok"])
            self.assertIsNone(v["rule"])
            self.assertEqual((v["rounds"], v["transfers"], v["duplicates"]), (6, 600, 0))

    def test_flooding_meets_diameter(self):
        s = gossip.plan("allgather", "torus:5x5", packets="inf")
        self.assertEqual((s.method, s.rounds), ("flood", 4))
        self.assertEqual(s.model["packets"], "inf")
        self.assertIsNone(simulate_allgather(25, s.sends(), lambda u: torus_neighbours([5, 5], u), packets=10 ** 9))

    def test_one_port_model(self):
        s = gossip.plan("allgather", "hypercube:3", ports=1, duplex="half")
        self.assertEqual(s.model, {"packets": 1, "ports": "1", "duplex": "half"})
        self.assertTrue(s.verify()["ok"])

    def test_broadcast_star(self):
        # The star graph S(5) has diameter floor(3 (5 - 1) / 2) = 6.
        s = gossip.plan("broadcast", "star:5", root=7)
        self.assertEqual((s.rounds, s.root), (6, 7))
        self.assertTrue(s.plan["optimal"])

    def test_allreduce_hypercube(self):
        s = gossip.plan("allreduce", "hypercube:4")
        self.assertEqual((s.rounds, s.method, s.form), (4, "spectral", "registers"))
        v = s.verify()
        self.assertTrue(v["ok"] and v["exact_forms"])
        self.assertLess(v["max_rel_error"], 1e-9)
        d = s.to_dict()
        self.assertEqual(len(d["result"]), 16)
        self.assertIn("combine", d["rounds"][0])

    def test_reduce_scatter(self):
        s = gossip.plan("reduce-scatter", "torus:4x4")
        self.assertEqual(s.form, "blocks")
        self.assertTrue(s.verify()["ok"])

    def test_named_method_and_tried(self):
        s = gossip.plan("allgather", "torus:6x6", method="greedy")
        self.assertEqual(s.plan["method"], "greedy")
        self.assertEqual(s.plan["tried"], [])
        a = gossip.plan("allgather", "torus:6x6")
        names = [m["name"] for m in gossip.methods("allgather")]
        self.assertEqual([t["method"] for t in a.plan["tried"]], names)

    @unittest.skipUnless(CLI, "GOSSIP_CLI not set")
    def test_same_as_cli_plan(self):
        for args in (("allgather", "torus:5x5"), ("allgather", "star:4", "--packets", "inf"),
                     ("broadcast", "hypercube:5", "--root", "3"), ("allreduce", "product(cycle:5,complete:2)"),
                     ("reduce-scatter", "cycle:6"), ("allreduce", "torus:5x5", "--method", "approx")):
            with self.subTest(args=args):
                want = cli_json("plan", *args)
                kw = {}
                if "--packets" in args:
                    kw["packets"] = "inf"
                if "--root" in args:
                    kw["root"] = 3
                if "--method" in args:
                    kw["method"] = args[-1]
                s = gossip.plan(args[0], args[1], **kw)
                got = dict(s.plan)
                for k in ("seconds", "summary"):
                    got.pop(k, None)
                want.pop("seconds")
                self.assertEqual(got, want)
                with tempfile.TemporaryDirectory() as d:
                    cli("plan", *args, "-o", os.path.join(d, "c.json"))
                    with open(os.path.join(d, "c.json")) as f:
                        self.assertEqual(s.to_dict(), json.load(f))

    def test_expand(self):
        s = gossip.plan("allgather", "torus:4x4")
        self.assertTrue(s.symmetric)
        d = s.to_dict(expand=True)
        self.assertNotIn("symmetric", d)
        self.assertEqual([[tuple(x) for x in r["send"]] for r in d["rounds"]], s.sends())


class Files(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_save_load_round_trip(self):
        s = gossip.plan("allgather", "torus:4x4", method="greedy")
        s.save(self.path("s.json"))
        t = gossip.load(self.path("s.json"))
        self.assertEqual(t.to_dict(), s.to_dict())
        self.assertIsNone(t.plan)
        self.assertEqual(t.sends(), s.sends())
        self.assertTrue(t.verify()["ok"])
        u = gossip.from_dict(s.to_dict())
        self.assertEqual(u.to_json(), s.to_json())
        if CLI:
            code, out, _ = cli("verify", self.path("s.json"))
            self.assertEqual(code, 0, out)

    def test_file_topology_travels_with_the_schedule(self):
        """A schedule of file:PATH carries its graph: it loads and verifies after the file is
        gone, and a different file at the same path is a warning, not a different check."""
        g = self.path("g.txt")
        shutil.copy(os.path.join(DATA, "petersen.txt"), g)
        s = gossip.plan("allgather", "file:" + g)
        s.save(self.path("s.json"))
        graph = s.to_dict()["graph"]
        self.assertEqual((graph["nodes"], len(graph["edges"])), (10, 15))
        self.assertTrue(graph["hash"].startswith("fnv1a64:"))
        os.remove(g)
        t = gossip.load(self.path("s.json"))
        self.assertTrue(t.verify()["ok"])
        self.assertEqual(t.to_dict(), s.to_dict())
        with open(g, "w") as f:
            f.write("0 1\n1 2\n2 3\n3 4\n4 5\n5 6\n6 7\n7 8\n8 9\n9 0\n")
        with self.assertWarnsRegex(UserWarning, "not the graph this schedule was planned on"):
            self.assertTrue(gossip.load(self.path("s.json")).verify()["ok"])

    def corrupted(self):
        """torus:4x4's greedy schedule whose first transfer sends, in round 0, a packet other
        than the sender's own: one it cannot hold yet (as the simulator here confirms)."""
        d = gossip.plan("allgather", "torus:4x4", method="greedy").to_dict()
        u, v, x = d["rounds"][0]["send"][0]
        d["rounds"][0]["send"][0] = [u, v, (u + 5) % 16]
        rounds = [[tuple(x) for x in r["send"]] for r in d["rounds"]]
        self.assertIsNotNone(simulate_allgather(16, rounds, lambda u: torus_neighbours([4, 4], u)))
        return d

    def test_corrupted_dict_fails(self):
        v = gossip.from_dict(self.corrupted()).verify()
        self.assertFalse(v["ok"])
        self.assertEqual((v["rule"], v["round"]), ("held", 0))
        self.assertTrue(v["message"])

    def test_corrupted_file_fails_as_cli_says(self):
        with open(self.path("bad.json"), "w") as f:
            json.dump(self.corrupted(), f)
        v = gossip.load(self.path("bad.json")).verify()
        self.assertFalse(v["ok"])
        if CLI:
            self.assertEqual(v, cli_json("verify", self.path("bad.json")))
            self.assertEqual(cli("verify", self.path("bad.json"))[0], 1)

    def test_transfer_off_the_graph_fails(self):
        d = gossip.plan("allgather", "torus:4x4", method="greedy").to_dict()
        d["rounds"][0]["send"][0] = [0, 10, 0]  # 0 and 10 = (2, 2) are not neighbours
        v = gossip.from_dict(d).verify()
        self.assertEqual((v["ok"], v["rule"], v["round"]), (False, "arc", 0))

    def test_malformed_dict_raises(self):
        d = gossip.plan("allgather", "torus:4x4", method="greedy").to_dict()
        d["rounds"][0]["send"][0] = [0, 99, 0]  # node 99 of 16
        with self.assertRaises(gossip.GossipError) as e:
            gossip.from_dict(d)
        self.assertIn("round 0", str(e.exception))
        with self.assertRaises(gossip.GossipError):
            gossip.loads("{not json")

    def test_msccl_json_export_verifies(self):
        s = gossip.plan("allgather", "torus:4x4")
        gossip.export(s, "msccl-json", self.path("m.json"))
        with open(self.path("m.json")) as f:
            m = json.load(f)
        self.assertIn("steps", m)
        back = gossip.load(self.path("m.json"), topology="torus:4x4")
        self.assertTrue(back.verify()["ok"])
        self.assertEqual(back.collective, "allgather")
        if CLI:
            code, out, err = cli("verify", self.path("m.json"), "--topology", "torus:4x4")
            self.assertEqual(code, 0, out + err)

    def test_msccl_xml_export(self):
        s = gossip.plan("allgather", "torus:4x4")
        text = s.export("msccl-xml", min_bytes=0, max_bytes=1 << 20, name="t44")
        algo = ET.fromstring(text)
        self.assertEqual(algo.tag, "algo")
        self.assertEqual((algo.get("name"), algo.get("maxBytes")), ("t44", str(1 << 20)))
        self.assertEqual(len(algo.findall("gpu")), 16)
        if CLI:
            s.save(self.path("s.json"))
            cli("export", self.path("s.json"), "--format", "msccl-xml", "--name", "t44", "--max-bytes", str(1 << 20),
                "-o", self.path("c.xml"))
            with open(self.path("c.xml")) as f:
                self.assertEqual(f.read(), text)

    def test_svg_and_gossip_formats(self):
        s = gossip.plan("broadcast", "torus:5x5")
        svg = gossip.export(s, "svg")
        self.assertTrue(ET.fromstring(svg).tag.endswith("svg"))
        gossip.export(s, "gossip", self.path("s.json"))
        with open(self.path("s.json")) as f:
            self.assertEqual(json.load(f), s.to_dict())

    def test_export_refuses_wrong_schedule(self):
        with self.assertRaises(gossip.GossipError) as e:
            gossip.export(gossip.from_dict(self.corrupted()), "msccl-json")
        self.assertIn("rule held", e.exception.message)
        self.assertEqual(e.exception.name, "GSP_ERR_INVAL")
        with self.assertRaises(ValueError):
            gossip.export(gossip.plan("allgather", "cycle:5"), "dot")


class Errors(unittest.TestCase):
    def test_malformed_spec(self):
        with self.assertRaises(gossip.GossipError) as e:
            gossip.topology("torus:5y5")
        self.assertEqual((e.exception.code, e.exception.name), (3, "GSP_ERR_PARSE"))
        self.assertIn("torus:5y5", str(e.exception))
        if CLI:
            code, _, err = cli("info", "torus:5y5")
            self.assertEqual(code, 2)
            self.assertEqual(err.strip(), "gossip: error: " + e.exception.message)
        with self.assertRaises(gossip.GossipError):
            gossip.plan("allgather", "torus:5y5")

    def test_method_errors(self):
        with self.assertRaises(gossip.GossipError) as e:
            gossip.plan("allgather", "torus:4x4", method="rotatoin")
        self.assertEqual(e.exception.name, "GSP_ERR_INVAL")
        self.assertIn("did you mean 'rotation'", str(e.exception))
        with self.assertRaises(gossip.GossipError) as e:
            gossip.plan("allgather", "torus:4x4", method="flood")
        self.assertEqual(e.exception.name, "GSP_ERR_NOTAPPLIC")
        self.assertIn("packets = inf", str(e.exception))

    def test_graph_and_root(self):
        with self.assertRaises(gossip.GossipError) as e:
            gossip.plan("broadcast", "torus:3x3", root=9)
        self.assertEqual(e.exception.name, "GSP_ERR_RANGE")
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write("0 1\n2 3\n")  # two components
            f.flush()
            with self.assertRaises(gossip.GossipError) as e:
                gossip.plan("allgather", "file:" + f.name)
            self.assertEqual(e.exception.name, "GSP_ERR_NOTAPPLIC")
            self.assertIn("not connected", str(e.exception))

    def test_io(self):
        with self.assertRaises(gossip.GossipError) as e:
            gossip.load("/nonexistent/s.json")
        self.assertEqual(e.exception.name, "GSP_ERR_IO")
        with self.assertRaises(gossip.GossipError) as e:
            gossip.plan("allgather", "torus:3x3").save("/nonexistent/dir/s.json")
        self.assertEqual(e.exception.name, "GSP_ERR_IO")

    def test_options(self):
        for kw in ({"packets": 0}, {"ports": 2}, {"duplex": "both"}, {"packets": True}):
            with self.subTest(kw=kw), self.assertRaises(ValueError):
                gossip.plan("allgather", "cycle:5", **kw)
        with self.assertRaises(ValueError):
            gossip.plan("gather", "cycle:5")
        with self.assertRaises(ValueError):
            gossip.plan("reduce", "cycle:5")

    def test_closed(self):
        s = gossip.plan("allgather", "cycle:5")
        s.close()
        s.close()
        with self.assertRaises(ValueError):
            s.rounds
        self.assertIn("closed", repr(s))


class Runtime(unittest.TestCase):
    def test_candidates(self):
        r = gossip.runtime_plan("allreduce", "torus:4x4", 1 << 20)
        self.assertEqual((r["nodes"], r["bytes"]), (16, 1 << 20))
        chosen = [c for c in r["candidates"] if c["chosen"]]
        self.assertEqual([c["algorithm"] for c in chosen], [r["choice"]])
        # The choice has the least predicted time among the built candidates, and no pending
        # candidate's lower bound beats it.
        best = min(c["predicted_seconds"] for c in r["candidates"])
        self.assertEqual(chosen[0]["predicted_seconds"], best)

    @unittest.skipUnless(CLI, "GOSSIP_CLI not set")
    def test_same_as_cli(self):
        for args, kw in ((("allreduce", "torus:4x4", "65536"), {}),
                         (("allgather", "hypercube:4", "4096"), {"alpha": 2e-6, "beta": "0:3e-10,65536:1e-10"}),
                         (("broadcast", "star:4", "1000"), {"root": 5, "shared_memory": True}),
                         (("reduce", "cycle:7", "8"), {"overhead": 1e-6, "segment": 512}),
                         (("allreduce", "torus:4x4", "65536"), {"algorithm": "tree"}),
                         (("allreduce", "torus:8x8", "1048576"), {"alpha": "0:2e-6,65472:1.16e-5"}),
                         (("allreduce", "dgx:4x2", "1048576"), {}),
                         (("broadcast", "fattree:2x4", "65536"), {"root": 3})):
            with self.subTest(args=args, kw=kw):
                opts = []
                for k, v in kw.items():
                    opts += ["--shared-memory"] if k == "shared_memory" else ["--" + k, str(v)]
                want = cli_json("plan", args[0], args[1], "--bytes", args[2], *opts)
                self.assertEqual(gossip.runtime_plan(args[0], args[1], int(args[2]), **kw), want)

    def test_bad_cost(self):
        with self.assertRaises(gossip.GossipError) as e:
            gossip.runtime_plan("allreduce", "torus:4x4", 100, alpha=-1)
        self.assertEqual(e.exception.name, "GSP_ERR_PARSE")


class Registry(unittest.TestCase):
    def test_methods(self):
        ms = gossip.methods()
        self.assertEqual(gossip.collectives(), ["broadcast", "allgather", "allreduce", "reduce-scatter", "reduce"])
        self.assertIn("rotation", [m["name"] for m in gossip.methods("allgather")])
        self.assertTrue(all(m["collective"] == "broadcast" for m in gossip.methods("broadcast")))
        if CLI:
            want = [{k: m[k] for k in ("name", "collective", "where", "source")} for m in cli_json("list")["methods"]]
            self.assertEqual([{k: m[k] for k in ("name", "collective", "where", "source")} for m in ms], want)


class Docs(unittest.TestCase):
    def test_python_md_examples(self):
        """docs/python.md's examples give the output the page shows."""
        r = doctest.testfile(os.path.join(DOCS, "python.md"), module_relative=False, report=True,
                             optionflags=doctest.NORMALIZE_WHITESPACE)
        self.assertGreater(r.attempted, 20)
        self.assertEqual(r.failed, 0, "docs/python.md: see the doctest report above")


class Memory(unittest.TestCase):
    """Every C object is freed: the C heap (glibc's mallinfo2) does not grow over many calls."""

    def heap(self):
        class MallInfo2(ctypes.Structure):
            _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                         "fsmblks", "uordblks", "fordblks", "keepcost")]
        f = ctypes.CDLL(None).mallinfo2
        f.restype = MallInfo2
        gc.collect()
        m = f()
        return m.uordblks + m.hblkhd

    def work(self):
        s = gossip.plan("allgather", "torus:6x6", method="greedy")  # explicit: 1260 transfers
        s.to_dict()
        s.sends()
        s.verify()
        s.export("msccl-json")
        t = gossip.from_dict(s.to_dict())
        t.verify()
        with gossip.plan("allreduce", "hypercube:3") as a:
            a.verify()
        gossip.topology("torus:4x4")
        gossip.runtime_plan("allreduce", "torus:4x4", 4096)
        try:
            gossip.plan("allgather", "torus:4x4", method="flood")
        except gossip.GossipError:
            pass

    def test_no_leak(self):
        try:
            ctypes.CDLL(None).mallinfo2
        except AttributeError:
            self.skipTest("no mallinfo2 (glibc < 2.33)")
        for _ in range(5):
            self.work()
        before = self.heap()
        for _ in range(60):
            self.work()
        grown = self.heap() - before
        # One leaked explicit schedule alone is 30 kB a call: 1.8 MB over 60 calls.
        self.assertLess(grown, 512 * 1024, f"the C heap grew by {grown} bytes over 60 calls")


if __name__ == "__main__":
    unittest.main()
