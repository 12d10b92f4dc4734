# SPDX-License-Identifier: GPL-3.0-or-later
"""gossip — libgossip from Python: plan, verify, export and read schedules of collective
communication (broadcast, allgather, allreduce, reduce-scatter) and the invariants of
interconnection networks, as plain dicts and lists (docs/python.md).

    >>> import gossip
    >>> s = gossip.plan("allgather", "torus:5x5")
    >>> s.rounds, s.plan["lower_bound"], s.verify()["ok"]
    (6, 6, True)

A thin layer of ctypes over libgossip.so: no compiled part and no dependency beyond the standard
library. Every C object it makes is freed when its Python object goes (at once with close() or a
`with` block). The library's errors raise GossipError with its code and one-line message; the
dicts have the keys of the command line's --json output (docs/cli.md)."""

import ctypes
import json
import math
import os
import sys
import tempfile
import time
from fractions import Fraction
import warnings
from ctypes import POINTER, byref, c_double, c_int, c_size_t, c_void_p

from . import _capi, _config
from ._capi import libc

__version__ = _config.VERSION
__all__ = ["GossipError", "Schedule", "version", "collectives", "methods", "topology", "plan", "load", "loads",
           "from_dict", "export", "runtime_plan", "memory_limit", "set_memory_limit", "EXPORT_FORMATS"]

_lib = _capi.load()
_K = _capi.CONSTANTS


class GossipError(Exception):
    """An error of libgossip: `code` is its gsp_err_t value (stable, docs: core.h), `name` its
    symbolic name ("GSP_ERR_PARSE"), `message` the library's one line on what failed and where
    (gsp_errmsg()), which str() gives."""

    def __init__(self, code, message, name=None):
        self.code = int(code)
        self.name = name or _s(_lib.gsp_strerror_name(self.code))
        self.message = message
        super().__init__(message)

    def __reduce__(self):
        return (GossipError, (self.code, self.message, self.name))


def _s(b):
    return None if b is None else b.decode("utf-8", "replace")


def _check(err):
    if err:
        raise GossipError(err, _s(_lib.gsp_errmsg()))


def _fail(code_name, message):
    raise GossipError(_K[code_name], message)


def _enc(text, what):
    if isinstance(text, os.PathLike):
        text = os.fspath(text)
    if not isinstance(text, str):
        raise TypeError(f"gossip: {what} must be a string, not {type(text).__name__}")
    return text.encode()


# ---- streams in memory: the library writes and reads through FILE * ----
def _write_text(write):
    """What write(FILE *) -> gsp_err_t writes, as a str."""
    buf, size = c_void_p(), c_size_t()
    f = libc.open_memstream(byref(buf), byref(size))
    if not f:
        raise MemoryError("gossip: open_memstream failed")
    err = 0
    try:
        err = write(f)
    finally:
        libc.fclose(f)
        data = ctypes.string_at(buf.value, size.value) if buf.value else b""
        libc.free(buf)
    _check(err)
    return data.decode()


def _read_text(text, read):
    """Calls read(FILE *) -> gsp_err_t on a stream over text."""
    data = text.encode() if isinstance(text, str) else bytes(text)
    if not data:
        _fail("GSP_ERR_PARSE", "gossip: empty input (expected a schedule)")
    buf = ctypes.create_string_buffer(data, len(data))
    f = libc.fmemopen(buf, len(data), b"r")
    if not f:
        raise MemoryError("gossip: fmemopen failed")
    try:
        _check(read(f))
    finally:
        libc.fclose(f)


# ---- names ----
def version():
    """The version of the libgossip loaded (equal to __version__: checked on import)."""
    return _s(_lib.gsp_version())


_COLLECTIVES = ["broadcast", "allgather", "allreduce", "reduce-scatter", "reduce"]


def collectives():
    """The collectives' names, in the library's order."""
    return list(_COLLECTIVES)


def _coll(name):
    out = c_int()
    if not isinstance(name, str) or not _lib.gsp_collective_parse(name.encode(), byref(out)):
        raise ValueError(f"gossip: unknown collective {name!r} (one of {', '.join(_COLLECTIVES)})")
    return out.value


def _coll_name(c):
    return _s(_lib.gsp_collective_name(c))


def methods(collective=None):
    """The registry of construction methods (what `gossip list` shows), in its order: dicts with
    name, collective, where (where it applies), source (the paper), approximate, on_request.
    collective [str, optional]: only that collective's."""
    want = _coll(collective) if collective is not None else None
    n = c_int()
    arr = _lib.gsp_methods(byref(n))
    out = []
    for i in range(n.value):
        m = arr[i].contents
        if want is not None and m.coll != want:
            continue
        out.append({"name": _s(m.name), "collective": _coll_name(m.coll), "where": _s(m.where),
                    "source": _s(m.source), "approximate": bool(m.approximate), "on_request": bool(m.on_request)})
    return out


def memory_limit():
    """The bytes a topology may plan for (gsp_memory_limit: half the physical memory, or
    $GOSSIP_MEMORY_LIMIT); larger work is refused with GSP_ERR_TOOBIG before it starts."""
    return int(_lib.gsp_memory_limit())


def set_memory_limit(nbytes):
    """Sets that limit for this process (0: back to the default)."""
    _lib.gsp_set_memory_limit(int(nbytes))


