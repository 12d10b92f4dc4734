/* SPDX-License-Identifier: GPL-3.0-or-later */
/* version.c — the library's version at run time. */
#include "gossip/version.h"

const char *gsp_version(void) { return GSP_VERSION_STRING; }
