/* SPDX-License-Identifier: GPL-3.0-or-later */
/* export.h — GSP_API, the mark of what libgossip exports (zstd's ZSTDLIB_API, igraph's
 * IGRAPH_EXPORT). The library is compiled with hidden visibility, so libgossip.so's dynamic
 * symbol table holds exactly the functions the installed headers declare with GSP_API: not its
 * internal helpers (gsp__*, the JSON writer) nor the C++ of the CaDiCaL it embeds
 * (tests/install/test_abi.sh checks both ways). The mark is the same when a client includes the
 * header: a client compiled with -fvisibility=hidden must still see these functions as defined
 * elsewhere. */
#ifndef GOSSIP_EXPORT_H
#define GOSSIP_EXPORT_H

#if defined(__GNUC__) && __GNUC__ >= 4
#define GSP_API __attribute__((visibility("default")))
#else
#define GSP_API
#endif

#endif