# ---- topologies ----
class _Topology:
    """A parsed spec (gsp_topo_t) with its vertex-transitivity and distances, computed once."""

    def __init__(self, spec, _sched=None):
        self.t = _capi.Topo()
        self._live = False
        self._dist = None
        self._vt = None
        if _sched is None:
            _check(_lib.gsp_topo_from_spec(byref(self.t), _enc(spec, "spec")))
        else:
            # The graph a schedule was planned on: its embedded copy for a file topology, so
            # that the file need not be reachable (gsp_sched_topology).
            check = _capi.SchedGraph()
            _check(_lib.gsp_sched_topology(byref(_sched), byref(self.t), byref(check)))
            if check.file_differs:
                warnings.warn(f"gossip: {_s(_sched.topology)} is not the graph this schedule was planned on (file "
                              f"{_s(check.file_hash)}, schedule {_s(check.hash)}): checked on the schedule's own graph",
                              stacklevel=3)
        self._live = True

    @property
    def n(self):
        return self.t.n

    def vt(self):
        if self._vt is None:
            v = c_int()
            _check(_lib.gsp_vertex_transitive(byref(self.t), byref(v)))
            self._vt = v.value
        return self._vt

    def vt_yes(self):
        return self.vt() in (_K["GSP_VT_YES_CAYLEY"], _K["GSP_VT_YES_NAUTY"])

    def distances(self):
        """Exact distances, one BFS when vertex-transitive (as `gossip plan` computes them)."""
        if self._dist is None:
            d = _capi.Distances()
            _check(_lib.gsp_distances(byref(self.t), self.vt_yes(), byref(d), None, None))
            self._dist = d
        return self._dist

    def connected_distances(self, what):
        d = self.distances()
        if not d.connected:
            _fail("GSP_ERR_NOTAPPLIC", f"{_s(self.t.spec)} is not {'strongly ' if self.t.directed else ''}connected: "
                  f"no {what} can reach every node")
        return d

    def names(self):
        if not self.t.names:
            return None
        return [_s(self.t.names[x]) for x in range(self.t.n)]

    def close(self):
        if self._dist is not None:
            _lib.gsp_distances_destroy(byref(self._dist))
            self._dist = None
        if self._live:
            self._live = False
            _lib.gsp_topo_destroy(byref(self.t))

    def __del__(self):
        if _lib is not None:
            self.close()


_VT_BY = {0: "not decided (too large for nauty)", 1: "Cayley graph", 2: "nauty: one orbit", 3: "degrees differ",
          4: "nauty: several orbits", 5: "distance counts differ between nodes"}
_SPECTRUM_HOW = {1: "abelian formula", 2: "product of factors", 3: "LAPACKE dsyevd"}
_INFO_SAMPLES = 64  # BFS from random nodes for the average distance of a large graph (as gossip info)


# Work of the throughput optimum (about N maximum flows over the arcs): gossip info --json
# computes it on plain graphs up to the first figure and on fabrics up to the second.
_OPTIMUM_WORK, _OPTIMUM_WORK_FABRIC = 200000000, 20000000000
_OPTIMUM_KEYS = ("allgather", "reduce_scatter", "allreduce", "broadcast")


def _node_name(t, x):
    return _s(t.names[x]) if t.names and t.names[x] else str(x)


