#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# mpirun of the Open MPI under test (THEMIS_OMPI=PREFIX, default the
# PATH's), taking Open MPI 4.1's options under either series: the suites'
# "$MPIRUN".  tools/launch.sh holds the translation.
exec "$(dirname "$0")/../../tools/launch.sh" mpirun "$@"
