# seisfd: 3D seismic finite-difference modelling on MPI ranks.
# Dependency flags come from pkg-config unless given on the command line or
# in the environment (e.g. after `. PREFIX/env.sh` from deps-bundle.sh).

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

CFLAGS   += -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT_FLAGS) $(ARCH_FLAGS) \
            $(OPENMP_FLAGS) $(WARN_FLAGS) -Iinclude $(HDF5_CFLAGS) $(YAML_CFLAGS)
LDLIBS   += $(HDF5_LIBS) $(YAML_LIBS) -lm
LDFLAGS  += $(OPENMP_FLAGS)

BUILD    := build
CORE_SRC := $(wildcard src/*.c halo/*.c io/*.c)
CORE_SRC := $(filter-out src/main.c,$(CORE_SRC))
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/src/main.o
UNIT_OBJ := $(BUILD)/tests/unit_tests.o

# Running as root (containers, CI) needs OpenMPI's explicit consent.
ifeq ($(shell id -u),0)
MPIRUN_FLAGS ?= --allow-run-as-root --oversubscribe
else
MPIRUN_FLAGS ?= --oversubscribe
endif
export MPIRUN MPIRUN_FLAGS PYTHON

.PHONY: all deps demo test bench clean
all: bin/seisfd

bin/seisfd: $(CORE_OBJ) $(MAIN_OBJ) | bin
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/unit_tests: $(CORE_OBJ) $(UNIT_OBJ) | bin
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -MMD -MP -c $< -o $@

bin:
	@mkdir -p bin

-include $(CORE_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)

# Debian/Ubuntu packages the build, the tests and the plots need.
DEB_PACKAGES := gcc make pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev \
                libyaml-dev libhwloc-dev libsegyio-dev python3 python3-numpy python3-h5py \
                python3-matplotlib python3-segyio

deps:
	@command -v dpkg-query >/dev/null || { echo "deps: not a Debian system; install the equivalents of: $(DEB_PACKAGES)"; exit 1; }
	@missing=$$(for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "deps: all packages are installed"; \
	elif [ "$$(id -u)" = 0 ]; then echo "deps: installing" $$missing; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	else echo "deps: missing packages:" $$missing; \
	    echo "deps: install them as root: apt-get install" $$missing; exit 1; fi

demo: deps
	@$(MAKE) --no-print-directory all
	$(MPIRUN) $(MPIRUN_FLAGS) -np 2 -x OMP_NUM_THREADS=1 bin/seisfd run configs/quickstart.yaml
	@echo "demo: the shot gather is in $$(pwd)/out/quickstart/gather.h5"

test: all bin/unit_tests
	@$(PYTHON) tests/run_tests.py

bench: all
	OMP_PROC_BIND=close bin/seisfd bench $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) bin
