# SPDX-License-Identifier: GPL-3.0-or-later
"""_capi.py — the C API of libgossip as ctypes sees it: the structures the Python module reads
and the prototypes of the functions it calls, mirrored from include/gossip/*.h.

ctypes cannot read a header, so every structure here repeats its C declaration field for field.
tests/python/test_gossip.py compiles a probe from these very tables (offsetof and sizeof of
every field, the value of every constant) and fails when one of them no longer matches the
headers: change a struct in C, and that test names the field to change here."""

import ctypes
import ctypes.util
import os

from ctypes import (CFUNCTYPE, POINTER, Structure, c_bool, c_char, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint,
                    c_uint64, c_void_p)

from . import _config

i64 = c_int64
p_i64 = POINTER(c_int64)
fn_ptr = c_void_p  # function pointers the module never calls (methods' callbacks, phase rules)

# ---- constants (checked against the headers by the layout test) ----
CONSTANTS = {
    "GSP_PACKETS_INF": -1,
    "GSP_MAX_BOUNDS": 16,
    "GSP_MAX_TRIED": 24,
    "GSP_COST_MAX_BETA": 16,
    "GSP_VERIFY_NO_EXPAND": 1,
    "GSP_VERIFY_APPROX": 2,
    "GSP_COLL_BROADCAST": 1,
    "GSP_COLL_ALLGATHER": 2,
    "GSP_COLL_ALLREDUCE": 3,
    "GSP_COLL_REDUCE_SCATTER": 4,
    "GSP_COLL_REDUCE": 5,
    "GSP_ERR_OK": 0,
    "GSP_ERR_NOMEM": 1,
    "GSP_ERR_INVAL": 2,
    "GSP_ERR_RANGE": 4,
    "GSP_ERR_NOTAPPLIC": 8,
    "GSP_VT_UNKNOWN": 0,
    "GSP_VT_YES_CAYLEY": 1,
    "GSP_VT_YES_NAUTY": 2,
    "GSP_VT_NO_DEGREE": 3,
    "GSP_VT_NO_NAUTY": 4,
    "GSP_VT_NO_DISTANCES": 5,
    "GSP_SPECTRUM_ABELIAN": 1,
    "GSP_SPECTRUM_PRODUCT": 2,
    "GSP_SPECTRUM_DENSE": 3,
    "GSP_OPT_OPEN": 0,
    "GSP_OPT_BOUND": 1,
    "GSP_OPT_PROVED": 2,
    "GSP_OPT_PROVED_SYMMETRIC": 3,
    "GSP_TRIED_BUILT": 1,
    "GSP_TRIED_SKIPPED": 2,
    "GSP_TRIED_NOT_APPLICABLE": 3,
    "GSP_TRIED_GAVE_UP": 4,
}
globals().update(CONSTANTS)


# ---- structures: the same fields, in the same order, as the headers ----
class Vec(Structure):  # core.h
    _fields_ = [("v", p_i64), ("len", i64), ("cap", i64)]


class Topo(Structure):  # topo.h
    _fields_ = [("n", i64), ("m", i64), ("off", p_i64), ("adj", p_i64), ("dmin", i64), ("dmax", i64),
                ("in_dmin", i64), ("in_dmax", i64), ("directed", c_bool), ("spec", c_char_p),
                ("group", c_void_p), ("gens", p_i64), ("ngens", c_int), ("fa", c_void_p), ("fb", c_void_p),
                ("names", POINTER(c_char_p)), ("cap", p_i64), ("cap_scale", i64), ("is_switch", POINTER(ctypes.c_uint8)),
                ("nswitch", i64)]


class Distances(Structure):  # analysis.h
    _fields_ = [("connected", c_bool), ("diameter", i64), ("average_distance", c_double), ("per_node", c_bool),
                ("counts", Vec), ("sources", i64), ("average_exact", c_bool), ("average_stderr", c_double),
                ("sampled", i64), ("diameter_how", c_char_p), ("average_how", c_char_p)]


class DistancesOpts(Structure):  # analysis.h
    _fields_ = [("max_work", i64), ("samples", i64), ("seed", c_uint64)]