def _cap_text(c, scale):
    """A capacity c / scale exactly, as gossip info writes it: a decimal when it has one (12.5),
    else a fraction (4/3)."""
    f = Fraction(c, scale if scale > 0 else 1)
    d = f.denominator
    for q in (2, 5):
        while d % q == 0:
            d //= q
    if d != 1 or f.denominator > 10 ** 12:
        return f"{f.numerator}/{f.denominator}"
    if f.denominator == 1:
        return str(f.numerator)
    dec = 0
    while 10 ** dec % f.denominator:
        dec += 1
    scaled = f.numerator * (10 ** dec // f.denominator)
    return f"{scaled // 10 ** dec}.{scaled % 10 ** dec:0{dec}d}"


def _fabric_keys(t, optimum, root_name):
    """The fabric keys of gossip info --json for topology t (the same rules: names, the work
    limits of the optimum, the root by name)."""
    n = t.n
    sw = t.is_switch
    out = {"compute_nodes": _lib.gsp_topo_compute_count(byref(t)),
           "switches": [_node_name(t, x) for x in range(n) if sw and sw[x]]}
    if t.nswitch:
        out["ranks"] = [_node_name(t, x) for x in range(n) if not sw[x]]
    if t.cap:
        caps = t.cap[:t.m]
        lo, hi = min(caps), max(caps)
        out["capacities"] = {"min": lo / t.cap_scale, "max": hi / t.cap_scale,
                             "min_exact": _cap_text(lo, t.cap_scale), "max_exact": _cap_text(hi, t.cap_scale)}
    else:
        out["capacities"] = None
    root = -1
    if root_name is not None:
        names = [_node_name(t, x) for x in range(n)]
        if root_name not in names:
            _fail("GSP_ERR_RANGE", f"topology: root {root_name} is not a vertex of {_s(t.spec)}")
        root = names.index(root_name)
        if sw and sw[root]:
            _fail("GSP_ERR_RANGE", f"topology: root {root_name} is a switch; a broadcast starts at a compute node")
    else:
        root = next((x for x in range(n) if not (sw and sw[x])), -1)
    fabric = _lib.gsp_topo_is_fabric(byref(t))
    work = out["compute_nodes"] * (t.m + n)
    if not optimum or work > (_OPTIMUM_WORK_FABRIC if fabric else _OPTIMUM_WORK):
        out["optimum"] = None
        return out
    opt = (_capi.Optimum * 4)()
    _check(_lib.gsp_optimum_all(byref(t), root, opt))
    try:
        res = {}
        for i, key in enumerate(_OPTIMUM_KEYS):
            o = opt[i]
            if not o.defined:
                res[key] = None
                continue
            e = {"algbw": str(o.num) if o.den == 1 else f"{o.num}/{o.den}", "algbw_value": _num(o.value),
                 "binding_cut": [_node_name(t, o.cut[j]) for j in range(o.cut_len)]}
            if o.cut2:
                e["binding_cut_reduce_scatter"] = [_node_name(t, o.cut2[j]) for j in range(o.cut2_len)]
            if key == "broadcast":
                e["root"] = _node_name(t, root)
            e["max_flows"] = o.flows
            res[key] = e
        out["optimum"] = res
    finally:
        for i in range(4):
            _lib.gsp_optimum_destroy(byref(opt[i]))
    return out


def topology(spec, spectrum=True, rotation=True, optimum=True, root=None):
    """The invariants of a topology as a dict, with the keys of `gossip info SPEC --json`:
    topology, nodes, names, arcs, directed, degree {min, max}, cayley, connected, diameter,
    average_distance (exact, or estimated on large graphs: _exact, _stderr), distance_counts,
    distinct_eigenvalues, spectrum, vertex_transitive, isomorphic_to, cayley_graph,
    complete_rotation, bounds and lower_bound (allgather, one packet per arc per round), seconds;
    and a fabric's keys (docs/fabrics.md): compute_nodes, switches, ranks (when it has switches),
    capacities {min, max, min_exact, max_exact} (None without capacities) and optimum (per
    collective: algbw as an exact fraction string, algbw_value, binding_cut, max_flows; None
    where `gossip info --json` computes none).
    spectrum, rotation, optimum [bool]: False skips the spectrum, the complete-rotation search or
    the throughput optimum. root [str]: the broadcast optimum's root by name (default: the first
    compute node)."""
    t0 = time.perf_counter()
    tp = _Topology(spec)
    t = tp.t
    dist = _capi.Distances()
    rot = _capi.Rotation()
    eig = POINTER(c_double)()
    iso = c_void_p()
    iso_map = POINTER(ctypes.c_int64)()
    have_rot = False
    try:
        vt = tp.vt()
        # A vertex-transitive file graph may be a known Cayley graph relabelled (nauty's forms).
        if not t.group and vt == _K["GSP_VT_YES_NAUTY"]:
            _check(_lib.gsp_cayley_match(byref(t), byref(iso), byref(iso_map)))
        iso_spec = _s(ctypes.string_at(iso.value)) if iso.value else None
        cayley = 1 if t.group else -1 if vt == _K["GSP_VT_YES_NAUTY"] else 0
        aut = c_double()
        if not t.group and vt == _K["GSP_VT_YES_NAUTY"] and not iso_spec:
            ans = c_int()
            _check(_lib.gsp_cayley_regular(byref(t), byref(ans), byref(aut), None))
            cayley = ans.value
        if iso_spec:
            cayley = 1
        opts = _capi.DistancesOpts(samples=_INFO_SAMPLES, seed=1)
        _check(_lib.gsp_distances_large(byref(t), tp.vt_yes(), byref(opts), byref(dist), None, None))
        spec_msg = None
        how = c_int()
        if spectrum:
            err = _lib.gsp_spectrum(byref(t), byref(eig), byref(how))
            if err == _K["GSP_ERR_NOMEM"]:
                _check(err)
            if err:
                spec_msg = _s(_lib.gsp_errmsg())
        if rotation and t.group:
            _check(_lib.gsp_rotation_find(byref(t), 0, byref(rot)))
            have_rot = True
        bounds = _capi.Bounds()
        model = _capi.Model(packets=1)
        # The round bounds count every vertex a rank with unit links: not a fabric's (as gossip info).
        have_bounds = dist.connected and not _lib.gsp_topo_is_fabric(byref(t))
        if have_bounds:
            _check(_lib.gsp_bounds_compute(byref(t), byref(dist), _K["GSP_COLL_ALLGATHER"], byref(model), -1,
                                           byref(bounds)))
        n = t.n
        out = {"topology": _s(t.spec), "nodes": n, "names": tp.names(), "arcs": t.m, "directed": bool(t.directed)}
        deg = {"min": t.dmin, "max": t.dmax}
        if t.directed:
            deg.update(in_min=t.in_dmin, in_max=t.in_dmax)
        out["degree"] = deg
        out["cayley"] = bool(t.group)
        if t.group:
            out["generators"] = t.ngens
            out["abelian"] = bool(_lib.gsp_group_is_abelian(t.group))
        out["connected"] = bool(dist.connected)
        out["diameter"] = dist.diameter if dist.connected else None
        out["diameter_method"] = _s(dist.diameter_how)
        out["average_distance"] = _num(dist.average_distance)
        out["average_distance_exact"] = bool(dist.average_exact)
        out["average_distance_stderr"] = _num(dist.average_stderr)
        out["average_distance_method"] = _s(dist.average_how)
        out["distance_counts"] = dist.counts.v[:dist.counts.len] if dist.counts.len else []
        out["distance_counts_scope"] = ("per_node" if dist.per_node else "sampled_sources" if dist.sampled
                                        else "all_pairs")
        out["distance_counts_sources"] = 1 if dist.per_node else dist.sampled if dist.sampled else n
        out["bfs_runs"] = dist.sources
        if eig:
            tol = _lib.gsp_spectrum_tolerance(eig, n)
            distinct = _lib.gsp_spectrum_distinct(eig, n, tol)
            out["distinct_eigenvalues"] = distinct
            sp = {"method": _SPECTRUM_HOW.get(how.value, "?"), "min": _num(eig[0]), "max": _num(eig[n - 1]),
                  "tolerance": _num(tol)}
            if distinct <= 64:
                # Distinct values with multiplicities, largest first (as gossip info).
                values, i = [], n - 1
                while i >= 0:
                    j = i
                    while j > 0 and eig[j] - eig[j - 1] <= tol:
                        j -= 1
                    values.append([_num(eig[i]), i - j + 1])
                    i = j - 1
                sp["values"] = values
            out["spectrum"] = sp
        else:
            out["distinct_eigenvalues"] = None
            out["spectrum"] = {"error": spec_msg} if spectrum else None
        out["vertex_transitive"] = None if vt == _K["GSP_VT_UNKNOWN"] else tp.vt_yes()
        out["vertex_transitive_by"] = _VT_BY.get(vt, "?")
        out["isomorphic_to"] = iso_spec
        out["cayley_graph"] = None if cayley < 0 else cayley == 1
        if have_rot:
            r = {"found": bool(rot.found)}
            if rot.found:
                r["order"] = rot.order[:rot.d]
                r["fixed_points"] = rot.fixed_points
            r["exhaustive"] = bool(rot.found or rot.exhaustive)
            r["orders_checked"] = rot.candidates
            out["complete_rotation"] = r
        else:
            out["complete_rotation"] = None
        out["bounds"] = {_s(bounds.b[i].name): bounds.b[i].value for i in range(bounds.count)}
        out["lower_bound"] = _lib.gsp_bounds_value(byref(bounds)) if have_bounds else None
        out["bounds_for"] = "allgather, 1 packet per arc per round, all ports, full duplex"
        out.update(_fabric_keys(t, optimum, root))
        out["seconds"] = time.perf_counter() - t0
        return out
    finally:
        _lib.gsp_free(eig)
        _lib.gsp_free(iso)
        _lib.gsp_free(iso_map)
        _lib.gsp_rotation_destroy(byref(rot))
        _lib.gsp_distances_destroy(byref(dist))
        tp.close()


def _num(x):
    """A double as the JSON writer gives it: null when not finite."""
    return x if math.isfinite(x) else None


# ---- schedules ----
def _model(packets, ports, duplex):
    m = _capi.Model()
    if packets == "inf" or packets == math.inf:
        m.packets = _K["GSP_PACKETS_INF"]
    elif isinstance(packets, int) and not isinstance(packets, bool) and packets >= 1:
        m.packets = packets
    else:
        raise ValueError(f"gossip: packets must be an integer >= 1 or 'inf', not {packets!r}")
    if str(ports) not in ("all", "1"):
        raise ValueError(f"gossip: ports must be 'all' or 1, not {ports!r}")
    if duplex not in ("full", "half"):
        raise ValueError(f"gossip: duplex must be 'full' or 'half', not {duplex!r}")
    m.one_port = str(ports) == "1"
    m.half_duplex = duplex == "half"
    return m


def _model_dict(m):
    return {"packets": "inf" if m.packets == _K["GSP_PACKETS_INF"] else max(m.packets, 1),
            "ports": "1" if m.one_port else "all", "duplex": "half" if m.half_duplex else "full"}


_OPTIMALITY = {0: "open", 1: "bound met", 2: "proved", 3: "proved among symmetric schedules"}


class Schedule:
    """A schedule in the library's memory (gsp_sched_t): made by plan(), load(), loads() or
    from_dict(). Attributes: collective, topology (its spec), nodes, model (dict), root (broadcast,
    else None), method, rounds, transfers, symmetric, form; plan (dict: what plan() found — lower
    bound, bounds, optimality, the methods tried — or None for a schedule read from a file).
    Methods: to_dict(), sends(), save(path), verify(), export(format, path), close(). Freed with
    the object, or at once by close() or a `with` block."""

    def __init__(self, _plan=None, _sched=None, _topo=None, _info=None):
        self._plan, self._sched, self._topo = _plan, _sched, _topo
        self.plan = _info

    # The schedule proper: inside the plan that owns it, or on its own.
    def _sched_ref(self):
        if self._plan is not None:
            return self._plan.sched
        if self._sched is None:
            raise ValueError("gossip: the schedule is closed")
        return self._sched

    def _topology(self):
        if self._topo is None:
            self._topo = _Topology(None, _sched=self._sched_ref())
        return self._topo

    @property
    def collective(self):
        return _coll_name(self._sched_ref().coll)

    @property
    def topology(self):
        return _s(self._sched_ref().topology)

    @property
    def nodes(self):
        return self._sched_ref().nodes

    @property
    def model(self):
        return _model_dict(self._sched_ref().model)

    @property
    def root(self):
        s = self._sched_ref()
        return s.root if s.coll == _K["GSP_COLL_BROADCAST"] else None

    @property
    def method(self):
        return _s(self._sched_ref().method)

    @property
    def rounds(self):
        return self._sched_ref().nrounds

    @property
    def transfers(self):
        """Transfers of all rounds (a symmetric schedule: its entries times the nodes)."""
        return _lib.gsp_sched_transfers(byref(self._sched_ref()))

    @property
    def symmetric(self):
        """Stored in the compact symmetric form of a Cayley graph (docs/schedule-format.md)."""
        return bool(self._sched_ref().symmetric)

    @property
    def form(self):
        """allreduce and reduce-scatter: "blocks" or "registers"; None otherwise."""
        s = self._sched_ref()
        if s.coll not in (_K["GSP_COLL_ALLREDUCE"], _K["GSP_COLL_REDUCE_SCATTER"]):
            return None
        return "blocks" if s.blocks else "registers"

    def __repr__(self):
        if self._plan is None and self._sched is None:
            return "<gossip.Schedule (closed)>"
        return (f"<gossip.Schedule {self.collective} on {self.topology}: {self.method}, {self.rounds} rounds, "
                f"{self.transfers} transfers>")

    def _json(self, expand=False):
        s = self._sched_ref()
        if expand and s.symmetric:
            out = _capi.Sched()
            try:
                _check(_lib.gsp_sched_expand(byref(s), byref(self._topology().t), byref(out)))
                out.names, out.graph = s.names, s.graph
                return _write_text(lambda f: _lib.gsp_sched_write(byref(out), f))
            finally:
                _lib.gsp_sched_destroy(byref(out))
        return _write_text(lambda f: _lib.gsp_sched_write(byref(s), f))

    def to_dict(self, expand=False):
        """The schedule file (docs/schedule-format.md, version 1) as plain dicts and lists:
        format, version, collective, topology, nodes, model, method, and "rounds": [{"send":
        [[u, v, x], ...]}, ...] (allreduce: also "combine", "final", "result"), or the compact
        "symmetric" entries of a Cayley graph. expand [bool]: a symmetric schedule in explicit
        rounds instead (N·entries transfers)."""
        return json.loads(self._json(expand))

    def to_json(self, expand=False):
        """The schedule file's text, as save() writes it."""
        return self._json(expand)

    def sends(self):
        """The transfers by round, read from the library's arrays: a list of rounds, each a list
        of (u, v, x) tuples (x: the packet's origin, a register, or a block). A symmetric
        schedule is expanded on its topology first."""
        s = self._sched_ref()
        exp = None
        try:
            if s.symmetric:
                exp = _capi.Sched()
                _check(_lib.gsp_sched_expand(byref(s), byref(self._topology().t), byref(exp)))
                s = exp
            off = s.send_off.v
            out = []
            for t in range(s.nrounds):
                out.append([(x.u, x.v, x.x) for x in s.sends[off[t]:off[t + 1]]])
            return out
        finally:
            if exp is not None:
                _lib.gsp_sched_destroy(byref(exp))

    def save(self, path):
        """Writes the schedule file with the library's writer (gsp_sched_save): "-" is standard
        output; a regular file is replaced whole or not at all."""
        _check(_lib.gsp_sched_save(byref(self._sched_ref()), _enc(path, "path")))

    def _approximate(self):
        s = self._sched_ref()
        name = (_s(s.method) or "").split(":")[0]
        m = _lib.gsp_method_find(name.encode(), s.coll)
        return bool(m) and bool(m.contents.approximate)

    def _report(self, seed=1, flags=0):
        rep = _capi.Report()
        _check(_lib.gsp_sched_verify_flags(byref(self._sched_ref()), byref(self._topology().t), seed, flags, byref(rep)))
        return rep

    def verify(self, seed=1, approximate=None, expand=True):
        """Simulates the schedule on its topology and checks every rule of its model
        (gsp_sched_verify). Returns a dict with the keys of `gossip verify --json`: ok,
        collective, topology, nodes, rule, round, transfer, message (null when ok), rounds,
        transfers, duplicates, sent {min, max}, received {min, max}, peak_arc_load; for allreduce
        and reduce-scatter form, exact_forms (and max_rel_error in register form); for a
        symmetric schedule checked_by_expansion. A wrong schedule is a result (ok False), not an
        error. seed: the random inputs of the numeric allreduce check; approximate [bool or None:
        the method's registry entry says]: check an estimate of the sum (rel_variance) instead of
        the exact sum; expand [bool]: also check a symmetric schedule by expansion."""
        s = self._sched_ref()
        if approximate is None:
            approximate = self._approximate()
        flags = (0 if expand else _K["GSP_VERIFY_NO_EXPAND"]) | (_K["GSP_VERIFY_APPROX"] if approximate else 0)
        rep = self._report(seed, flags)
        bad = not rep.ok
        out = {"ok": bool(rep.ok), "collective": _coll_name(s.coll), "topology": _s(s.topology), "nodes": s.nodes,
               "rule": _s(_lib.gsp_rule_name(rep.rule)) if bad else None,
               "round": rep.round if bad and rep.round >= 0 else None,
               "transfer": rep.transfer if bad and rep.transfer >= 0 else None,
               "message": _s(rep.message) if bad else None, "rounds": rep.rounds, "transfers": rep.transfers,
               "duplicates": rep.duplicates, "sent": {"min": rep.sent_min, "max": rep.sent_max},
               "received": {"min": rep.recv_min, "max": rep.recv_max}, "peak_arc_load": rep.peak_arc_load}
        if s.coll in (_K["GSP_COLL_ALLREDUCE"], _K["GSP_COLL_REDUCE_SCATTER"]):
            out["form"] = "blocks" if s.blocks else "registers"
            if not s.blocks:
                out["max_rel_error"] = _num(rep.max_rel_error)
            out["exact_forms"] = bool(rep.exact_forms)
        if approximate:
            out["rel_variance"] = _num(rep.rel_variance)
        if s.symmetric:
            out["checked_by_expansion"] = bool(rep.by_expansion)
        return out

    def export(self, format, path=None, **options):
        """export(self, format, path, **options): see gossip.export."""
        return export(self, format, path, **options)

    def close(self):
        """Frees the schedule (and its topology) now; later use raises ValueError."""
        if self._plan is not None:
            _lib.gsp_plan_destroy(byref(self._plan))
            self._plan = None
        if self._sched is not None:
            _lib.gsp_sched_destroy(byref(self._sched))
            self._sched = None
        if self._topo is not None:
            self._topo.close()
            self._topo = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if _lib is not None:
            self.close()


def _plan_info(p, coll, pin, tp, seconds):
    """What gsp_plan found, with the keys of `gossip plan --json` (and "summary": what auto
    tried, in the words of the command's text output)."""
    m = p.method.contents
    bind = p.bounds.b[p.bounds.binding]
    info = {"collective": _coll_name(coll), "topology": _s(tp.t.spec), "nodes": tp.n, "model": _model_dict(pin.model)}
    if coll == _K["GSP_COLL_BROADCAST"]:
        info["root"] = p.sched.root
    tried = []
    for i in range(p.ntried):
        tr = p.attempts[i]
        e = {"method": _s(tr.method.contents.name)}
        if tr.kind == _K["GSP_TRIED_BUILT"]:
            e["rounds"] = tr.rounds
        elif tr.kind == _K["GSP_TRIED_SKIPPED"]:
            e["skipped"] = _s(tr.why)
            if tr.rounds >= 0:
                e["at_least"] = tr.rounds
        else:
            e["not_applicable"] = _s(tr.why)
        tried.append(e)
    info.update({"method": _s(m.name), "tried": tried, "rounds": p.sched.nrounds, "lower_bound": p.lower_bound,
            "bounds": {_s(p.bounds.b[i].name): p.bounds.b[i].value for i in range(p.bounds.count)},
            "binding_bound": _s(bind.name), "binding_source": _s(bind.source), "optimal": bool(p.optimal),
            "optimality": "n/a" if m.approximate else _OPTIMALITY.get(p.optimality, "open")})
    if p.proof:
        info["proof"] = _s(p.proof)
    info.update(gap=p.sched.nrounds - p.lower_bound, verified=bool(p.report.ok), symmetric=bool(p.sched.symmetric),
                transfers=p.report.transfers, duplicates=p.report.duplicates, peak_arc_load=p.report.peak_arc_load)
    if coll in (_K["GSP_COLL_ALLREDUCE"], _K["GSP_COLL_REDUCE_SCATTER"]):
        info["form"] = "blocks" if p.sched.blocks else "registers"
        info["exact_forms"] = bool(p.report.exact_forms)
    if coll == _K["GSP_COLL_ALLREDUCE"]:
        diameter = tp.distances().diameter
        info.update(max_rel_error=_num(p.report.max_rel_error), diameter=diameter,
                    sum_optimal=not m.approximate and p.sched.nrounds == diameter, approximate=bool(m.approximate))
        if m.approximate:
            info["rel_variance"] = _num(p.report.rel_variance)
            info["rel_variance_bound"] = _num(m.variance_bound(byref(pin)))
    if p.tried:
        info["summary"] = _s(p.tried)
    info["seconds"] = seconds
    return info


def plan(collective, spec, *, method="auto", packets=1, ports="all", duplex="full", root=None, seed=1, degree=0,
         time_limit=0.0, prove=False):
    """Plans `collective` ("broadcast", "allgather", "allreduce", "reduce-scatter") on the
    topology `spec` and verifies the schedule, as `gossip plan` does; returns a Schedule whose
    .plan dict has the keys of `gossip plan --json` (method, tried, rounds, lower_bound, bounds,
    binding_bound, optimal, optimality, verified, transfers, ...).
    method: a name from methods(), or "auto" (the fewest rounds); packets [int >= 1 or "inf"],
    ports ["all" or 1], duplex ["full" or "half"]: the round model; root: the broadcast root
    (default 0); seed: randomized methods; degree: the approx method's rounds; time_limit:
    seconds for the whole SAT search (method "sat" and prove together; 0: 60), as gossip plan
    --time-limit; prove [bool]: allgather, settle optimality with the SAT solver (gsp_plan_prove).
    Raises GossipError (a malformed spec, a method that does not apply — GSP_ERR_NOTAPPLIC with
    why — a graph that is not connected, a root outside it) and ValueError (a bad option)."""
    t0 = time.perf_counter()
    coll = _coll(collective)
    if coll == _K["GSP_COLL_REDUCE"]:
        raise ValueError("gossip: reduce has no schedule of its own; runtime_plan('reduce', ...) gives the "
                         "runtime's algorithms")
    model = _model(packets, ports, duplex)
    if prove and coll != _K["GSP_COLL_ALLGATHER"]:
        raise ValueError("gossip: prove applies to allgather (SAT proofs of allgather schedules)")
    if not isinstance(method, str):
        raise TypeError("gossip: method must be a string")
    tp = _Topology(spec)
    try:
        if coll == _K["GSP_COLL_BROADCAST"] and root is None:
            root = 0
        if root is not None and not 0 <= root < tp.n:
            _fail("GSP_ERR_RANGE", f"root {root} is not a node of {spec} (0..{tp.n - 1})")
        dist = tp.connected_distances("schedule")
        pin = _capi.PlanIn(topo=ctypes.pointer(tp.t), dist=ctypes.pointer(dist), model=model,
                           root=-1 if root is None else root, seed=seed, degree=degree, time_limit=time_limit)
        p = _capi.Plan()
        limit, sat_start = time_limit if time_limit > 0 else 60.0, time.perf_counter()
        _check(_lib.gsp_plan(byref(pin), coll, method.encode(), byref(p)))
        sched = Schedule(_plan=p, _topo=tp)
        tp = None  # the schedule owns it now
        if prove:
            # One limit for the whole search: what method "sat" used is not given again.
            left = limit - (time.perf_counter() - sat_start) if method == "sat" else limit
            _check(_lib.gsp_plan_prove(byref(pin), byref(p), max(left, 1e-3)))
        p.sched.names = sched._topo.t.names  # host names travel with the schedule, as gossip plan -o writes
        p.sched.graph = ctypes.pointer(sched._topo.t)  # and a file's graph (borrowed: the schedule keeps _topo)
        sched.plan = _plan_info(p, coll, pin, sched._topo, time.perf_counter() - t0)
        return sched
    finally:
        if tp is not None:
            tp.close()


def _own(read):
    s = _capi.Sched()
    _check(read(s))
    return Schedule(_sched=s)


def load(path, topology=None):
    """Reads a schedule file (docs/schedule-format.md; "-": standard input). With topology (a
    spec), reads msccl-tools' algorithm JSON instead (gossip export --format msccl-json, or
    msccl-tools' own) as an allgather on that topology. Raises GossipError for a file that
    cannot be read or breaks the format (the message names the round, the transfer and the
    rule); a schedule that reads but is wrong is for verify()."""
    p = _enc(path, "path")
    if topology is not None:
        return _own(lambda s: _lib.gsp_import_msccl_json(byref(s), p, _enc(topology, "topology")))
    return _own(lambda s: _lib.gsp_sched_load(byref(s), p))


def loads(text, name="(string)"):
    """A schedule from the text of a schedule file."""
    s = _capi.Sched()
    _read_text(text, lambda f: _lib.gsp_sched_read(byref(s), f, _enc(name, "name")))
    return Schedule(_sched=s)


def from_dict(d):
    """A schedule from the dict of a schedule file (to_dict()'s inverse; the library's reader
    checks it as it reads a file)."""
    return loads(json.dumps(d), "(dict)")


# ---- export ----
EXPORT_FORMATS = ("msccl-json", "msccl-xml", "svg", "gossip")


def export(schedule, format, path=None, *, min_bytes=0, max_bytes=0, name=None):
    """Writes `schedule` (a Schedule) in `format`:
      "msccl-json"  msccl-tools' algorithm JSON (allgather; gossip.load(path, topology=...) and
                    `gossip verify FILE --topology SPEC` read it back), or of a plan on a
                    fabric (allgather, reduce-scatter, allreduce, broadcast)
      "msccl-xml"   MSCCL's <algo> XML (allgather, broadcast, reduce-scatter, block allreduce)
      "svg"         a picture: the broadcast tree of node 0's packet by round (gsp_draw_svg)
      "gossip"      the schedule file itself, as save() writes it
    The MSCCL formats verify the schedule first (as `gossip export`) and refuse a wrong one.
    min_bytes, max_bytes, name: the XML's message sizes and the algorithm's name.
    path: a file (replaced whole or not at all), "-" for standard output, or None to return
    the text."""
    if not isinstance(schedule, Schedule):
        raise TypeError("gossip: export takes a Schedule (from plan, load, loads or from_dict)")
    if format not in EXPORT_FORMATS:
        raise ValueError(f"gossip: unknown export format {format!r} (one of {', '.join(EXPORT_FORMATS)})")
    s = schedule._sched_ref()
    if format == "gossip":
        text = schedule.to_json()
    elif format == "svg":
        t = schedule._topology().t
        text = _write_text(lambda f: _lib.gsp_draw_svg(byref(s), byref(t), f))
    else:
        if max_bytes and max_bytes <= min_bytes:
            raise ValueError("gossip: max_bytes must be above min_bytes")
        rep = schedule._report(1, _K["GSP_VERIFY_NO_EXPAND"])
        if not rep.ok:
            _fail("GSP_ERR_INVAL", f"export: the schedule is incorrect (rule {_s(_lib.gsp_rule_name(rep.rule))}: "
                  f"{_s(rep.message)})")
        t = schedule._topology().t
        o = _capi.ExportOpts(min_bytes=min_bytes, max_bytes=max_bytes, name=None if name is None else name.encode())
        fn = _lib.gsp_export_msccl_xml if format == "msccl-xml" else _lib.gsp_export_msccl_json
        text = _write_text(lambda f: fn(byref(s), byref(t), byref(o), f))
    if path is None:
        return text
    _write_file(path, text)
    return None


def _write_file(path, text):
    path = os.fspath(path)
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    if os.path.exists(path) and not os.path.isfile(path):  # a device or a FIFO: in place
        with open(path, "w") as f:
            f.write(text)
        return
    real = os.path.realpath(path)
    fd, tmp = tempfile.mkstemp(prefix=".gossip.", dir=os.path.dirname(real) or ".")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


# ---- the runtime's algorithms and the cost model ----
def runtime_plan(collective, spec, nbytes, *, method=None, algorithm=None, root=0, tuning=None, shared_memory=False,
                 alpha=None, beta=None, gamma=None, hop=None, overhead=None, segment=None):
    """The exact algorithms the MPI runtime can run for `collective` (also "reduce") on `spec`
    for `nbytes` bytes (allgather: one rank's block; the others: the vector), with the cost
    model's predictions, as `gossip plan COLLECTIVE SPEC --bytes B --json`: a dict with
    collective, topology, nodes, bytes, cost (the model used), choice (the runtime's pick),
    forced (whether `algorithm` forced it) and candidates [{algorithm, built_from, rounds,
    transfers, busiest_link_bytes, predicted_seconds, built, chosen}]; a candidate not built
    holds a lower bound. method: the construction the algorithms are built from (default auto);
    algorithm: a runtime algorithm to force, as `--algorithm` (None or "auto": the cost
    model's choice); root: broadcast and
    reduce. The cost model: the defaults (or shared_memory's preset), then the tuning file, then
    alpha, beta (seconds, or a table by size as a string "0:3e-10,65536:1e-10"), gamma, hop,
    overhead (seconds) and segment (bytes)."""
    coll = _coll(collective)
    if not isinstance(nbytes, int) or not 0 <= nbytes <= 1 << 40:
        raise ValueError("gossip: nbytes must be an integer in 0..2^40")
    cost = _lib.gsp_cost_shared_memory() if shared_memory else _lib.gsp_cost_default()
    if tuning is not None:
        _check(_lib.gsp_cost_load(_enc(tuning, "tuning"), byref(cost), None))
    if segment is not None:
        if not isinstance(segment, int) or segment < 0:
            raise ValueError("gossip: segment must be a number of bytes >= 0")
        cost.segment = segment
    for key, val in (("alpha", alpha), ("beta", beta), ("gamma", gamma), ("hop", hop), ("overhead", overhead)):
        if val is None:
            continue
        text = (val if isinstance(val, str) else repr(float(val))).encode()
        opt = ("--" + key).encode()
        if key == "alpha":
            _check(_lib.gsp_cost_parse_alpha(opt, text, byref(cost)))
        elif key == "beta":
            _check(_lib.gsp_cost_parse_beta(opt, text, byref(cost)))
        else:
            d = c_double()
            _check(_lib.gsp_cost_parse(opt, text, byref(d)))
            setattr(cost, key, d.value)
    tp = _Topology(spec)
    al = _capi.RtAlgos()
    fab = None
    try:
        if _lib.gsp_topo_is_fabric(byref(tp.t)):
            # On a fabric the ranks are its compute nodes, which all talk through it: the
            # runtime's phases are on their complete graph (as `gossip plan --bytes`).
            fab, tp = tp, _Topology(f"complete:{_lib.gsp_topo_compute_count(byref(tp.t))}")
            if method not in (None, "auto"):
                _fail("GSP_ERR_INVAL", "--method does not apply on a fabric (its runtime runs the trees at the throughput optimum)")
        if not 0 <= root < tp.n:
            _fail("GSP_ERR_RANGE", f"root {root} is not a {'rank' if fab else 'node'} of {spec} (0..{tp.n - 1})")
        dist = tp.connected_distances("collective")
        if fab is not None:
            _check(_lib.gsp_rt_fabric_algos(byref(fab.t), byref(tp.t), byref(dist), coll, root, byref(al)))
        else:
            _check(_lib.gsp_rt_algos(byref(tp.t), byref(dist), coll, root, None if method is None else method.encode(),
                                     byref(al)))
        choice = c_int()
        forced = algorithm is not None and algorithm != "auto"
        if forced:
            choice.value = _lib.gsp_rt_find(byref(al), algorithm.encode())
            removed = ctypes.c_bool(False)
            if choice.value >= 0 and al.v[choice.value].pending:
                _check(_lib.gsp_rt_realize(byref(al), choice.value, byref(removed)))
            if choice.value < 0 or removed.value:
                _fail("GSP_ERR_NOTAPPLIC", f"algorithm {algorithm} does not apply to {_coll_name(coll)} on {spec}")
        else:
            _check(_lib.gsp_rt_choose_build(byref(al), tp.n, nbytes, byref(cost), None, None, byref(choice)))
        c = {"alpha": cost.alpha}
        if cost.nalpha:
            c["alpha_by_size"] = [[cost.alpha_from[i], cost.alpha_val[i]] for i in range(cost.nalpha)]
        c["beta"] = cost.beta
        if cost.nbeta:
            c["beta_by_size"] = [[cost.beta_from[i], cost.beta_val[i]] for i in range(cost.nbeta)]
        c.update(gamma=cost.gamma, hop=cost.hop, overhead=cost.overhead, segment=cost.segment,
                 shared_memory=bool(cost.shared))
        cands = []
        for i in range(al.n):
            a = al.v[i]
            p = _capi.RtPred()
            _lib.gsp_rt_predict(ctypes.pointer(a), tp.n, nbytes, byref(cost), byref(p))
            cands.append({"algorithm": _s(a.name), "built_from": _s(a.built_from), "rounds": p.rounds,
                          "transfers": p.transfers, "busiest_link_bytes": p.busiest_bytes,
                          "predicted_seconds": p.seconds, "built": not a.pending, "chosen": i == choice.value})
        return {"collective": _coll_name(coll), "topology": _s((fab or tp).t.spec), "nodes": tp.n, "bytes": nbytes, "cost": c,
                "choice": _s(al.v[choice.value].name), "forced": forced, "candidates": cands}
    finally:
        _lib.gsp_rt_algos_destroy(byref(al))
        tp.close()
        if fab is not None:
            fab.close()
