/* SPDX-License-Identifier: GPL-2.0 */
/* Native build: bench_native.h has what this header would give. */