class Rotation(Structure):  # analysis.h
    _fields_ = [("found", c_bool), ("exhaustive", c_bool), ("d", c_int), ("order", POINTER(c_int)),
                ("fixed_points", i64), ("omega", p_i64), ("candidates", i64)]


class Bound(Structure):  # bounds.h
    _fields_ = [("name", c_char_p), ("source", c_char_p), ("value", i64)]


class Bounds(Structure):  # bounds.h
    _fields_ = [("b", Bound * CONSTANTS["GSP_MAX_BOUNDS"]), ("count", c_int), ("binding", c_int)]


class Model(Structure):  # model.h
    _fields_ = [("packets", i64), ("one_port", c_bool), ("half_duplex", c_bool)]


class Send(Structure):  # sched.h
    _fields_ = [("u", i64), ("v", i64), ("x", i64)]


class Term(Structure):  # sched.h
    _fields_ = [("r", i64), ("c", c_double)]


class Combine(Structure):  # sched.h
    _fields_ = [("v", i64), ("first", i64), ("count", i64)]


class SymSend(Structure):  # sched.h
    _fields_ = [("t", i64), ("i", i64), ("g", i64)]


class Sched(Structure):  # sched.h
    _fields_ = [("coll", c_int), ("topology", c_char_p), ("nodes", i64), ("model", Model), ("root", i64),
                ("method", c_char_p), ("nrounds", i64), ("send_off", Vec), ("sends", POINTER(Send)), ("nsends", i64),
                ("cap_sends", i64), ("comb_off", Vec), ("combines", POINTER(Combine)), ("ncombines", i64),
                ("cap_combines", i64), ("terms", POINTER(Term)), ("nterms", i64), ("cap_terms", i64),
                ("result", p_i64), ("blocks", c_bool), ("reduce_rounds", i64), ("symmetric", c_bool),
                ("sym", POINTER(SymSend)), ("nsym", i64), ("cap_sym", i64), ("names", POINTER(c_char_p)),
                ("graph", POINTER(Topo)), ("graph_owned", c_bool), ("chunks", i64), ("cap_factor", i64)]


class SchedGraph(Structure):  # sched.h
    _fields_ = [("embedded", c_bool), ("file_read", c_bool), ("file_differs", c_bool), ("hash", c_char * 25),
                ("file_hash", c_char * 25)]


class Report(Structure):  # sched.h
    _fields_ = [("ok", c_bool), ("rule", c_int), ("round", i64), ("transfer", i64), ("message", c_char * 256),
                ("rounds", i64), ("transfers", i64), ("duplicates", i64), ("sent_min", i64), ("sent_max", i64),
                ("recv_min", i64), ("recv_max", i64), ("peak_arc_load", i64), ("max_rel_error", c_double),
                ("rel_variance", c_double), ("exact_forms", c_bool), ("by_expansion", c_bool)]


class ExportOpts(Structure):  # sched.h
    _fields_ = [("min_bytes", i64), ("max_bytes", i64), ("name", c_char_p)]


class PlanIn(Structure):  # algo.h
    _fields_ = [("topo", POINTER(Topo)), ("dist", POINTER(Distances)), ("model", Model), ("root", i64),
                ("seed", c_uint64), ("progress", fn_ptr), ("progress_ctx", c_void_p), ("degree", i64),
                ("time_limit", c_double)]


class MethodNeeds(Structure):  # algo.h
    _fields_ = [("packets", c_int), ("ports", c_int), ("full_duplex", c_bool), ("undirected", c_bool), ("cayley", c_bool),
                ("min_nodes", i64), ("max_nodes", i64), ("packets_why", c_char_p), ("ports_why", c_char_p), ("graph_why", c_char_p), ("size_why", c_char_p)]


class Method(Structure):  # algo.h; variance_bound is called (approximate methods' proven bound)
    _fields_ = [("name", c_char_p), ("coll", c_int), ("where", c_char_p), ("source", c_char_p), ("applies", fn_ptr),
                ("rounds", fn_ptr), ("build", fn_ptr), ("approximate", c_bool),
                ("variance_bound", CFUNCTYPE(c_double, POINTER(PlanIn))), ("on_request", c_bool),
                ("least_rounds", fn_ptr), ("needs", MethodNeeds)]


