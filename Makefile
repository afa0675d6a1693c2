# seisfd: 3D seismic finite-difference modelling on MPI ranks.
# Dependency flags come from pkg-config unless given on the command line or
# in the environment (e.g. after `. PREFIX/env.sh` from deps-bundle.sh).

# Builds run on the machine's cores (at most 8, for a shared login node):
# one file at a time, make test spent 88 of its seconds compiling on CI's
# 2 cores. A -j on the command line or in MAKEFLAGS wins (make -j1 builds
# serially); the recursive makes share the top one's jobs; a make that
# cleans stays serial. Needs GNU make 4.3 (Debian 12's).
ifeq ($(MAKELEVEL)$(filter -j% j%,$(MAKEFLAGS))$(filter clean,$(MAKECMDGOALS)),0)
MAKEFLAGS += -j$(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 8 ] && n=8; echo $$n)
endif

MPICC        ?= mpicc
MPIRUN       ?= mpirun
PYTHON       ?= /usr/bin/python3
OPT_FLAGS    ?= -O3
# Machine-specific tuning, e.g. ARCH_FLAGS=-march=native; empty = portable.
ARCH_FLAGS   ?=
OPENMP_FLAGS ?= -fopenmp
WARN_FLAGS   ?= -Wall -Wextra

pkg = $(shell pkg-config $(1) $(2) 2>/dev/null)
ifeq ($(origin HDF5_CFLAGS),undefined)
HDF5_CFLAGS := $(call pkg,--cflags,hdf5-openmpi)
endif
ifeq ($(origin HDF5_LIBS),undefined)
HDF5_LIBS := $(or $(call pkg,--libs,hdf5-openmpi),-lhdf5)
endif
ifeq ($(origin YAML_CFLAGS),undefined)
YAML_CFLAGS := $(call pkg,--cflags,yaml-0.1)
endif
ifeq ($(origin YAML_LIBS),undefined)
YAML_LIBS := $(or $(call pkg,--libs,yaml-0.1),-lyaml)
endif
ifeq ($(origin SEGYIO_CFLAGS),undefined)
SEGYIO_CFLAGS := $(call pkg,--cflags,segyio)
endif
ifeq ($(origin SEGYIO_LIBS),undefined)
SEGYIO_LIBS := $(or $(call pkg,--libs,segyio),-lsegyio)
endif

# CUDA backend: built when $(NVCC) is found; CUDA=0 builds without it.
NVCC         ?= nvcc
ifeq ($(origin CUDA),undefined)
CUDA := $(if $(shell command -v $(NVCC) 2>/dev/null),1,0)
endif
# The toolkit's root, from where nvcc lives (e.g. /usr/local/cuda-13.0).
CUDA_HOME    ?= $(patsubst %/bin/,%,$(dir $(realpath $(shell command -v $(NVCC) 2>/dev/null))))
cuda_system  := $(filter /usr /usr/local,$(CUDA_HOME))
CUDA_CFLAGS  ?= $(if $(cuda_system),,-I$(CUDA_HOME)/include)
# The static runtime needs no library path at run time.
CUDA_LIBS    ?= $(if $(cuda_system),,-L$(CUDA_HOME)/lib64) -lcudart_static -ldl -lrt -lpthread -lstdc++
# Machine code for Ampere and Hopper, plus PTX that newer GPUs compile at load.
CUDA_ARCH_FLAGS ?= -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=[sm_90,compute_90]
# The host code of the CUDA sources lays out media on every core too.
NVCC_FLAGS   ?= -O3 -std=c++17 -Xcompiler -Wall,-Wextra $(addprefix -Xcompiler ,$(OPENMP_FLAGS))
# The CUDA sources include mpi.h (through the backend interface).
MPI_CFLAGS   ?= $(filter -I% -D%,$(shell $(MPICC) --showme:compile 2>/dev/null || $(MPICC) -compile_info 2>/dev/null))

