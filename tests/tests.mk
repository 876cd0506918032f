# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Unit tests: one program per planner concept.  Each prints PASS:/FAIL:
# lines (tests/unit/unit.h).  Add a program here and it runs in the suite.

# `make check` runs every test: the unit tests, then the suites (MPI under
# mpirun, the CLI, the sanitizer, the emulated test beds, the fuzzers), one
# at a time: they share the machine's cores.  `make check-unit` runs the
# unit tests alone.  tests/suite_driver.sh turns each program's PASS:/FAIL:/
# SKIP: lines into automake results (a log and a .trs per program).
UNIT_LDADD = $(OFFLINE_LIBS) $(GLPK_LIBS)

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
tests_unit_test_plan_SOURCES = tests/unit/test_plan.c tests/unit/unit.h \
    tests/unit/plan_world.c tests/unit/plan_world.h \
    tests/unit/vexec.c tests/unit/vexec.h
tests_unit_test_plan_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_hamiltonian
tests_unit_test_hamiltonian_SOURCES = tests/unit/test_hamiltonian.c tests/unit/unit.h
tests_unit_test_hamiltonian_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_plan_torus
tests_unit_test_plan_torus_SOURCES = tests/unit/test_plan_torus.c tests/unit/unit.h \
    tests/unit/vexec.c tests/unit/vexec.h tests/unit/prog_msgs.h
tests_unit_test_plan_torus_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_xfer_hier
tests_unit_test_xfer_hier_SOURCES = tests/unit/test_xfer_hier.c tests/unit/unit.h \
    tests/unit/vexec.c tests/unit/vexec.h tests/unit/prog_msgs.h
tests_unit_test_xfer_hier_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_algo_cost
tests_unit_test_algo_cost_SOURCES = tests/unit/test_algo_cost.c tests/unit/unit.h
tests_unit_test_algo_cost_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_algorithm
tests_unit_test_algorithm_SOURCES = tests/unit/test_algorithm.c tests/unit/unit.h
tests_unit_test_algorithm_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_rules
tests_unit_test_rules_SOURCES = tests/unit/test_rules.c tests/unit/unit.h
tests_unit_test_rules_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_chunking
tests_unit_test_chunking_SOURCES = tests/unit/test_chunking.c tests/unit/unit.h
tests_unit_test_chunking_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_graph
tests_unit_test_graph_SOURCES = tests/unit/test_graph.c tests/unit/unit.h tests/unit/graph_util.h
tests_unit_test_graph_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_cluster
tests_unit_test_cluster_SOURCES = tests/unit/test_cluster.c tests/unit/unit.h tests/unit/graph_util.h
tests_unit_test_cluster_LDADD = $(UNIT_LDADD)
tests_unit_test_cluster_CPPFLAGS = $(AM_CPPFLAGS) \
    -DTHEMIS_EXAMPLES=\"$(abs_top_srcdir)/docs/examples\"

check_PROGRAMS += tests/unit/test_bed_plan
tests_unit_test_bed_plan_SOURCES = tests/unit/test_bed_plan.c tests/unit/unit.h tests/unit/graph_util.h
tests_unit_test_bed_plan_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_algo_bound
tests_unit_test_algo_bound_SOURCES = tests/unit/test_algo_bound.c tests/unit/unit.h
tests_unit_test_algo_bound_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_link_sim
tests_unit_test_link_sim_SOURCES = tests/unit/test_link_sim.c tests/unit/unit.h tests/unit/graph_util.h
tests_unit_test_link_sim_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_link_sim_twins
tests_unit_test_link_sim_twins_SOURCES = tests/unit/test_link_sim_twins.c tests/unit/unit.h tests/unit/graph_util.h
tests_unit_test_link_sim_twins_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_msccl
tests_unit_test_msccl_SOURCES = tests/unit/test_msccl.c tests/unit/unit.h
tests_unit_test_msccl_CPPFLAGS = $(AM_CPPFLAGS) \
    -DTHEMIS_MSCCL_DATA=\"$(abs_top_srcdir)/tests/data/msccl\"
tests_unit_test_msccl_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_clos
tests_unit_test_clos_SOURCES = tests/unit/test_clos.c tests/unit/unit.h
tests_unit_test_clos_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_unit_test_clos_LDADD = $(UNIT_LDADD) $(JSONC_LIBS)

# MPI test programs (run under mpirun by tests/mpi/run_mpi_tests.sh).
MPI_TEST_CFLAGS = $(AM_CFLAGS) $(OMPI_CPPFLAGS)
MPI_TEST_LIBS = $(OMPI_LIBS)