class Tried(Structure):  # algo.h
    _fields_ = [("method", POINTER(Method)), ("kind", c_int), ("rounds", i64), ("why", c_char * 192)]


class Plan(Structure):  # algo.h
    _fields_ = [("method", POINTER(Method)), ("sched", Sched), ("report", Report), ("bounds", Bounds),
                ("lower_bound", i64), ("optimal", c_bool), ("optimality", c_int), ("proof", c_char * 192),
                ("tried", c_char * 1024), ("ntried", c_int), ("attempts", Tried * CONSTANTS["GSP_MAX_TRIED"])]


_NB = CONSTANTS["GSP_COST_MAX_BETA"]


class Cost(Structure):  # runtime.h
    _fields_ = [("alpha", c_double), ("beta", c_double), ("gamma", c_double), ("segment", i64), ("hop", c_double),
                ("overhead", c_double), ("nbeta", c_int), ("beta_from", i64 * _NB), ("beta_val", c_double * _NB),
                ("shared", c_bool), ("nalpha", c_int), ("alpha_from", i64 * _NB), ("alpha_val", c_double * _NB)]


class RtPhase(Structure):  # runtime.h: read only through RtAlgo's size and by the C functions
    _fields_ = [("kind", c_int), ("layout", c_int), ("source", c_int), ("reversed", c_bool), ("nrounds", i64),
                ("ntransfers", i64), ("sched", Sched), ("tparent", p_i64), ("tround", p_i64), ("tchild_off", p_i64),
                ("tchild", p_i64), ("troot", i64), ("rule", fn_ptr), ("param", i64 * 8), ("maxblk", p_i64),
                ("maxred", p_i64), ("maxmsg", p_i64), ("moved", p_i64), ("busiest", i64), ("nblocks", i64),
                ("parts", i64), ("pipelined", c_bool), ("exchange", c_bool), ("routed", c_bool), ("hops", i64),
                ("nlinks", i64), ("link_hist", p_i64), ("levels", i64), ("window_of", fn_ptr), ("twin", p_i64), ("turn_of", fn_ptr),
                ("waist_chain", c_bool)]


class RtAlgo(Structure):  # runtime.h
    _fields_ = [("name", c_char * 32), ("built_from", c_char * 128), ("coll", c_int), ("root", i64),
                ("local_reduce", c_bool), ("pending", c_bool), ("nphases", c_int), ("phase", RtPhase * 4)]


class RtAlgos(Structure):  # runtime.h
    _fields_ = [("v", POINTER(RtAlgo)), ("n", c_int), ("topo", POINTER(Topo)), ("dist", POINTER(Distances)),
                ("method", c_char * 64), ("ag1", Sched), ("have_ag1", c_bool), ("tried_ag1", c_bool),
                ("ag1_from", c_char * 32)]


class RtPred(Structure):  # runtime.h
    _fields_ = [("rounds", i64), ("transfers", i64), ("busiest_bytes", c_double), ("seconds", c_double)]


class RtInfo(Structure):  # runtime.h
    _fields_ = [("name", c_char_p), ("collectives", c_uint), ("where", c_char_p), ("rounds", c_char_p),
                ("what", c_char_p)]


class Optimum(Structure):  # fabric.h
    _fields_ = [("collective", c_int), ("defined", c_bool), ("num", i64), ("den", i64), ("value", c_double),
                ("cut", p_i64), ("cut_len", i64), ("cut2", p_i64), ("cut2_len", i64), ("root", i64), ("flows", i64)]


# The C name of each structure, for the layout test.
STRUCTS = {
    "gsp_vec_t": Vec, "gsp_topo_t": Topo, "gsp_distances_t": Distances, "gsp_distances_opts_t": DistancesOpts,
    "gsp_rotation_t": Rotation, "gsp_bound_t": Bound, "gsp_bounds_t": Bounds, "gsp_model_t": Model,
    "gsp_send_t": Send, "gsp_term_t": Term, "gsp_combine_t": Combine, "gsp_symsend_t": SymSend,
    "gsp_sched_t": Sched, "gsp_sched_graph_t": SchedGraph, "gsp_report_t": Report, "gsp_export_opts_t": ExportOpts, "gsp_method_t": Method,
    "gsp_method_needs_t": MethodNeeds,
    "gsp_plan_in_t": PlanIn, "gsp_tried_t": Tried, "gsp_plan_t": Plan, "gsp_cost_t": Cost,
    "gsp_rt_phase_t": RtPhase, "gsp_rt_algo_t": RtAlgo, "gsp_rt_algos_t": RtAlgos, "gsp_rt_pred_t": RtPred,
    "gsp_rt_info_t": RtInfo, "gsp_optimum_t": Optimum,
}