# hwloc counts cores (not hardware threads) for the OpenMP threads per rank
# and binds each rank's CPU cores to those nearest its GPU; HWLOC=0 or a
# missing hwloc builds without (every online CPU then counts as a core, and
# the set-up summary says the GPU ranks are not bound).
ifeq ($(origin HWLOC),undefined)
HWLOC := $(if $(shell pkg-config --exists hwloc 2>/dev/null && echo yes),1,0)
endif
ifeq ($(origin HWLOC_CFLAGS),undefined)
HWLOC_CFLAGS := $(call pkg,--cflags,hwloc)
endif
ifeq ($(origin HWLOC_LIBS),undefined)
HWLOC_LIBS := $(or $(call pkg,--libs,hwloc),-lhwloc)
endif

# UCX's headers let `auto` ask the UCX that Open MPI loaded whether it
# moves device memory (halo/ucx_query.c); UCX=0 or none found builds without.
ifeq ($(origin UCX),undefined)
UCX := $(if $(shell pkg-config --exists ucx 2>/dev/null && echo yes),1,0)
endif
ifeq ($(origin UCX_CFLAGS),undefined)
UCX_CFLAGS := $(call pkg,--cflags,ucx)
endif
ifeq ($(UCX),1)
UCX_FLAGS := -DSF_HAVE_UCX=1 $(UCX_CFLAGS)
endif

# No fused multiply-add: the kernels' copies per vector set (SF_CPU_VECTOR_KERNEL)
# and every build then round alike, so a gather is the same on any CPU.
CFLAGS   += -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT_FLAGS) $(ARCH_FLAGS) -ffp-contract=off \
            $(OPENMP_FLAGS) $(WARN_FLAGS) -Iinclude $(HDF5_CFLAGS) $(YAML_CFLAGS) \
            $(SEGYIO_CFLAGS) $(UCX_FLAGS)
LDLIBS   += $(HDF5_LIBS) $(YAML_LIBS) $(SEGYIO_LIBS) -lm -ldl
LDFLAGS  += $(OPENMP_FLAGS)
# make test-sanitize sets the sanitizers' flags here for its own build.
CFLAGS   += $(SANITIZE_FLAGS)
LDFLAGS  += $(SANITIZE_FLAGS)