check_PROGRAMS += tests/mpi/coll_matrix
tests_mpi_coll_matrix_SOURCES = tests/mpi/coll_matrix.c tests/mpi/coll_matrix.h \
    tests/mpi/coll_matrix_types.c tests/mpi/coll_matrix_values.c \
    tests/mpi/coll_matrix_case.c tests/mpi/coll_matrix_nb.c \
    tests/mpi/themis_counters.c tests/mpi/themis_counters.h
tests_mpi_coll_matrix_CFLAGS = $(MPI_TEST_CFLAGS)
tests_mpi_coll_matrix_LDADD = $(MPI_TEST_LIBS)

# The engine without the component: coll_themis_engine.c compiled into an
# MPI program with Open MPI's internal headers (tests/mpi/run_engine_harness.sh).
check_PROGRAMS += tests/mpi/engine_harness
tests_mpi_engine_harness_SOURCES = tests/mpi/engine_harness.c \
    ompi/mca/coll/themis/coll_themis_engine.c ompi/mca/coll/themis/coll_themis_engine.h \
    ompi/mca/coll/themis/coll_themis_engine_layout.c ompi/mca/coll/themis/coll_themis_engine_impl.h
tests_mpi_engine_harness_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ompi/mca/coll/themis \
    -I$(top_srcdir)/ompi/mca/coll/themis/shim $(OMPI_CPPFLAGS)
tests_mpi_engine_harness_LDADD = planners/libthemis_planners.la $(OMPI_LIBS)

check_PROGRAMS += tests/mpi/repro
tests_mpi_repro_SOURCES = tests/mpi/repro.c \
    tests/mpi/themis_counters.c tests/mpi/themis_counters.h
tests_mpi_repro_CFLAGS = $(MPI_TEST_CFLAGS)
tests_mpi_repro_LDADD = $(MPI_TEST_LIBS) -lm

check_PROGRAMS += tests/mpi/dtype_paths
tests_mpi_dtype_paths_SOURCES = tests/mpi/dtype_paths.c \
    tests/mpi/themis_counters.c tests/mpi/themis_counters.h
tests_mpi_dtype_paths_CFLAGS = $(MPI_TEST_CFLAGS)
tests_mpi_dtype_paths_LDADD = $(MPI_TEST_LIBS)

check_PROGRAMS += tests/mpi/count_mismatch
tests_mpi_count_mismatch_SOURCES = tests/mpi/count_mismatch.c
tests_mpi_count_mismatch_CFLAGS = $(MPI_TEST_CFLAGS)
tests_mpi_count_mismatch_LDADD = $(MPI_TEST_LIBS)

check_PROGRAMS += tests/mpi/nbc_threads
tests_mpi_nbc_threads_SOURCES = tests/mpi/nbc_threads.c \
    tests/mpi/themis_counters.c tests/mpi/themis_counters.h
tests_mpi_nbc_threads_CFLAGS = $(MPI_TEST_CFLAGS)
tests_mpi_nbc_threads_LDADD = $(MPI_TEST_LIBS) -lpthread

check_PROGRAMS += tests/mpi/scratch_mem
tests_mpi_scratch_mem_SOURCES = tests/mpi/scratch_mem.c \
    tests/mpi/themis_counters.c tests/mpi/themis_counters.h
tests_mpi_scratch_mem_CFLAGS = $(MPI_TEST_CFLAGS)
tests_mpi_scratch_mem_LDADD = $(MPI_TEST_LIBS)

check_PROGRAMS += tests/unit/test_transfer tests/unit/test_msccl
tests_unit_test_transfer_SOURCES = tests/unit/test_transfer.c tests/unit/unit.h \
    tests/unit/vexec.c tests/unit/vexec.h tests/unit/xfer_run.h
tests_unit_test_transfer_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_treepack
tests_unit_test_treepack_SOURCES = tests/unit/test_treepack.c tests/unit/unit.h \
    tests/unit/vexec.c tests/unit/vexec.h tests/unit/xfer_run.h
tests_unit_test_treepack_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_program_runs
tests_unit_test_program_runs_SOURCES = tests/unit/test_program_runs.c tests/unit/unit.h \
    tests/unit/vexec.c tests/unit/vexec.h tests/unit/prog_msgs.h
tests_unit_test_program_runs_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_treepack_ratio
tests_unit_test_treepack_ratio_SOURCES = tests/unit/test_treepack_ratio.c tests/unit/unit.h
tests_unit_test_treepack_ratio_LDADD = $(UNIT_LDADD)