P = POINTER
FILEP = c_void_p  # FILE *
SKIP_FN = c_void_p  # bool (*skip)(const gsp_rt_algo_t *, void *): always NULL here

# ---- prototypes: (name, restype, argtypes) ----
PROTOTYPES = [
    ("gsp_version", c_char_p, []),
    ("gsp_strerror_name", c_char_p, [c_int]),
    ("gsp_errmsg", c_char_p, []),
    ("gsp_error_clear", None, []),
    ("gsp_free", None, [c_void_p]),
    ("gsp_memory_limit", i64, []),
    ("gsp_set_memory_limit", None, [i64]),
    ("gsp_collective_name", c_char_p, [c_int]),
    ("gsp_collective_parse", c_bool, [c_char_p, P(c_int)]),
    ("gsp_topo_from_spec", c_int, [P(Topo), c_char_p]),
    ("gsp_topo_destroy", None, [P(Topo)]),
    ("gsp_group_is_abelian", c_bool, [c_void_p]),
    ("gsp_topo_is_fabric", c_bool, [P(Topo)]),
    ("gsp_topo_compute_count", i64, [P(Topo)]),
    ("gsp_optimum_all", c_int, [P(Topo), i64, P(Optimum)]),
    ("gsp_optimum_destroy", None, [P(Optimum)]),
    ("gsp_vertex_transitive", c_int, [P(Topo), P(c_int)]),
    ("gsp_cayley_match", c_int, [P(Topo), P(c_void_p), P(p_i64)]),
    ("gsp_cayley_regular", c_int, [P(Topo), P(c_int), P(c_double), c_void_p]),
    ("gsp_distances", c_int, [P(Topo), c_bool, P(Distances), fn_ptr, c_void_p]),
    ("gsp_distances_large", c_int, [P(Topo), c_bool, P(DistancesOpts), P(Distances), fn_ptr, c_void_p]),
    ("gsp_distances_destroy", None, [P(Distances)]),
    ("gsp_spectrum", c_int, [P(Topo), P(P(c_double)), P(c_int)]),
    ("gsp_spectrum_tolerance", c_double, [P(c_double), i64]),
    ("gsp_spectrum_distinct", i64, [P(c_double), i64, c_double]),
    ("gsp_rotation_find", c_int, [P(Topo), i64, P(Rotation)]),
    ("gsp_rotation_destroy", None, [P(Rotation)]),
    ("gsp_bounds_compute", c_int, [P(Topo), P(Distances), c_int, P(Model), i64, P(Bounds)]),
    ("gsp_bounds_value", i64, [P(Bounds)]),
    ("gsp_methods", P(P(Method)), [P(c_int)]),
    ("gsp_method_find", P(Method), [c_char_p, c_int]),
    ("gsp_plan", c_int, [P(PlanIn), c_int, c_char_p, P(Plan)]),
    ("gsp_plan_prove", c_int, [P(PlanIn), P(Plan), c_double]),
    ("gsp_plan_destroy", None, [P(Plan)]),
    ("gsp_sched_destroy", None, [P(Sched)]),
    ("gsp_sched_expand", c_int, [P(Sched), P(Topo), P(Sched)]),
    ("gsp_sched_transfers", i64, [P(Sched)]),
    ("gsp_sched_write", c_int, [P(Sched), FILEP]),
    ("gsp_sched_save", c_int, [P(Sched), c_char_p]),
    ("gsp_sched_load", c_int, [P(Sched), c_char_p]),
    ("gsp_sched_read", c_int, [P(Sched), FILEP, c_char_p]),
    ("gsp_sched_topology", c_int, [P(Sched), P(Topo), P(SchedGraph)]),
    ("gsp_rule_name", c_char_p, [c_int]),
    ("gsp_sched_verify_flags", c_int, [P(Sched), P(Topo), c_uint64, c_uint, P(Report)]),
    ("gsp_draw_svg", c_int, [P(Sched), P(Topo), FILEP]),
    ("gsp_export_msccl_json", c_int, [P(Sched), P(Topo), P(ExportOpts), FILEP]),
    ("gsp_export_msccl_xml", c_int, [P(Sched), P(Topo), P(ExportOpts), FILEP]),
    ("gsp_import_msccl_json", c_int, [P(Sched), c_char_p, c_char_p]),
    ("gsp_rt_algos", c_int, [P(Topo), P(Distances), c_int, i64, c_char_p, P(RtAlgos)]),
    ("gsp_rt_fabric_algos", c_int, [P(Topo), P(Topo), P(Distances), c_int, i64, P(RtAlgos)]),
    ("gsp_rt_algos_destroy", None, [P(RtAlgos)]),
    ("gsp_rt_choose_build", c_int, [P(RtAlgos), i64, i64, P(Cost), SKIP_FN, c_void_p, P(c_int)]),
    ("gsp_rt_predict", None, [P(RtAlgo), i64, i64, P(Cost), P(RtPred)]),
    ("gsp_rt_find", c_int, [P(RtAlgos), c_char_p]),
    ("gsp_rt_realize", c_int, [P(RtAlgos), c_int, P(c_bool)]),
    ("gsp_rt_registry_size", c_int, []),
    ("gsp_rt_registry_entry", c_bool, [c_int, P(RtInfo)]),
    ("gsp_cost_default", Cost, []),
    ("gsp_cost_shared_memory", Cost, []),
    ("gsp_cost_parse", c_int, [c_char_p, c_char_p, P(c_double)]),
    ("gsp_cost_parse_alpha", c_int, [c_char_p, c_char_p, P(Cost)]),
    ("gsp_cost_parse_beta", c_int, [c_char_p, c_char_p, P(Cost)]),
    ("gsp_cost_load", c_int, [c_char_p, P(Cost), c_void_p]),
]


