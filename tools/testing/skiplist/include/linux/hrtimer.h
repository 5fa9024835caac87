/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: see tools/testing/skiplist/shim/ (wait_event_hrtimeout() is in wait.h). */
#include "../../shim/ktime.h"