UNIT_TESTS = tests/unit/test_topology tests/unit/test_scheduler tests/unit/test_simulator \
    tests/unit/test_plan tests/unit/test_hamiltonian tests/unit/test_plan_torus \
    tests/unit/test_program_runs \
    tests/unit/test_xfer_hier \
    tests/unit/test_algo_cost tests/unit/test_algorithm tests/unit/test_algo_bound \
    tests/unit/test_rules \
    tests/unit/test_chunking tests/unit/test_graph tests/unit/test_cluster tests/unit/test_bed_plan \
    tests/unit/test_link_sim tests/unit/test_link_sim_twins tests/unit/test_transfer tests/unit/test_msccl \
    tests/unit/test_clos tests/unit/test_treepack tests/unit/test_treepack_ratio \
    tests/unit/test_tacos

check_PROGRAMS += tests/unit/test_tacos
tests_unit_test_tacos_SOURCES = tests/unit/test_tacos.c tests/unit/unit.h \
    tests/unit/vexec.c tests/unit/vexec.h tests/unit/xfer_run.h
tests_unit_test_tacos_LDADD = $(UNIT_LDADD)

# MPI-4 persistent collectives next to coll/themis (Open MPI 5.0; prints a
# SKIP line when built against 4.1): tests/mpi/run_persistent_tests.sh.
check_PROGRAMS += tests/mpi/persistent
tests_mpi_persistent_SOURCES = tests/mpi/persistent.c \
    tests/mpi/themis_counters.c tests/mpi/themis_counters.h
tests_mpi_persistent_CFLAGS = $(MPI_TEST_CFLAGS)
tests_mpi_persistent_LDADD = $(MPI_TEST_LIBS)

# The suites, in the order they run (each a script printing PASS:/FAIL:/SKIP:).
SUITES = tests/check_static.sh tests/check_symbols.sh tests/mpi/run_mpi_tests.sh \
    tests/mpi/run_dtype_tests.sh tests/mpi/run_repro_tests.sh tests/mpi/run_msccl_tests.sh tests/mpi/run_tacos_tests.sh \
    tests/mpi/run_torus_tests.sh tests/mpi/run_treepack_tests.sh tests/mpi/run_auto_tests.sh \
    tests/mpi/run_input_tests.sh tests/mpi/run_nbc_tests.sh tests/mpi/run_persistent_tests.sh \
    tests/mpi/run_place_tests.sh tests/mpi/run_scratch_tests.sh tests/mpi/run_trace_tests.sh \
    tests/mpi/run_engine_harness.sh tests/mpi/run_cli.sh tests/mpi/run_sanitizer.sh \
    tests/netbed/run_netbed_smoke.sh tests/netbed/run_netbed_torus.sh \
    tests/netbed/run_netgraph_smoke.sh \
    tests/fuzz/run_fuzz.sh
# The suites that run again on the Open MPI 5 build (tests/run_all.sh).
SUITES_OMPI5 = tests/mpi/run_mpi_tests.sh tests/mpi/run_dtype_tests.sh \
    tests/mpi/run_repro_tests.sh tests/mpi/run_msccl_tests.sh tests/mpi/run_tacos_tests.sh \
    tests/mpi/run_torus_tests.sh tests/mpi/run_persistent_tests.sh tests/mpi/run_input_tests.sh \
    tests/mpi/run_place_tests.sh

TESTS += $(UNIT_TESTS) $(SUITES)
LOG_DRIVER = bash $(top_srcdir)/tests/suite_driver.sh
TEST_EXTENSIONS = .sh
SH_LOG_DRIVER = bash $(top_srcdir)/tests/suite_driver.sh
SH_LOG_COMPILER = bash
# The suites find this build and, when configured --with-ompi=PREFIX, that
# Open MPI (tests/mpi/mpirun.sh, tools/launch.sh).
AM_TESTS_ENVIRONMENT = THEMIS_BUILD_DIR='$(abs_top_builddir)'; export THEMIS_BUILD_DIR; \
    if test -n '$(THEMIS_OMPI_PREFIX)'; then \
        THEMIS_OMPI='$(THEMIS_OMPI_PREFIX)'; export THEMIS_OMPI; fi;

check-unit:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(UNIT_TESTS)'
check-ompi5:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(UNIT_TESTS) $(SUITES_OMPI5)'
.PHONY: check-unit check-ompi5