def _candidates():
    """Where libgossip may be, in the order tried: $GOSSIP_LIBRARY; the library of this module's
    own build or install (a path relative to the package, made by CMake); the loader's search
    (ld.so.cache, LD_LIBRARY_PATH) by SONAME, then by ctypes.util.find_library."""
    env = os.environ.get("GOSSIP_LIBRARY")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    names = [os.path.normpath(os.path.join(here, _config.LIBRARY_DIR, _config.SONAME)), _config.SONAME]
    found = ctypes.util.find_library("gossip")
    if found:
        names.append(found)
    return names, False


def load():
    """The library with every prototype set. ImportError when none is found, or when its
    version is not this module's (the structures above are those of one version)."""
    names, forced = _candidates()
    lib, tried = None, []
    for name in names:
        if os.sep in name and not os.path.exists(name):
            tried.append(f"{name} (no such file)")
            continue
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError as e:
            tried.append(str(e))
    if lib is None:
        where = "GOSSIP_LIBRARY=" + names[0] if forced else ", ".join(names)
        raise ImportError(f"gossip: cannot load libgossip ({where}): " + "; ".join(tried))
    for name, res, args in PROTOTYPES:
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    got = lib.gsp_version().decode()
    if got != _config.VERSION:
        raise ImportError(f"gossip: the module is version {_config.VERSION} but {lib._name} is {got} "
                          "(the module mirrors the library's structures: use the pair from one install)")
    return lib


# The C library's stdio, for streams in memory (the writers and readers take a FILE *).
libc = ctypes.CDLL(None)
libc.open_memstream.restype = c_void_p
libc.open_memstream.argtypes = [P(c_void_p), P(c_size_t)]
libc.fmemopen.restype = c_void_p
libc.fmemopen.argtypes = [c_void_p, c_size_t, c_char_p]
libc.fclose.restype = c_int
libc.fclose.argtypes = [c_void_p]
libc.free.restype = None
libc.free.argtypes = [c_void_p]

