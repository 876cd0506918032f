# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Unit tests: one program per planner concept.  Each prints PASS:/FAIL:
# lines (tests/unit/unit.h).  Add a program here and it runs in the suite.

UNIT_LDADD = planners/libthemis_planners.la $(GLPK_LIBS)

check_PROGRAMS += tests/unit/test_topology
tests_unit_test_topology_SOURCES = tests/unit/test_topology.c tests/unit/unit.h
tests_unit_test_topology_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_scheduler
tests_unit_test_scheduler_SOURCES = tests/unit/test_scheduler.c tests/unit/unit.h
tests_unit_test_scheduler_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_simulator
tests_unit_test_simulator_SOURCES = tests/unit/test_simulator.c tests/unit/unit.h
tests_unit_test_simulator_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_plan
tests_unit_test_plan_SOURCES = tests/unit/test_plan.c tests/unit/unit.h
tests_unit_test_plan_LDADD = $(UNIT_LDADD)

# MPI test programs (run under mpirun by tests/mpi/run_mpi_tests.sh).
MPI_TEST_CFLAGS = $(AM_CFLAGS) $(OMPI_CPPFLAGS)
MPI_TEST_LIBS = $(OMPI_LIBS)