BUILD    ?= build
BIN      ?= bin
GPU_SRC  := $(wildcard src/gpu/*.c)
CORE_SRC := $(wildcard src/*.c src/physics/*/*.c src/backends/cpu/*.c halo/*.c io/*.c)
CORE_SRC := $(filter-out src/main.c $(GPU_SRC),$(CORE_SRC))
ifeq ($(CUDA),1)
CORE_SRC += $(GPU_SRC)
CU_OBJ   := $(patsubst %.cu,$(BUILD)/%.o,$(wildcard src/backends/cuda/*.cu \
                                                     src/backends/cuda/kernels/*.cu))
CFLAGS   += -DSF_HAVE_CUDA=1 $(CUDA_CFLAGS)
LDLIBS   += $(CUDA_LIBS)
endif
ifeq ($(HWLOC),1)
CFLAGS   += -DSF_HAVE_HWLOC=1 $(HWLOC_CFLAGS)
LDLIBS   += $(HWLOC_LIBS)
endif
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o) $(CU_OBJ) $(BUILD)/plane_costs_table.o
MAIN_OBJ := $(BUILD)/src/main.o
UNIT_OBJ := $(BUILD)/tests/unit_tests.o
FUZZ_OBJ := $(BUILD)/tests/fuzz_driver.o
CPML_OBJ := $(BUILD)/tests/cpml_coefficients.o
TTI_STEPS_OBJ := $(BUILD)/tests/tti_steps.o
RELAXATION_OBJ := $(BUILD)/tests/relaxation_values.o
NVCC_ALL := $(NVCC_FLAGS) $(CUDA_ARCH_FLAGS) -Iinclude $(MPI_CFLAGS) -DOMPI_SKIP_MPICXX \
            -DMPICH_SKIP_MPICXX -DSF_HAVE_CUDA=1

# Objects depend on the flags they were built with: changing CUDA, HWLOC,
# ARCH_FLAGS or CUDA_ARCH_FLAGS rebuilds them.
FLAGS_STAMP := $(BUILD)/flags
BUILD_FLAGS := $(CC) $(CFLAGS) | $(NVCC) $(NVCC_ALL) | $(LDLIBS)

# The tests' launcher flags (make run picks its own, in jobs/cpu-local.sh).
# Running as root (containers, CI) needs OpenMPI's explicit consent.
ifeq ($(shell id -u),0)
MPIRUN_FLAGS ?= --allow-run-as-root --oversubscribe
else
MPIRUN_FLAGS ?= --oversubscribe
endif
export MPIRUN MPIRUN_FLAGS PYTHON

.PHONY: all deps demo install job-keys run test test-gpu test-long test-long-gpu test-sanitize bench native bench-cpu clean FORCE
all: $(BIN)/seisfd

$(BIN)/seisfd: $(CORE_OBJ) $(MAIN_OBJ) | $(BIN)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BIN)/unit_tests: $(CORE_OBJ) $(UNIT_OBJ) | $(BIN)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The input fuzz tests' in-process reader of job files and manifests.
$(BIN)/fuzz_driver: $(CORE_OBJ) $(FUZZ_OBJ) | $(BIN)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The CPML stability test's reader of the code's stencil and layer
# coefficients (tests/test_cpml_stability.py).
$(BIN)/cpml_coefficients: $(CORE_OBJ) $(CPML_OBJ) | $(BIN)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Its runner of the CPU TTI backend's steps, which the test's model of the
# TTI step is held to.
$(BIN)/tti_steps: $(CORE_OBJ) $(TTI_STEPS_OBJ) | $(BIN)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The visco-acoustic analytic test's reader of the fitted solids.
$(BIN)/relaxation_values: $(CORE_OBJ) $(RELAXATION_OBJ) | $(BIN)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The MPICH branch of the GPU-aware MPI query, built against a stand-in
# for MPICH's mpi.h (tests/mpich_stub), so it compiles and runs here too.
$(BIN)/mpich_stub_test: tests/mpich_stub_test.c halo/gpu_aware_mpi.c include/sf_gpu_aware_mpi.h \
                        tests/mpich_stub/mpi.h | $(BIN)
	$(CC) -std=c11 -D_DEFAULT_SOURCE $(WARN_FLAGS) $(SANITIZE_FLAGS) -Itests/mpich_stub -Iinclude \
	    -o $@ tests/mpich_stub_test.c halo/gpu_aware_mpi.c

# The Open MPI and UCX branch of the same query, against stand-ins for Open
# MPI's headers (tests/ompi_stub) and for libucp (tests/ucx_stub: a library
# of UCX's name whose answer the test sets), so `auto` is tested with
# every combination of answers here, where no GPU or CUDA-built UCX is.
ifeq ($(UCX),1)
$(BIN)/ucx_stub/libucp.so.0: tests/ucx_stub/ucp.c | $(BIN)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN_FLAGS) $(SANITIZE_FLAGS) $(UCX_CFLAGS) -shared -fPIC \
	    -Wl,-soname,libucp.so.0 -o $@ $<

$(BIN)/ompi_ucx_stub_test: tests/ompi_ucx_stub_test.c halo/gpu_aware_mpi.c halo/ucx_query.c \
                           include/sf_gpu_aware_mpi.h halo/ucx_query.h tests/ompi_stub/mpi.h \
                           tests/ompi_stub/mpi-ext.h $(BIN)/ucx_stub/libucp.so.0 | $(BIN)
	$(CC) -std=c11 -D_DEFAULT_SOURCE $(WARN_FLAGS) $(SANITIZE_FLAGS) $(UCX_FLAGS) -Itests/ompi_stub \
	    -Iinclude -rdynamic -o $@ tests/ompi_ucx_stub_test.c halo/gpu_aware_mpi.c halo/ucx_query.c -ldl
STUB_TESTS := $(BIN)/mpich_stub_test $(BIN)/ompi_ucx_stub_test
else
STUB_TESTS := $(BIN)/mpich_stub_test
endif

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/%.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCC_ALL) -MMD -MP -MF $(@:.o=.d) -c $< -o $@

# The plane-cost table the docs ship, built in as one string (src/plane_costs.c).
$(BUILD)/plane_costs_table.c: docs/plane-costs.csv
	@mkdir -p $(dir $@)
	{ echo 'const char sf_plane_costs_shipped[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/    "&\\n"/' $<; echo '    "";'; } >$@

$(BUILD)/plane_costs_table.o: $(BUILD)/plane_costs_table.c $(FLAGS_STAMP)
	$(MPICC) $(CFLAGS) -c $< -o $@

# The job-key reference the docs ship, printed by seisfd from the key
# tables its job reader reads with (tests/test_docs_claims.py compares).
docs/job-keys.md: $(BIN)/seisfd
	$(BIN)/seisfd help keys > $@.tmp && mv $@.tmp $@

job-keys: docs/job-keys.md

$(FLAGS_STAMP): FORCE
	@mkdir -p $(BUILD)
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' > $@

$(BIN):
	@mkdir -p $(BIN)

-include $(CORE_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d) $(CPML_OBJ:.o=.d) \
         $(TTI_STEPS_OBJ:.o=.d) $(RELAXATION_OBJ:.o=.d)

# The Debian/Ubuntu packages are listed once, in setup.sh, which needs no
# make (the README's first command on a bare system).
deps:
	@sh setup.sh deps

demo: deps
	@$(MAKE) --no-print-directory run JOB=configs/quickstart.yaml RANKS=2
	$(PYTHON) io/seisfd_plot.py gather out/quickstart/gather.h5 out/quickstart/gather.png >/dev/null
	@echo "demo: the shot gather is in $$(pwd)/out/quickstart/gather.h5 (SEG-Y: gather.sgy)"
	@echo "demo: its picture is $$(pwd)/out/quickstart/gather.png"

# A job on this machine's cores: make run JOB=configs/quickstart.yaml RANKS=2.
# jobs/cpu-local.sh picks mpirun's flags: --allow-run-as-root as root,
# each rank bound to its share of the cores, or --oversubscribe without
# binding for more ranks than cores.
RANKS ?= 2
ifneq ($(filter run,$(MAKECMDGOALS)),)
ifeq ($(JOB),)
$(error make run needs a job file: make run JOB=configs/quickstart.yaml RANKS=2)
endif
endif
run: all
	@MPIRUN="$(MPIRUN)" SEISFD="$(abspath $(BIN)/seisfd)" jobs/cpu-local.sh "$(JOB)" "$(RANKS)"

test: all $(BIN)/unit_tests $(STUB_TESTS) $(BIN)/fuzz_driver $(BIN)/cpml_coefficients \
      $(BIN)/tti_steps $(BIN)/relaxation_values
	@$(PYTHON) tests/run_tests.py

# The GPU tests alone, on a machine with a GPU (they skip without one).
test-gpu: all $(BIN)/unit_tests $(STUB_TESTS)
	@$(PYTHON) tests/run_tests.py gpu

# The long matrix of absorbing layers (every physics, 6-, 10- and 20-point
# layers, small and large grids, 50 000 steps each; on the CPU also the
# visco-acoustic analytic comparison out to 2 km): hours on the CPU,
# minutes on a GPU; not in make test.
test-long: all $(BIN)/relaxation_values
	@$(PYTHON) tests/run_tests.py --long cpu_

test-long-gpu: all
	@$(PYTHON) tests/run_tests.py --long gpu_

# The CPU build with AddressSanitizer and UndefinedBehaviorSanitizer (its
# own build/ and bin/ folders), running a subset of the suite (physics,
# I/O, surveys, bad input, fuzzing) that fails on any sanitizer report.
SANITIZE_BUILD := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                  -fno-omit-frame-pointer -g
# Left out, to keep CI (make test, then this) under 20 minutes; make test
# runs them unsanitized (docs/testing.md, "Sanitizers"): the slowest tests
# whose code paths other sanitized tests run, and the kill and full-disk
# surveys, whose subject is the processes around seisfd.
SANITIZE_TESTS ?= unit. physics. wavelets. config. cli. output. models. segy. snapshots. survey. fuzz. decomposition. \
                  conformance.every_physics_records elastic_outputs. plot.gather_picture \
                  anisotropic.anisotropic_job \
                  attenuation.visco_acoustic_bad attenuation.visco_acoustic_mech \
                  -physics.cpml_reflection -physics.free_surface_ghost -survey.killed -survey.full_disk -cli.check_every_example \
                  -wavelets.ricker_files -wavelets.analytic_kinds -survey.manifest_cut \
                  -survey.removed_manifest -survey.report_has_every -output.raw_model_equals \
                  -fuzz.job_files_through_check -physics.homogeneous_matches_analytic \
                  -wavelets.gaussian_derivative_matches_analytic
test-sanitize:
	@$(MAKE) --no-print-directory CUDA=0 BUILD=build/sanitize BIN=bin/sanitize OPT_FLAGS=-O1 \
	    SANITIZE_FLAGS="$(SANITIZE_BUILD)" \
	    bin/sanitize/seisfd bin/sanitize/unit_tests $(STUB_TESTS:$(BIN)/%=bin/sanitize/%) \
	    bin/sanitize/fuzz_driver bin/sanitize/cpml_coefficients bin/sanitize/tti_steps
	@SEISFD_BIN_DIR=bin/sanitize ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 \
	    UBSAN_OPTIONS=print_stacktrace=1 $(PYTHON) tests/run_tests.py $(SANITIZE_TESTS)

bench: all
	OMP_PROC_BIND=close bin/seisfd bench $(BENCH_ARGS)

# A build for this host's instruction set (-march=native: AVX2 or AVX-512
# and FMA where the CPU has them), beside the portable one: its own build/
# and bin/ folders, so both can be timed side by side. Its binary runs on
# machines like this one only.
native:
	@$(MAKE) --no-print-directory BUILD=build/native BIN=bin/native ARCH_FLAGS=-march=native \
	    bin/native/seisfd

# seisfd's CPU backend (portable and native) against Devito, alternated,
# best of 3 (jobs/bench-cpu.py; Devito installs into out/devito-venv).
bench-cpu: all native
	$(PYTHON) jobs/bench-cpu.py --seisfd bin/seisfd,bin/native/seisfd $(BENCH_CPU_ARGS)

# The program, the plot tool (run by $(PYTHON), which has its modules:
# the first python3 on a PATH may not) and the example jobs; DESTDIR
# stages the tree for a package.
PREFIX   ?= /usr/local
install: $(BIN)/seisfd
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/seisfd/examples
	install -m 755 $(BIN)/seisfd $(DESTDIR)$(PREFIX)/bin/seisfd
	sed '1s|^#!.*|#!$(PYTHON)|' io/seisfd_plot.py > $(DESTDIR)$(PREFIX)/bin/seisfd-plot
	chmod 755 $(DESTDIR)$(PREFIX)/bin/seisfd-plot
	install -m 644 configs/*.yaml $(DESTDIR)$(PREFIX)/share/seisfd/examples

clean:
	rm -rf $(BUILD) bin
