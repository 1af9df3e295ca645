# genie - build, examples, tests. `make run` runs the flagship example, `make test` the quick tests,
# `make check` everything CI runs, `make help` every target. A target's `## text` is its help line.
CC      ?= cc
CXX     ?= c++
PYTHON  ?= /usr/bin/python3
VENV    ?= .venv
PREFIX  ?= /usr/local
WARN     = -Wall -Wextra -pedantic -Werror
CFLAGS  ?= -O2 -g
STD      = -std=c99
BUILD    = build
SAN      = -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=undefined,float-cast-overflow
NPROC   := $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
VERSION := $(shell sed -n 's/^\#define GENIE_VERSION_STRING "\(.*\)"/\1/p' genie.h)
EXAMPLES = $(patsubst examples/%.c,%,$(wildcard examples/*.c))
TESTSRC  = tests/unit/test_main.c tests/unit/test_planner.c tests/unit/test_gemm.c tests/programs/prog.c tests/unit/impl.c tests/unit/test_fuse.c tests/unit/test_vmath.c \
           tests/unit/test_reduce.c tests/unit/test_tcache.c tests/unit/test_llmops.c tests/unit/test_rfuse.c tests/unit/test_safetensors.c \
           tests/unit/test_safetensors_nommap.c tests/unit/test_roles.c tests/unit/test_threads.c
TESTOBJ  = $(patsubst %.c,$(BUILD)/%.o,$(notdir $(TESTSRC)))

.PHONY: all run help test test-full test-build check asan valgrind examples install uninstall props cases bench bench-views bench-mlp bench-eltwise bench-gemm bench-rowwise bench-tape bench-attention bench-llm bench-save perf-report compile-checks benches clean torch torch-suite test-torch test-torch-opdb example-torch bench-torch print-testsrc
.PHONY: cuda cuda-suite test-cuda bench-cuda
.PHONY: fuzz-safetensors test-safetensors asan-safetensors valgrind-safetensors
.PHONY: test-gguf fuzz-gguf asan-gguf bench-gguf
.PHONY: test-amx asan-amx bench-amx bench-bf16-decode
.PHONY: test-vmath-all
.PHONY: fuzz
.PHONY: matrix diff-test

all: examples $(BUILD)/test_main $(BUILD)/test_alloc $(BUILD)/test_robust $(BUILD)/fuzz_replay $(BUILD)/test_lazy $(BUILD)/test_dead ## the examples and the test programs

# every target with its `## text`, in the Makefile's order
help: ## print every target with its one-line description
	@awk -F ':.*## ' '/^[a-zA-Z][a-zA-Z0-9_-]*:.*## / { printf "  %-22s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

$(BUILD):
	@mkdir -p $(BUILD)

# The examples and the test programs that use only the public API link genie's implementation
# compiled once ($(BUILD)/impl.o, from tests/unit/impl.c): each keeps its own `#define
# GENIE_IMPLEMENTATION` (a user copies it as it is), which -DGENIE_NO_IMPLEMENTATION switches off.
LINK_IMPL = -DGENIE_NO_IMPLEMENTATION $(BUILD)/impl.o

# ---- examples: numbered tutorials, each checks its own results ----
examples: $(addprefix $(BUILD)/,$(EXAMPLES)) ## build the numbered examples
$(BUILD)/%: examples/%.c genie.h $(BUILD)/impl.o | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $< $(LINK_IMPL) -o $@ -lm -pthread

run: $(BUILD)/03_mlp ## build and run the flagship example (an MLP captured lazily, checked)
	cd $(BUILD) && ./03_mlp

# ---- tests ----
$(BUILD)/cxx_part.o: tests/unit/cxx_part.cpp genie.h | $(BUILD)
	$(CXX) -std=c++11 $(CFLAGS) $(WARN) -c $< -o $@
$(BUILD)/%.o: tests/unit/%.c tests/programs/prog.h tests/unit/vmath_bounds.h tests/unit/testctx.h genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -c $< -o $@
$(BUILD)/%.o: tests/programs/%.c tests/programs/prog.h genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -c $< -o $@
print-testsrc: ## test_main's sources (for tests/matrix.sh)
	@echo $(TESTSRC)
$(BUILD)/test_safetensors_nommap.o: tests/unit/test_safetensors.c
$(BUILD)/test_main: $(TESTOBJ) $(BUILD)/cxx_part.o
	$(CXX) $(CFLAGS) $^ -o $@ -lm -pthread
# the backend table (>>backend) through a fake device: no GPU, no toolkit
$(BUILD)/test_backend: tests/unit/test_backend.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) $< -o $@ -lm -pthread
$(BUILD)/test_alloc: tests/unit/test_alloc.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) $< -o $@ -lm -pthread
# every f32 input through the SIMD paths' transcendental kernels against the reference (optional:
# about half an hour of CPU per path; make test runs the dense sweep of tests/unit/test_vmath.c)
$(BUILD)/vmath_all: tests/unit/vmath_all.c tests/unit/vmath_bounds.h genie.h | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. $< -o $@ -lm -pthread
test-vmath-all: $(BUILD)/vmath_all ## every f32 input through the SIMD transcendentals (about half an hour a path)
	$(BUILD)/vmath_all
# odd input (huge, empty, NULL, dead handles) and every crash the fuzzer found
$(BUILD)/test_robust: tests/unit/test_robust.c genie.h $(BUILD)/impl.o | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) $< $(LINK_IMPL) -o $@ -lm -pthread
# ---- laziness (docs/lazy.md): a realize writes what it is asked for; cheap intermediates stay deferred ----
$(BUILD)/test_lazy: tests/unit/test_lazy.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) $< -o $@ -lm -pthread
# ---- end laziness ----
# the fuzz harness without libFuzzer: replays the seed corpus and the inputs that once crashed
$(BUILD)/fuzz_replay: tests/fuzz/replay.c tests/fuzz/fuzz_api.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $< -o $@ -lm -pthread
FUZZ_INPUTS = $(wildcard tests/fuzz/corpus/* tests/fuzz/regressions/*)

# ---- fuzzing: the differential mode and the dead-handle sweep ----
# fuzz_replay --diff runs each input on the reference path and on every fast path here (1 and 2
# threads), comparing statuses and values (tests/fuzz/fuzz_api.c says how); test_dead calls every
# public function that takes a handle with a dead one (its table is checked against genie.h).
# `make fuzz-diff` fuzzes the differential mode for FUZZ_SECONDS (libFuzzer, clang, ASan + UBSan).
.PHONY: fuzz-diff
FUZZ_DIFF_INPUTS = $(wildcard tests/fuzz/corpus_diff/* tests/fuzz/regressions_diff/*)
$(BUILD)/test_dead: tests/unit/test_dead.c genie.h $(BUILD)/impl.o | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) $< $(LINK_IMPL) -o $@ -lm -pthread
build-fuzz/fuzz_diff: tests/fuzz/fuzz_api.c genie.h
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -DFZ_DIFF_DEFAULT=1 -I. $< -o $@ -lm -pthread
fuzz-diff: build-fuzz/fuzz_diff ## libFuzzer on the differential mode (reference against every fast path) for FUZZ_SECONDS
	@mkdir -p build-fuzz/corpus_diff
	@rm -f build-fuzz/crash-* build-fuzz/leak-* build-fuzz/timeout-* build-fuzz/oom-*
	@echo "fuzz_diff: $(FUZZ_SECONDS) s (log: build-fuzz/fuzz_diff.log)"
	@if $(FUZZ_ENV) build-fuzz/fuzz_diff -max_total_time=$(FUZZ_SECONDS) -timeout=30 -rss_limit_mb=2048 -max_len=2048 \
	  -artifact_prefix=build-fuzz/ -print_final_stats=1 build-fuzz/corpus_diff tests/fuzz/corpus_diff >build-fuzz/fuzz_diff.log 2>&1; \
	then grep -h '^Done\|^stat::number_of_executed' build-fuzz/fuzz_diff.log; \
	else tail -n 60 build-fuzz/fuzz_diff.log; echo "fuzz_diff FAILED (save the input under tests/fuzz/regressions_diff/):"; \
	  ls build-fuzz/crash-* build-fuzz/timeout-* build-fuzz/oom-* build-fuzz/leak-* 2>/dev/null; exit 1; fi

# ---- fuzzing: libFuzzer (clang) with ASan + UBSan, no recovery ----
# `make fuzz` runs tests/fuzz/fuzz_api.c for FUZZ_SECONDS over a working corpus seeded from
# tests/fuzz/corpus; a crash stops it, leaves its input in build-fuzz/ and fails the target
# (add the input to tests/fuzz/regressions and a case to tests/unit/test_robust.c).
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_FLAGS    = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_ENV      = ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
build-fuzz/fuzz_api: tests/fuzz/fuzz_api.c genie.h
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -I. $< -o $@ -lm -pthread
# libFuzzer's log goes to build-fuzz/fuzz.log; on a failure the target prints its tail, then
# the lines that say what broke, then the failing input in hex (a CI log shows only its end).
fuzz: build-fuzz/fuzz_api $(BUILD)/fuzz_safetensors ## libFuzzer on the API and the safetensors reader, FUZZ_SECONDS each
	@mkdir -p build-fuzz/corpus
	@rm -f build-fuzz/crash-* build-fuzz/leak-* build-fuzz/timeout-* build-fuzz/oom-*
	@echo "fuzz_api: $(FUZZ_SECONDS) s from a fresh seed (log: build-fuzz/fuzz.log)"
	@if $(FUZZ_ENV) build-fuzz/fuzz_api -max_total_time=$(FUZZ_SECONDS) -timeout=30 -rss_limit_mb=2048 \
	  -artifact_prefix=build-fuzz/ -print_final_stats=1 build-fuzz/corpus tests/fuzz/corpus >build-fuzz/fuzz.log 2>&1; \
	then grep -h '^INFO: Seed\|^Done\|^stat::number_of_executed' build-fuzz/fuzz.log; \
	else tail -n 40 build-fuzz/fuzz.log; echo "fuzz_api FAILED; what broke:"; \
	  grep -h -m8 'INFO: Seed\|contract broken\|Assertion\|ERROR\|runtime error\|leaked\|SUMMARY' build-fuzz/fuzz.log; \
	  grep -h -m8 ' in .*\(genie\.h\|fuzz_api\.c\):' build-fuzz/fuzz.log | sed 's/ (BuildId.*//'; \
	  for f in build-fuzz/crash-* build-fuzz/leak-* build-fuzz/timeout-* build-fuzz/oom-*; do if [ -f "$$f" ]; then \
	    echo "failing input $$f, hex (save it under tests/fuzz/regressions/):"; od -An -tx1 -v "$$f" | tr -d ' \n'; echo; fi; done; \
	  exit 1; fi
	@$(MAKE) --no-print-directory fuzz-safetensors
	@$(MAKE) --no-print-directory fuzz-remote
	@$(MAKE) --no-print-directory fuzz-gguf

# genie.h compiles cleanly as C99 and C++11 with every compiler here
compile-checks: | $(BUILD) ## genie.h as C99 and C++11 with every compiler here (and mingw-w64)
	@printf '#define GENIE_IMPLEMENTATION\n#include "genie.h"\nint main(void){return 0;}\n' > $(BUILD)/cc_check.c
	@cp $(BUILD)/cc_check.c $(BUILD)/cc_check.cpp
	@for c in gcc clang; do if command -v $$c >/dev/null; then \
	  $$c -std=c99 $(WARN) -I. -fsyntax-only $(BUILD)/cc_check.c && echo "  compile: $$c -std=c99 ok"; fi; done
	@for c in g++ clang++; do if command -v $$c >/dev/null; then \
	  $$c -std=c++11 $(WARN) -I. -fsyntax-only $(BUILD)/cc_check.cpp && echo "  compile: $$c -std=c++11 ok"; fi; done
	@$(CC) -std=c99 $(WARN) -DGENIE_NO_THREADS -I. -fsyntax-only $(BUILD)/cc_check.c && echo "  compile: $(CC) -std=c99 -DGENIE_NO_THREADS ok"
	@$(CXX) -std=c++11 -O2 $(WARN) -I. -c $(BUILD)/cc_check.cpp -o $(BUILD)/cc_check_cxx.o && echo "  compile: $(CXX) -std=c++11 -O2 (the implementation as C++, optimized) ok"
	@if command -v x86_64-w64-mingw32-gcc >/dev/null; then \
	  printf '#define GENIE_IMPLEMENTATION\n#include "genie.h"\n#include <intrin.h>\nint main(void){return 0;}\n' > $(BUILD)/cc_check_win.c && \
	  x86_64-w64-mingw32-gcc -std=c99 -O2 $(WARN) -I. -c $(BUILD)/cc_check_win.c -o $(BUILD)/cc_check_win.o && \
	  echo "  compile: x86_64-w64-mingw32-gcc (Windows, Win32 threads, <intrin.h> after genie) ok"; \
	else echo "  skip: Windows cross-compile (gcc-mingw-w64-x86-64 not installed)"; fi

# ---- the test tiers ----
# make test: the quick tier, every suite in minutes (fewer random programs, the kernel suites'
# short forms, the PyTorch bridge without the operator database, no sanitizers); make test-full:
# every suite at full size (CI's last step); make check: everything CI runs. The test programs are
# built first on every core, then the tests run one after another. The closing line of both tiers
# is "N passed, N failed[, N skipped]" (test_main's counts plus the bridge suite's).
TEST_BINS = $(BUILD)/test_main $(BUILD)/test_alloc $(BUILD)/test_backend $(BUILD)/test_robust $(BUILD)/test_lazy $(BUILD)/test_dead $(BUILD)/fuzz_replay \
            $(BUILD)/fuzz_remote_replay $(BUILD)/test_gguf $(BUILD)/fuzz_gguf_replay $(BUILD)/test_amx \
            $(BUILD)/genie.pc $(addprefix $(BUILD)/,$(EXAMPLES))
JOBS_FLAG = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
test-build: $(TEST_BINS) ## build the test programs and examples (make test does, on every core)
# $(call run_tests,TEST_MAIN_ENV,BACKEND_SUITES): the body of both tiers; BACKEND_SUITES runs the
# optional backends' suites (the PyTorch bridge and the CUDA backend's NVRTC compile checks) and
# leaves the bridge's counts in $(BUILD)/torch_counts
define run_tests
	@$(MAKE) --no-print-directory $(JOBS_FLAG) test-build
	@$(2)
	@for e in $(EXAMPLES); do (cd $(BUILD) && ./$$e >/dev/null) || { echo "FAIL example $$e"; exit 1; }; \
	  echo "  example $$e ok"; done
	$(BUILD)/test_alloc
	$(BUILD)/test_backend
	$(BUILD)/test_robust
	$(BUILD)/test_lazy
	$(BUILD)/test_dead genie.h
	tools/check_contents.sh genie.h
	$(BUILD)/fuzz_replay $(FUZZ_INPUTS) --diff $(FUZZ_DIFF_INPUTS)
	$(BUILD)/fuzz_remote_replay $(REMOTE_FUZZ_INPUTS)
	GGUF_PYTHON=$(VENV)/bin/python $(BUILD)/test_gguf $(BUILD)/gguf_data
	$(BUILD)/fuzz_gguf_replay $(GGUF_FUZZ_INPUTS)
	$(BUILD)/test_amx && GENIE_NO_AMX_PERM=1 $(BUILD)/test_amx
	@{ $(1) GENIE_PC_FILE=$(BUILD)/genie.pc $(BUILD)/test_main; echo $$? > $(BUILD)/test_main.rc; } | \
	  awk -v counts=$(BUILD)/torch_counts -v rcfile=$(BUILD)/test_main.rc -f tests/torch/summary.awk
endef
QUICK_BACKENDS = echo "  not in the quick tier: the PyTorch bridge (make test-torch) and the CUDA backend's suite \
  (make cuda-suite); make test-full and make check run them"; echo "0 0 0" > $(BUILD)/torch_counts
FULL_BACKENDS  = $(MAKE) --no-print-directory torch-suite && $(MAKE) --no-print-directory cuda-suite CUDA_SUITE_BUILD=cuda
test: ## the quick tier: every suite of the core, shorter (about 3 minutes on 2 cores)
	$(call run_tests,GENIE_TEST_QUICK=1 GENIE_GEMM_QUICK=1,$(QUICK_BACKENDS))
test-full: ## every suite at full size, the PyTorch bridge (its operator database too) and the CUDA backend's (CI's last step)
	$(call run_tests,,$(FULL_BACKENDS))

# everything CI runs, each step timed, ending with test-full's summary line. The matrix runs its
# cells side by side itself; the builds after it take one job a core.
CHECK_STEP = t=$$(date +%s); echo "== make check: $(1)"; $(2) && echo "  check step: $(1) took $$(( $$(date +%s) - t )) s"
check: | $(BUILD) ## everything CI runs: compile checks, the build matrix, asan, valgrind, a fuzz smoke, test-full
	@$(call CHECK_STEP,compile-checks,$(MAKE) --no-print-directory compile-checks)
	@$(call CHECK_STEP,benches,$(MAKE) --no-print-directory $(JOBS_FLAG) benches)
	@$(call CHECK_STEP,matrix,env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL tests/matrix.sh)
	@$(call CHECK_STEP,asan,$(MAKE) --no-print-directory $(JOBS_FLAG) asan)
	@$(call CHECK_STEP,valgrind,$(MAKE) --no-print-directory $(JOBS_FLAG) valgrind)
	@if printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { (void)d; (void)n; return 0; }\n' | \
	   $(FUZZ_CC) -fsanitize=fuzzer -x c - -o $(BUILD)/fuzz_probe >/dev/null 2>&1; then \
	  $(call CHECK_STEP,fuzz,$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)); \
	else echo "skip: make fuzz ($(FUZZ_CC)'s libFuzzer does not link here: install clang / libclang-rt-dev)"; fi
	@$(call CHECK_STEP,test-remote,$(MAKE) --no-print-directory test-remote)
	@$(call CHECK_STEP,test-torch-remote,$(MAKE) --no-print-directory test-torch-remote)
	@$(call CHECK_STEP,test-remote-netns,$(MAKE) --no-print-directory test-remote-netns)
	@$(call CHECK_STEP,test-gguf-llm-remote,$(MAKE) --no-print-directory test-gguf-llm-remote)
	@$(call CHECK_STEP,check-torch,$(MAKE) --no-print-directory check-torch)
	@$(MAKE) --no-print-directory test-full

# the pkg-config file, with the version of genie.h (make install writes it with PREFIX)
$(BUILD)/genie.pc: genie.pc.in genie.h | $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' genie.pc.in > $@

# ---- the PyTorch device (genie_torch_bridge.c is C++ by necessity: ATen is C++) ----
# `make torch PYTHON=...` builds against that Python's torch (headers and libraries from
# torch.utils.cpp_extension, tools/torch_paths.py) into build/torch-<version>/libgenie_torch.so,
# so torch versions coexist (genie_torch.py loads the one matching the torch it runs under), and
# copies it to build/libgenie_torch.so. Torch's headers are -isystem: only the bridge's warnings show.
TORCH_LIBS = -ltorch -ltorch_cpu -lc10
torch: | $(BUILD) ## build the PyTorch device's bridge against PYTHON's torch (build/torch-VERSION/)
	@set -e; cfg=$$($(PYTHON) tools/torch_paths.py 2>/dev/null) || \
	  { $(PYTHON) tools/torch_paths.py 2>&1 | tail -1; exit 1; }; eval "$$cfg"; \
	out=$(BUILD)/torch-$$TORCH_VER; mkdir -p $$out; \
	if [ ! -f $$out/libgenie_torch.so ] || [ genie_torch_bridge.c -nt $$out/libgenie_torch.so ] || \
	   [ genie.h -nt $$out/libgenie_torch.so ]; then \
	  echo "  torch $$TORCH_VER: $$out/libgenie_torch.so"; \
	  $(CXX) -x c++ -std=$$TORCH_CXXSTD -O2 -g -fPIC -shared -Wall -Wextra -D_GLIBCXX_USE_CXX11_ABI=$$TORCH_ABI \
	    $$(for d in $$TORCH_INCS; do [ $$d = /usr/include ] || printf -- '-isystem %s ' $$d; done) \
	    -I. genie_torch_bridge.c -o $$out/libgenie_torch.so.tmp \
	    $$(for d in $$TORCH_LIBDIRS; do printf -- '-L%s -Wl,-rpath,%s ' $$d $$d; done) $(TORCH_LIBS); \
	  mv $$out/libgenie_torch.so.tmp $$out/libgenie_torch.so; fi; \
	cp $$out/libgenie_torch.so $(BUILD)/libgenie_torch.so

HAVE_TORCH = $(PYTHON) tools/torch_paths.py >/dev/null 2>&1
# the bridge suite inside make test-full (TORCH_SUITE_ARGS=--quick: no operator database): writes its counts for the closing summary
# line (a failure to build or run counts as a failure; no PyTorch here: one clear skip line)
torch-suite: | $(BUILD) ## the PyTorch bridge suite with its counts for the summary line (skips without torch)
	@rm -f $(BUILD)/torch_counts
	@if $(HAVE_TORCH); then \
	  if $(MAKE) --no-print-directory torch; then \
	    $(PYTHON) tests/torch/test_bridge.py $(TORCH_SUITE_ARGS) --counts $(BUILD)/torch_counts || true; fi; \
	  [ -s $(BUILD)/torch_counts ] || { echo "FAIL PyTorch bridge suite did not run"; echo "0 1 0" > $(BUILD)/torch_counts; }; \
	else echo "skip: PyTorch bridge tests ($(PYTHON) cannot import torch, or libtorch-dev is missing)"; \
	  echo "0 0 1" > $(BUILD)/torch_counts; fi
# the bridge suite alone (fails on any failure); --quick leaves out the operator database
test-torch: torch ## the PyTorch bridge suite alone
	$(PYTHON) tests/torch/test_bridge.py
# PyTorch's operator database on the device, every float32 operator and sample (~30 s)
test-torch-opdb: torch ## PyTorch's operator database on the device (every float32 operator)
	$(PYTHON) tests/torch/opdb.py --all
# the tutorial: an MLP and a TransformerEncoderLayer on the device, compared with CPU
example-torch: torch ## the PyTorch device tutorial (an MLP and a TransformerEncoderLayer)
	$(PYTHON) examples/torch/tutorial.py
# per-operation overhead seen from Python: x + y on the device vs CPU eager
bench-torch: torch ## per-operation overhead from Python: the device vs CPU eager
	$(PYTHON) bench/torch_overhead.py

# ---- the PyTorch device on torch 2.x (a venv with the torch pinned in tools/requirements-torch2.txt) ----
# `make venv` creates $(VENV) with that torch and what the tests use (CI: .ci/run does, CI=true).
# `make check-torch` runs the slower device tests on both torch versions: Debian's 1.13 through
# $(PYTHON) and torch 2.x through $(VENV) (one skip line each where absent).
TORCH2_PY = $(VENV)/bin/python
venv: ## create $(VENV) with the torch 2.x of tools/requirements-torch2.txt (and gguf, transformers, pytest)
	@[ -x $(TORCH2_PY) ] || python3 -m venv $(VENV)
	$(TORCH2_PY) -m pip install -q -r tools/requirements-torch2.txt
	@$(TORCH2_PY) -c "import torch; print('  venv $(VENV): torch', torch.__version__)"
torch2: ## build the bridge against the venv's torch 2.x
	@$(MAKE) --no-print-directory torch PYTHON=$(TORCH2_PY)
# the bridge's suite and the device tests on torch 2.x (tests/torch/test_torch2.py, test_seeds.py)
test-torch2: ## the bridge and device tests on torch 2.x (skips without the venv)
	@if [ -x $(TORCH2_PY) ] && $(HAVE_TORCH2); then $(MAKE) --no-print-directory torch2 && \
	  $(TORCH2_PY) tests/torch/test_bridge.py --quick && $(TORCH2_PY) tests/torch/test_torch2.py && \
	  $(TORCH2_PY) -m pytest -q -p no:cacheprovider tests/torch/test_seeds.py; \
	else echo "skip: torch 2.x device tests ($(VENV) has no torch: make venv)"; fi
HAVE_TORCH2 = $(TORCH2_PY) tools/torch_paths.py >/dev/null 2>&1
# the device tests that need real models and PyTorch's operator database, both torch versions
check-torch: test-torch2 ## the device on both torch versions: real models and PyTorch's operator database
	@if $(HAVE_TORCH); then $(MAKE) --no-print-directory torch && $(PYTHON) tests/torch/test_torch2.py && \
	  $(PYTHON) tests/torch/opdb.py --all; \
	else echo "skip: torch 1.13 device checks ($(PYTHON) cannot import torch, or libtorch-dev is missing)"; fi
	@if [ -x $(TORCH2_PY) ] && $(HAVE_TORCH2); then $(TORCH2_PY) tests/torch/test_models.py && \
	  $(TORCH2_PY) tests/torch/opdb.py --all; \
	else echo "skip: torch 2.x model and operator-database checks ($(VENV) has no torch: make venv)"; fi
.PHONY: venv torch2 test-torch2 check-torch

# ---- the CUDA backend (genie_cuda.c: plain C against cudart, cuBLAS and NVRTC) ----
# genie_cuda.c is genie's implementation unit with the backend: link genie_cuda.o instead of
# defining GENIE_IMPLEMENTATION. `make cuda CUDA=/opt/cuda` points at another toolkit.
CUDA      ?= /usr/local/cuda
CUDA_INC   = -isystem $(CUDA)/include
CUDA_LIBS  = -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64 -lcudart -lcublas -lnvrtc
HAVE_CUDA  = [ -f $(CUDA)/include/cuda_runtime_api.h ] && [ -f $(CUDA)/include/nvrtc.h ]
cuda: $(BUILD)/genie_cuda.o $(BUILD)/test_cuda $(BUILD)/bench_cuda ## build the CUDA backend, its tests and bench
$(BUILD)/genie_cuda.o: genie_cuda.c genie_cuda.h genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $(CUDA_INC) -c $< -o $@
$(BUILD)/test_cuda: tests/unit/test_cuda.c genie_cuda.c genie_cuda.h genie.h tests/programs/prog.c tests/programs/prog.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $(CUDA_INC) tests/unit/test_cuda.c tests/programs/prog.c -o $@ $(CUDA_LIBS) -lm -pthread
# the benchmark links genie_cuda.o like an application would (the link check of `make cuda`)
$(BUILD)/bench_cuda: bench/cuda.c bench/bench_util.h genie_cuda.h $(BUILD)/genie_cuda.o | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. $(CUDA_INC) bench/cuda.c $(BUILD)/genie_cuda.o -o $@ $(CUDA_LIBS) -lm -pthread
# inside `make test-full`: no GPU needed (NVRTC compiles every generated kernel; selecting "cuda"
# without a device is GENIE_ERR_BACKEND); no toolkit: one clear skip line
# CUDA_SUITE_BUILD: what it builds first (default: genie_cuda.o and the bench too, the link check of
# an application; $(BUILD)/test_cuda: the test alone)
CUDA_SUITE_BUILD ?= cuda
cuda-suite: | $(BUILD) ## the CUDA backend's no-GPU tests: NVRTC compiles every kernel (skips without a toolkit)
	@if $(HAVE_CUDA); then $(MAKE) --no-print-directory $(CUDA_SUITE_BUILD) && $(BUILD)/test_cuda; \
	else echo "skip: CUDA backend tests ($(CUDA)/include has no cuda_runtime_api.h or nvrtc.h; set CUDA=)"; fi
# on a machine with an NVIDIA GPU: every case and the property programs on the GPU vs the CPU
test-cuda: cuda ## the CUDA backend on a GPU against the CPU
	$(BUILD)/test_cuda --gpu
# genie on the GPU beside PyTorch on the GPU, in the same run (TORCH_PY: a python with CUDA torch)
TORCH_PY ?= /opt/torch/.venv/bin/python3
bench-cuda: cuda ## genie on the GPU beside cuBLAS and PyTorch (TORCH_PY=)
	@if [ -x $(TORCH_PY) ]; then $(BUILD)/bench_cuda $$($(TORCH_PY) bench/cuda_torch.py); \
	else echo "skip: PyTorch peer ($(TORCH_PY) missing; TORCH_PY=...)"; $(BUILD)/bench_cuda; fi

# ---- sanitizers and valgrind ----
# test_main under ASan and under valgrind runs in SHARDS processes side by side (tests/shards.sh:
# each suite runs once, in the first process that reaches it), one a core: valgrind runs a
# process's threads one at a time, and most suites run on one thread
SHARDS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
asan: | $(BUILD) ## examples and every test under AddressSanitizer + UBSan (build-asan/)
	$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g $(SAN)" all
	@for e in $(EXAMPLES); do (cd build-asan && ./$$e >/dev/null) || { echo "FAIL asan example $$e"; exit 1; }; \
	  echo "  asan example $$e ok"; done
	build-asan/test_alloc
	build-asan/test_lazy
	ASAN_OPTIONS=allocator_may_return_null=1 build-asan/test_robust
	ASAN_OPTIONS=allocator_may_return_null=1 build-asan/test_dead genie.h
	ASAN_OPTIONS=allocator_may_return_null=1 build-asan/fuzz_replay $(FUZZ_INPUTS) --diff $(FUZZ_DIFF_INPUTS)
	GENIE_TEST_TIMES=1 GENIE_FILES_ONE_MODE=1 tests/shards.sh $(SHARDS) build-asan/test_main.log build-asan/test_main

valgrind: examples $(BUILD)/test_main ## examples and test_main's short forms under valgrind
	@command -v valgrind >/dev/null || { echo "skip: valgrind not installed"; exit 0; }; \
	for e in $(EXAMPLES); do (cd $(BUILD) && valgrind -q --error-exitcode=1 --leak-check=full \
	  --errors-for-leak-kinds=all ./$$e >/dev/null) || { echo "FAIL valgrind $$e"; exit 1; }; \
	  echo "  valgrind example $$e clean"; done; \
	GENIE_TEST_TIMES=1 GENIE_NO_TORCH=1 GENIE_GEMM_QUICK=1 GENIE_FILES_ONE_MODE=1 tests/shards.sh $(SHARDS) $(BUILD)/valgrind.log \
	  valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=all $(BUILD)/test_main 20000 || exit 1; \
	echo "  valgrind test_main (unit tests and program files) clean"

# ---- the build matrix (tests/matrix.sh; .ci/run runs it): gcc, clang (C99, C11), g++, clang++
# (C++11, C++17) at -O0 and -O2, -DGENIE_NO_THREADS, ThreadSanitizer, clang's ASan+UBSan, the
# Windows cross-build with mingw-w64 run under wine; MATRIX_JOBS cells at once (default: cores) ----
matrix: ## compilers x standards x levels, no threads, TSan, clang ASan, mingw under wine
	tests/matrix.sh

# ---- the full property runs against PyTorch ----
PROPS_N ?= 10000
PROPS_SEED ?= 1
props: $(BUILD)/test_main ## PROPS_N random programs of each kind against PyTorch
	$(PYTHON) tests/programs/gen_props.py views $(PROPS_N) $(PROPS_SEED) $(BUILD)/props_views.txt
	$(PYTHON) tests/programs/gen_props.py graphs $(PROPS_N) $(PROPS_SEED) $(BUILD)/props_graphs.txt
	$(PYTHON) tests/programs/gen_props.py ops $(PROPS_N) $(PROPS_SEED) $(BUILD)/props_ops.txt
	$(BUILD)/test_main --files $(BUILD)/props_views.txt $(BUILD)/props_graphs.txt $(BUILD)/props_ops.txt

# differential testing at scale: DIFF_N random programs (split evenly over views, graphs and ops)
# against PyTorch, on DIFF_JOBS workers (default: every core), each worker its own seed ranges.
# Prints the programs, checks and mismatches; keeps a failing chunk in $(BUILD)/diff_test.
DIFF_N    ?= 100000
DIFF_SEED ?= 100000
DIFF_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
DIFF_MODE ?= fused
diff-test: $(BUILD)/test_main ## DIFF_N random programs against PyTorch on every core
	GENIE_FILES_MODE=$(DIFF_MODE) tests/diff_test.sh $(BUILD)/test_main $(DIFF_N) $(DIFF_SEED) $(DIFF_JOBS) $(BUILD)/diff_test

# regenerate the checked-in expectations from PyTorch
cases: ## regenerate the checked-in expectations in tests/data from PyTorch
	$(PYTHON) tests/programs/gen_cases.py tests/data/cases.txt
	$(PYTHON) tests/programs/gen_llmops.py tests/data/llmops.txt
	$(PYTHON) tests/programs/gen_props.py views 400 1 tests/data/props_views.txt
	$(PYTHON) tests/programs/gen_props.py graphs 300 1 tests/data/props_graphs.txt
	$(PYTHON) tests/programs/gen_props.py ops 300 1 tests/data/props_ops.txt

# ---- benchmarks ----
# genie beside its peers in the same run: PyTorch eager (ATen from C++, Debian's libtorch-dev) and,
# for matrix products, OpenBLAS (libopenblas-dev); a peer that is not installed is skipped.
# The environment's OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE pick a slow kernel: the benchmark
# processes run without them. OpenBLAS 0.3.21 does not know the newest CPUs either (Emerald
# Rapids, model 0xCF, falls back to its SSE3 "Prescott" kernel, 5x slower), so OPENBLAS_CORE
# names its best kernel this CPU runs (`make bench OPENBLAS_CORE=` leaves the choice to OpenBLAS).
# `make bench-gemm BENCH_CASES="sq conv"` picks cases by name; BENCH_QUICK=1 runs fewer, shorter.
ATEN_H     = $(wildcard /usr/include/ATen/ATen.h)
ATEN_LIBS  = -ltorch -ltorch_cpu -lc10
OPENBLAS_H = $(firstword $(wildcard /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h /usr/include/openblas/cblas.h))
OPENBLAS   = $(if $(OPENBLAS_H),-DGB_OPENBLAS -I$(dir $(OPENBLAS_H)) -lopenblas)
OPENBLAS_CORE ?= $(shell grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo SkylakeX || \
                   { grep -qw avx2 /proc/cpuinfo 2>/dev/null && echo Haswell; })
BENCH_ENV  = env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $(if $(OPENBLAS_CORE),OPENBLAS_CORETYPE=$(OPENBLAS_CORE))
BENCH_CASES ?=

# One build rule for every bench: bench/NAME.c -> $(BUILD)/bench_NAME (BENCH_LIBS per target) and
# bench/NAME_aten.cpp -> $(BUILD)/bench_NAME_aten (its PyTorch eager peer; about a minute to
# compile, so built only when changed).
$(BUILD)/bench_%: bench/%.c genie.h bench/bench_util.h | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. $< -o $@ -lm -pthread $(BENCH_LIBS)
$(BUILD)/bench_%_aten: bench/%_aten.cpp bench/bench_util.h | $(BUILD)
	$(CXX) -std=c++17 -O2 -I/usr/include/torch/csrc/api/include $< -o $@ $(ATEN_LIBS) $(ATEN_EXTRA)
$(BUILD)/bench_gemm: BENCH_LIBS = $(OPENBLAS)
$(BUILD)/bench_gemm $(BUILD)/bench_gemm_aten: bench/gemm_cases.h
$(BUILD)/bench_llm: bench/llm_weights.h bench/copy_bw.h
$(BUILD)/bench_tape_aten: ATEN_EXTRA = -lopenblas
# every C bench built, none run (make check: a bench that stops compiling shows in CI); bench_cuda
# and bench_remote need their backends and build with make bench-cuda / bench-remote
BENCHES_C = $(patsubst bench/%.c,$(BUILD)/bench_%,$(filter-out bench/cuda.c bench/remote.c,$(wildcard bench/*.c)))
benches: $(BENCHES_C) ## build every C bench (none run)
# $(call bench_run,NAME,PEER_ARGS,ARGS): runs bench_NAME ARGS, beside its ATen peer's numbers
# (bench_NAME_aten PEER_ARGS, passed as arguments) where ATen is installed
define bench_run
	@if [ -n "$(ATEN_H)" ] && [ -f bench/$(1)_aten.cpp ]; then \
	  $(MAKE) --no-print-directory $(BUILD)/bench_$(1)_aten && \
	  $(BENCH_ENV) $(BUILD)/bench_$(1) $$($(BENCH_ENV) $(BUILD)/bench_$(1)_aten $(2)) $(3); \
	else [ ! -f bench/$(1)_aten.cpp ] || echo "skip: PyTorch eager peer of bench/$(1).c (/usr/include/ATen/ATen.h missing)"; \
	  $(BENCH_ENV) $(BUILD)/bench_$(1) $(3); fi
endef

bench: bench-views bench-mlp bench-eltwise bench-rowwise bench-gemm bench-tape bench-attention bench-llm bench-gguf ## every CPU bench: views, mlp, eltwise, rowwise, gemm, tape, attention, llm, gguf
bench-views: $(BUILD)/bench_views ## views and copies beside PyTorch eager
	$(call bench_run,views)
# ---- bench-mlp's PyTorch eager peer (bench/mlp_step_torch.py): torch 2.x from $(VENV), else $(PYTHON)
MLP_PEER_PY = $(if $(wildcard $(TORCH2_PY)),$(TORCH2_PY),$(PYTHON))
bench-mlp: $(BUILD)/bench_mlp_step ## an MLP training-like step: capture, plan and run, beside PyTorch eager
	$(BENCH_ENV) $(BUILD)/bench_mlp_step $$($(MLP_PEER_PY) bench/mlp_step_torch.py 2>/dev/null || echo torch=none)
# ---- end bench-mlp
bench-tape: $(BUILD)/bench_tape ## the 8-op chain, tiny nodes and an encoder block beside PyTorch eager
	$(call bench_run,tape,$(BUILD)/tape_block.bin)
bench-eltwise: $(BUILD)/bench_eltwise ## elementwise kernels on every CPU path against the reference
	$(call bench_run,eltwise)
# ---- bench-pool: the thread pool's cost per job beside the caller alone (bench/pool.c)
bench-pool: $(BUILD)/bench_pool ## the thread pool's cost per job (2 shares) beside 1 thread
	$(call bench_run,pool)
.PHONY: bench-pool
# ---- end bench-pool
# ---- bench-qdecode-group: Q4_0 decode products on 1 and 2 threads: each in its own pool job, joined
# in one pool job, and as one product over their concatenated rows (bench/qdecode_group.c)
bench-qdecode-group: $(BUILD)/bench_qdecode_group ## Q4_0 decode: q,k,v and gate,up apart, joined in one job, and as one concatenated product, 1 and 2 threads
	$(BENCH_ENV) $(BUILD)/bench_qdecode_group
.PHONY: bench-qdecode-group
# ---- end bench-qdecode-group
bench-attention: $(BUILD)/bench_attention ## fused attention vs the unfused composition, beside ATen
	$(call bench_run,attention)
bench-rowwise: $(BUILD)/bench_rowwise ## reductions, softmax, layer_norm beside memcpy
	$(call bench_run,rowwise)
bench-gemm: $(BUILD)/bench_gemm ## matrix products beside OpenBLAS and PyTorch (BENCH_CASES=, BENCH_QUICK=1)
	$(call bench_run,gemm,$(BENCH_CASES),$(BENCH_CASES))

# Saved runs for docs/PERFORMANCE.md: `make bench-save` runs BENCH_SAVE (the quicker benches) and
# writes each one's output to bench/results/MACHINE-NAME.txt under a header naming the date, CPU,
# compiler, commit and command; `make perf-report` regenerates docs/PERFORMANCE.md from every saved
# file (tools/perf_report.py). MACHINE names the machine kind (default: from the CPU's model name).
BENCH_SAVE ?= eltwise rowwise views gemm
MACHINE    ?= $(shell sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo 2>/dev/null | head -1 | tr 'A-Z' 'a-z' | \
                sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$$//')-$(NPROC)core$(shell grep -qw avx512f /proc/cpuinfo \
                2>/dev/null && echo -avx512 || { grep -qw avx2 /proc/cpuinfo 2>/dev/null && echo -avx2; })
bench-save: ## run BENCH_SAVE and save each output in bench/results/ for perf-report
	@mkdir -p bench/results
	@for b in $(BENCH_SAVE); do f=bench/results/$(MACHINE)-$$b.txt; \
	  { echo "# machine: $(MACHINE)"; \
	    echo "# cpu: $$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1), $(NPROC) cores"; \
	    echo "# compiler: $$($(CC) --version | head -1)"; \
	    echo "# commit: $$(git rev-parse --short HEAD 2>/dev/null)$$(git diff --quiet HEAD -- genie.h bench 2>/dev/null || echo +local)"; \
	    echo "# date: $$(date -u +%Y-%m-%d)"; \
	    echo "# load: $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) (1, 5, 15 min, before the run)"; \
	    echo "# command: make bench-$$b$(if $(BENCH_QUICK), BENCH_QUICK=$(BENCH_QUICK))"; } > $$f.tmp && \
	  $(MAKE) --no-print-directory -s bench-$$b >> $$f.tmp 2>&1 && mv $$f.tmp $$f && echo "  saved $$f" || \
	  { echo "FAIL bench-$$b (output: $$f.tmp)"; exit 1; }; done
perf-report: ## regenerate docs/PERFORMANCE.md from bench/results/*.txt
	$(PYTHON) tools/perf_report.py bench/results/*.txt > docs/PERFORMANCE.md

# a GPT-2-small-sized decoder: prefill and decode tokens/s on 1 and 2 threads beside PyTorch eager
# (bench/llm_torch.py, same weights and math; threads pinned: torch's count and OPENBLAS_NUM_THREADS,
# on 2 cores PyTorch's best of the splits 1x2, 2x1, 2x2) and the decode bandwidth bound.
# LLM_REPS=1 runs each measure once (default 3, best kept: the machines are noisy).
LLM_REPS ?= 3
bench-llm: $(BUILD)/bench_llm ## a GPT-2-small-sized decoder's tokens/s beside PyTorch eager
	@rm -f $(BUILD)/llm_torch.txt
	@if $(PYTHON) -c "import torch, numpy" 2>/dev/null; then \
	  for s in 1x1 1x2 2x1 2x2; do t=$${s%x*}; b=$${s#*x}; \
	    $(BENCH_ENV) OPENBLAS_NUM_THREADS=$$b OMP_NUM_THREADS=$$t $(PYTHON) bench/llm_torch.py $$t $(LLM_REPS) >> $(BUILD)/llm_torch.txt || exit 1; done; \
	else echo "skip: PyTorch eager peer of bench/llm.c ($(PYTHON) cannot import torch and numpy)"; fi
	$(BUILD)/bench_llm $(BUILD)/llm_torch.txt $(LLM_REPS)

# ---- install: the header and a pkg-config file ----
install: ## genie.h and genie.pc under PREFIX (default /usr/local)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 genie.h $(DESTDIR)$(PREFIX)/include/genie.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' genie.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/genie.pc
uninstall: ## remove what install wrote
	rm -f $(DESTDIR)$(PREFIX)/include/genie.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/genie.pc

clean: ## remove build, build-asan, build-fuzz
	rm -rf build build-asan build-fuzz

# ---- the safetensors tests alone (part of test_main too), on both read paths: mapped and GENIE_NO_MMAP ----
$(BUILD)/test_safetensors: tests/unit/test_safetensors.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -DST_STANDALONE -DGENIE_IMPLEMENTATION $< -o $@ -lm -pthread
$(BUILD)/test_safetensors_nommap: tests/unit/test_safetensors_nommap.c tests/unit/test_safetensors.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -DST_STANDALONE $< -o $@ -lm -pthread
test-safetensors: $(BUILD)/test_safetensors $(BUILD)/test_safetensors_nommap ## the safetensors tests alone, mapped and read
	$(BUILD)/test_safetensors
	$(BUILD)/test_safetensors_nommap
asan-safetensors: ## the safetensors tests under ASan + UBSan
	$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g $(SAN)" test-safetensors
valgrind-safetensors: $(BUILD)/test_safetensors $(BUILD)/test_safetensors_nommap ## the safetensors tests under valgrind
	valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=all $(BUILD)/test_safetensors
	valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=all $(BUILD)/test_safetensors_nommap

# ---- fuzzing the safetensors reader (libFuzzer: clang with libclang-rt, e.g. Debian's clang) ----
# Runs for FUZZ_SECONDS on the seed corpus (new inputs go to build/fuzz_corpus_safetensors); a
# crash is written to build/ as crash-*; make it a case in tests/unit/test_safetensors.c.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
$(BUILD)/fuzz_safetensors: tests/fuzz/fuzz_safetensors.c genie.h | $(BUILD)
	$(FUZZ_CC) -std=c99 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	  -DGENIE_NO_THREADS $(WARN) $< -o $@ -lm
fuzz-safetensors: $(BUILD)/fuzz_safetensors ## libFuzzer on the safetensors reader for FUZZ_SECONDS
	@mkdir -p $(BUILD)/fuzz_corpus_safetensors
	cd $(BUILD) && ./fuzz_safetensors -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
	  -dict=../tests/fuzz/safetensors.dict \
	  -print_final_stats=1 fuzz_corpus_safetensors ../tests/fuzz/corpus_safetensors

# ---- the remote backend (genie_remote.c, tools/genie_server.c over UCX + libsodium; docs/remote.md) ----
# genie_remote.c is genie's implementation unit with the "remote" backend: a program links
# build/genie_remote.o $(pkg-config --libs ucx libsodium) instead of defining GENIE_IMPLEMENTATION.
# Every target prints one skip line where pkg-config finds no ucx or libsodium.
REMOTE_PKGS   = ucx libsodium
HAVE_REMOTE   = pkg-config --exists $(REMOTE_PKGS)
REMOTE_CFLAGS = $(shell pkg-config --cflags $(REMOTE_PKGS) 2>/dev/null)
REMOTE_LIBS   = $(shell pkg-config --libs $(REMOTE_PKGS) 2>/dev/null) -lm -pthread
REMOTE_HDRS   = genie.h genie_remote.h genie_remote_proto.h genie_remote_ucx.h
REMOTE_ENV    = UCX_TLS=tcp UCX_NET_DEVICES=lo UCX_WARN_UNUSED_ENV_VARS=n
REMOTE_SKIP   = echo "skip: remote backend (pkg-config finds no ucx and libsodium: apt install libucx-dev libsodium-dev)"
.PHONY: remote test-remote bench-remote fuzz-remote
# REMOTE_SERVERS: build/genie-server, and build/genie-server-cuda (--backend cuda: genie_cuda.o
# inside) where the CUDA toolkit is found
REMOTE_SERVERS = $(BUILD)/genie-server $$($(HAVE_CUDA) && echo $(BUILD)/genie-server-cuda)
remote: ## the remote backend: build/genie_remote.o, build/genie-server (and build/genie-server-cuda with a CUDA toolkit)
	@if $(HAVE_REMOTE); then $(MAKE) --no-print-directory $(BUILD)/genie_remote.o $(REMOTE_SERVERS); else $(REMOTE_SKIP); fi
$(BUILD)/genie_remote.o: genie_remote.c $(REMOTE_HDRS) | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $(REMOTE_CFLAGS) -c $< -o $@
$(BUILD)/genie-server: tools/genie_server.c $(BUILD)/genie_remote.o $(REMOTE_HDRS) | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $(REMOTE_CFLAGS) $< $(BUILD)/genie_remote.o -o $@ $(REMOTE_LIBS)
$(BUILD)/genie-server-cuda: tools/genie_server.c $(BUILD)/genie_cuda.o genie_cuda.h $(REMOTE_HDRS) | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $(CUDA_INC) $(REMOTE_CFLAGS) -DGENIE_SERVER_CUDA $< $(BUILD)/genie_cuda.o -o $@ $(CUDA_LIBS) $(REMOTE_LIBS)
# a server of protocol version 12 (the last before this one): test_remote checks the client names the mismatch
$(BUILD)/genie-server-oldproto: tools/genie_server.c $(BUILD)/genie_remote.o $(REMOTE_HDRS) | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $(REMOTE_CFLAGS) -DGR_VERSION=12 $< $(BUILD)/genie_remote.o -o $@ $(REMOTE_LIBS)
$(BUILD)/test_remote: tests/unit/test_remote.c tests/programs/prog.c tests/programs/prog.h tests/programs/llama_decode.h $(BUILD)/genie_remote.o $(REMOTE_HDRS) | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $(REMOTE_CFLAGS) tests/unit/test_remote.c tests/programs/prog.c $(BUILD)/genie_remote.o -o $@ $(REMOTE_LIBS)
$(BUILD)/bench_remote: bench/remote.c bench/bench_util.h tests/programs/llama_decode.h $(BUILD)/genie_remote.o $(REMOTE_HDRS) | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. $(REMOTE_CFLAGS) $< $(BUILD)/genie_remote.o -o $@ $(REMOTE_LIBS)
# forks build/genie-server on 127.0.0.1 port 0 (slow-ish: in CI beside `make test`)
test-remote: ## the remote backend against a forked genie-server on loopback
	@if $(HAVE_REMOTE); then $(MAKE) --no-print-directory $(REMOTE_SERVERS) $(BUILD)/genie-server-oldproto $(BUILD)/test_remote && $(REMOTE_ENV) $(BUILD)/test_remote; \
	else $(REMOTE_SKIP); fi
bench-remote: ## remote vs local: round trips, PUT throughput vs raw UCX, an MLP step
	@if $(HAVE_REMOTE); then $(MAKE) --no-print-directory $(BUILD)/genie-server $(BUILD)/bench_remote && $(REMOTE_ENV) $(BUILD)/bench_remote; \
	else $(REMOTE_SKIP); fi
# the PyTorch device on the remote backend: the bridge built without genie's implementation
# (-DGENIE_TORCH_REMOTE), linked with genie_remote.c compiled position-independent, into
# build/torch-VER/libgenie_torch_remote.so (genie_torch.py loads it when GENIE_REMOTE is set).
# The compile line is `make torch`'s with those two differences.
$(BUILD)/genie_remote_pic.o: genie_remote.c $(REMOTE_HDRS) | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -fPIC -I. $(REMOTE_CFLAGS) -c $< -o $@
torch-remote: ## the PyTorch bridge with the remote backend (GENIE_REMOTE=host:port) against PYTHON's torch
	@if ! $(HAVE_REMOTE); then $(REMOTE_SKIP); exit 0; fi; \
	$(MAKE) --no-print-directory $(BUILD)/genie_remote_pic.o $(BUILD)/genie-server; \
	set -e; cfg=$$($(PYTHON) tools/torch_paths.py 2>/dev/null) || \
	  { $(PYTHON) tools/torch_paths.py 2>&1 | tail -1; exit 1; }; eval "$$cfg"; \
	out=$(BUILD)/torch-$$TORCH_VER; mkdir -p $$out; lib=$$out/libgenie_torch_remote.so; \
	if [ ! -f $$lib ] || [ genie_torch_bridge.c -nt $$lib ] || [ $(BUILD)/genie_remote_pic.o -nt $$lib ]; then \
	  echo "  torch $$TORCH_VER: $$lib"; \
	  $(CXX) -x c++ -std=$$TORCH_CXXSTD -O2 -g -fPIC -shared -Wall -Wextra -D_GLIBCXX_USE_CXX11_ABI=$$TORCH_ABI \
	    -DGENIE_TORCH_REMOTE $$(for d in $$TORCH_INCS; do [ $$d = /usr/include ] || printf -- '-isystem %s ' $$d; done) \
	    -I. genie_torch_bridge.c -x none $(BUILD)/genie_remote_pic.o -o $$lib.tmp \
	    $$(for d in $$TORCH_LIBDIRS; do printf -- '-L%s -Wl,-rpath,%s ' $$d $$d; done) $(TORCH_LIBS) $(REMOTE_LIBS); \
	  mv $$lib.tmp $$lib; fi
# the device's forward on a forked genie-server (both torch versions; skip lines without them)
test-torch-remote: ## a TransformerEncoderLayer's forward through GENIE_REMOTE, equal to CPU, the server's work table
	@if ! $(HAVE_REMOTE); then $(REMOTE_SKIP); exit 0; fi; \
	for py in $(PYTHON) $(TORCH2_PY); do \
	  if [ -x $$py ] && $$py tools/torch_paths.py >/dev/null 2>&1; then \
	    $(MAKE) --no-print-directory torch-remote PYTHON=$$py && $(REMOTE_ENV) $$py tests/torch/test_remote_device.py || exit 1; \
	  else echo "skip: the remote PyTorch device on $$py (no torch with C++ headers)"; fi; done
# a second host: genie-server in a network namespace behind a veth pair (root; a skip line otherwise)
test-remote-netns: ## the remote programs against a genie-server in another network namespace (veth)
	@if $(HAVE_REMOTE); then $(MAKE) --no-print-directory $(BUILD)/genie-server $(BUILD)/test_remote && tests/remote_netns.sh; \
	else $(REMOTE_SKIP); fi
.PHONY: torch-remote test-torch-remote test-remote-netns
# the protocol's decoders: libFuzzer (make fuzz) and a replay of their corpus in make test
# (pure C, no UCX needed)
REMOTE_FUZZ_INPUTS = $(wildcard tests/fuzz/corpus_remote/* tests/fuzz/regressions_remote/*)
$(BUILD)/fuzz_remote_replay: tests/fuzz/fuzz_remote.c genie_remote_proto.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. -DFUZZ_REMOTE_REPLAY $< -o $@
$(BUILD)/fuzz_remote: tests/fuzz/fuzz_remote.c genie_remote_proto.h | $(BUILD)
	$(FUZZ_CC) -std=c99 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	  $(WARN) -I. $< -o $@
fuzz-remote: $(BUILD)/fuzz_remote ## libFuzzer on the remote protocol decoders for FUZZ_SECONDS
	@mkdir -p $(BUILD)/fuzz_corpus_remote
	cd $(BUILD) && ./fuzz_remote -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
	  -print_final_stats=1 fuzz_corpus_remote ../tests/fuzz/corpus_remote

# ---- GGUF files and the block dtypes (>>gguf, >>quant) ----
# test_gguf writes its files with the Python gguf package (GGUF_PYTHON, default the shared venv;
# a skip line without it) into $(BUILD)/gguf_data; the fuzz harness's replay runs its seeds.
GGUF_FUZZ_INPUTS = $(wildcard tests/fuzz/corpus_gguf/*)
$(BUILD)/test_gguf: tests/unit/test_gguf.c tests/unit/testctx.h genie.h $(BUILD)/impl.o | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) $< $(LINK_IMPL) -o $@ -lm -pthread
$(BUILD)/fuzz_gguf_replay: tests/fuzz/fuzz_gguf.c genie.h $(BUILD)/impl.o | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -DFUZZ_REPLAY $< $(LINK_IMPL) -o $@ -lm -pthread
test-gguf: $(BUILD)/test_gguf $(BUILD)/fuzz_gguf_replay ## GGUF reading and the block dtypes' products against f64 references
	GGUF_PYTHON=$(VENV)/bin/python $(BUILD)/test_gguf $(BUILD)/gguf_data
	$(BUILD)/fuzz_gguf_replay $(GGUF_FUZZ_INPUTS)
asan-gguf: ## test-gguf under ASan + UBSan
	$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g $(SAN)" test-gguf
$(BUILD)/fuzz_gguf: tests/fuzz/fuzz_gguf.c genie.h | $(BUILD)
	$(FUZZ_CC) -std=c99 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	  -DGENIE_NO_THREADS $(WARN) $< -o $@ -lm
# the decode product [1, 4096] x [4096, 4096]^T per weight type beside the memory bound (weight
# bytes over the memcpy bandwidth, same run), the f32/bf16 paths, a [128, 4096] prefill (bench/gguf.c)
bench-gguf: $(BUILD)/bench_gguf ## quantized decode products beside the memory bound, a Q8_0 prefill beside f32
	$(call bench_run,gguf)
# ---- AVX-VNNI (>>quant: the int8 dots' _v form) ----
# the avx2 path's Q8_0 / Q4_0 4-row decode dots alone on one thread, VEX vpdpbusd beside vpmaddubsw,
# weights in L2 and from memory, alternate rounds, the load printed (bench/qdot_avxvnni.c; a skip
# line without AVX-VNNI). bench-gguf-llm's rows both ways: GENIE_NO_AVXVNNI=1 GENIE_CPU=avx2.
.PHONY: bench-qdot-avxvnni
bench-qdot-avxvnni: $(BUILD)/bench_qdot_avxvnni ## the avx2 path's Q8_0/Q4_0 decode dots: AVX-VNNI vpdpbusd beside vpmaddubsw
	$(BENCH_ENV) $(BUILD)/bench_qdot_avxvnni
# ---- AMX tiles (>>gemm: genie__uk_amx) ----
# test_amx: bf16 and f32 x bf16 products on AMX against an f64 reference, then again with the tile
# state refused (GENIE_NO_AMX_PERM=1: the fallback); a skip line on CPUs without AMX. bench-amx: bf16
# [512]^3 and [2048]^3 beside PyTorch's oneDNN (the shared venv's torch) on 1 and 2 threads, and f32 x
# bf16 [128,2048] x [2048,2048] on the tiles beside the avx512 f32 kernel (bench/amx.c).
$(BUILD)/test_amx: tests/unit/test_amx.c tests/unit/testctx.h genie.h $(BUILD)/impl.o | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) $< $(LINK_IMPL) -o $@ -lm -pthread
$(BUILD)/bench_amx: tests/unit/testctx.h
test-amx: $(BUILD)/test_amx ## bf16 products on AMX tiles against f64 (and with the tile state refused)
	$(BUILD)/test_amx
	GENIE_NO_AMX_PERM=1 $(BUILD)/test_amx
bench-bf16-decode: $(BUILD)/bench_bf16_decode ## f32 x bf16 decode (x [1,K], bf16 W [N,K] from memory) beside the read bound
	$(BENCH_ENV) $(BUILD)/bench_bf16_decode
$(BUILD)/bench_bf16_decode: tests/unit/testctx.h bench/copy_bw.h
asan-amx: ## test-amx under ASan + UBSan
	$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g $(SAN)" test-amx
bench-amx: $(BUILD)/bench_amx ## bf16 products on AMX tiles beside PyTorch's oneDNN bf16 (the shared venv's torch)
	@if $(VENV)/bin/python -c 'import torch' >/dev/null 2>&1; then \
	  $(BENCH_ENV) $(BUILD)/bench_amx $$($(VENV)/bin/python bench/amx_torch.py); \
	else $(BENCH_ENV) $(BUILD)/bench_amx; fi
# ---- end AMX ----
fuzz-gguf: $(BUILD)/fuzz_gguf ## libFuzzer on the GGUF reader for FUZZ_SECONDS
	@mkdir -p $(BUILD)/fuzz_corpus_gguf
	cd $(BUILD) && ./fuzz_gguf -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
	  -print_final_stats=1 fuzz_corpus_gguf ../tests/fuzz/corpus_gguf

# ---- a Llama GGUF end to end: examples/06_gguf_llm.c on the files tools/make_llama_gguf.py writes ----
# (numpy and gguf from $(VENV)). test-gguf-llm: the tiny model in F32, BF16, Q8_0 and Q4_0 against
# tests/data/gguf_llm_ref.txt (tokenizer ids and greedy tokens; seconds), and its F32 weights with
# a SentencePiece vocabulary (tiny-spm.gguf) against tests/data/gguf_llm_ref_spm.txt. bench-gguf-llm (part of
# bench-llm): a ~90M-parameter model's prefill and decode tokens/s beside llama.cpp's llama-bench on
# the same files when LLAMA_BENCH names the binary (never built here), and the decode bandwidth bound.
.PHONY: gguf-llm-models test-gguf-llm bench-gguf-llm test-gguf-llm-llama bench-gguf-llm-big
GGUF_LLM_DIR = $(BUILD)/gguf_llm
GGUF_LLM_GEN = tools/make_llama_gguf.py tests/data/gguf_llm_merges.txt tests/data/gguf_llm_spm_pieces.txt
LLAMA_BENCH ?=
LLAMA_QUANTIZE ?=
# bench-gguf-llm's rounds a row: genie and llama.cpp side by side in each, medians printed
GGUF_LLM_ROUNDS ?= 5
$(GGUF_LLM_DIR)/tiny-q4_0.gguf: $(GGUF_LLM_GEN) | $(BUILD)
	$(TORCH2_PY) tools/make_llama_gguf.py $(GGUF_LLM_DIR) --size tiny
$(GGUF_LLM_DIR)/bench-q4_0.gguf: $(GGUF_LLM_GEN) | $(BUILD)
	$(TORCH2_PY) tools/make_llama_gguf.py $(GGUF_LLM_DIR) --size bench
gguf-llm-models: ## write build/gguf_llm/tiny-{f32,bf16,q8_0,q4_0}.gguf (tools/make_llama_gguf.py)
	@if $(TORCH2_PY) -c "import numpy, gguf" 2>/dev/null; then $(MAKE) --no-print-directory $(GGUF_LLM_DIR)/tiny-q4_0.gguf; \
	else echo "skip: the GGUF Llama files ($(TORCH2_PY) cannot import numpy and gguf: make venv)"; fi
test-gguf-llm: $(BUILD)/06_gguf_llm gguf-llm-models ## the GGUF Llama example on F32, BF16, Q8_0, Q4_0 and a SentencePiece file against its reference
	@if [ -f $(GGUF_LLM_DIR)/tiny-q4_0.gguf ]; then for t in f32 bf16 q8_0 q4_0 spm; do \
	  ref=tests/data/gguf_llm_ref$$([ $$t = spm ] && echo _spm).txt; \
	  out=$$($(BUILD)/06_gguf_llm $(GGUF_LLM_DIR)/tiny-$$t.gguf $$ref -t 1); rc=$$?; \
	  echo "  $$t: $$(echo "$$out" | grep -E '^tokenizer: [0-9]+ of') ; $$(echo "$$out" | tail -2 | head -1)"; \
	  [ $$rc = 0 ] || { echo "$$out" | tail -20; echo "FAIL test-gguf-llm $$t"; exit 1; }; done; \
	  awk '$$1 == "f32" && $$2 == 3 { t = $$3; $$3 = $$5; $$5 = t } 1' tests/data/gguf_llm_ref.txt > $(GGUF_LLM_DIR)/ref_changed.txt; \
	  if $(BUILD)/06_gguf_llm $(GGUF_LLM_DIR)/tiny-f32.gguf $(GGUF_LLM_DIR)/ref_changed.txt -t 1 >/dev/null; then \
	    echo "FAIL test-gguf-llm: a reference with two tokens swapped passed"; exit 1; \
	  else echo "  a reference with step 3's two best tokens swapped fails, as it must"; fi; fi
$(BUILD)/bench_gguf_llm: examples/06_gguf_llm.c bench/copy_bw.h
bench-gguf-llm: $(BUILD)/bench_gguf_llm ## a Llama GGUF's prefill/decode tokens/s in F32, BF16, Q8_0, Q4_0 (Q4_K_M via llama-quantize) beside llama.cpp (LLAMA_BENCH=)
	@if $(TORCH2_PY) -c "import numpy, gguf" 2>/dev/null; then $(MAKE) --no-print-directory $(GGUF_LLM_DIR)/bench-q4_0.gguf; \
	else echo "skip: bench-gguf-llm ($(TORCH2_PY) cannot import numpy and gguf: make venv)"; exit 0; fi; \
	if $(TORCH2_PY) -c "import torch, transformers, gguf" 2>/dev/null; then export GGUF_LLM_TORCH="$(TORCH2_PY) bench/gguf_llm_torch.py"; \
	else echo "skip: PyTorch bf16 prefill beside bench-gguf-llm ($(TORCH2_PY) cannot import torch, transformers and gguf)"; fi; \
	if [ -n "$(LLAMA_BENCH)" ] && [ -x "$(LLAMA_BENCH)" ]; then \
	  $(LLAMA_BENCH) -m $(GGUF_LLM_DIR)/bench-q4_0.gguf -p 0 -n 1 -r 1 -o csv 2>/dev/null | $(PYTHON) tools/llama_bench_build.py; \
	  q=$(LLAMA_QUANTIZE); [ -n "$$q" ] || q=$$(dirname $(LLAMA_BENCH))/llama-quantize; \
	  if [ -f $(GGUF_LLM_DIR)/bench-q4_k_m.gguf ]; then :; elif [ -x "$$q" ]; then \
	    $$q $(GGUF_LLM_DIR)/bench-f32.gguf $(GGUF_LLM_DIR)/bench-q4_k_m.gguf Q4_K_M >/dev/null 2>&1 || echo "note: $$q could not write bench-q4_k_m.gguf"; \
	  else echo "skip: the Q4_K_M rows (no llama-quantize beside LLAMA_BENCH; LLAMA_QUANTIZE=path)"; fi; \
	  $(BUILD)/bench_gguf_llm $(GGUF_LLM_DIR) $(GGUF_LLM_ROUNDS) $(LLAMA_BENCH); \
	else echo "skip: llama.cpp beside bench-gguf-llm (LLAMA_BENCH=/path/to/llama-bench not set or not executable)"; \
	  $(BUILD)/bench_gguf_llm $(GGUF_LLM_DIR) $(GGUF_LLM_ROUNDS); fi
# test-gguf-llm-remote: the same files and references with every step on a genie-server forked on
# loopback (tests/remote_gguf.sh): the example linked against build/genie_remote.o.
.PHONY: test-gguf-llm-remote
$(BUILD)/06_gguf_llm_remote: examples/06_gguf_llm.c $(BUILD)/genie_remote.o $(REMOTE_HDRS) | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $(REMOTE_CFLAGS) -DGENIE_EXAMPLE_LINKED $< $(BUILD)/genie_remote.o -o $@ $(REMOTE_LIBS)
test-gguf-llm-remote: gguf-llm-models ## the GGUF Llama example's files and references on a genie-server (loopback)
	@if $(HAVE_REMOTE); then $(MAKE) --no-print-directory $(BUILD)/genie-server $(BUILD)/06_gguf_llm $(BUILD)/06_gguf_llm_remote && tests/remote_gguf.sh; \
	else $(REMOTE_SKIP); fi
# bench-gguf-llm-big: the same bench on a ~540M-parameter model in Q8_0 and Q4_0 (577 / 306 MB of
# weights a token: more than a last-level cache keeps, so a decode step streams them from memory).
$(GGUF_LLM_DIR)/big-q4_0.gguf: $(GGUF_LLM_GEN) | $(BUILD)
	$(TORCH2_PY) tools/make_llama_gguf.py $(GGUF_LLM_DIR) --size big
bench-gguf-llm-big: $(BUILD)/bench_gguf_llm ## bench-gguf-llm's Q8_0 and Q4_0 rows on a ~540M-parameter model (weights from memory)
	@if $(TORCH2_PY) -c "import numpy, gguf" 2>/dev/null; then $(MAKE) --no-print-directory $(GGUF_LLM_DIR)/big-q4_0.gguf; \
	else echo "skip: bench-gguf-llm-big ($(TORCH2_PY) cannot import numpy and gguf: make venv)"; exit 0; fi; \
	if [ -n "$(LLAMA_BENCH)" ] && [ -x "$(LLAMA_BENCH)" ]; then $(BUILD)/bench_gguf_llm $(GGUF_LLM_DIR) $(GGUF_LLM_ROUNDS) $(LLAMA_BENCH) q8_0,q4_0 big; \
	else echo "skip: llama.cpp beside bench-gguf-llm-big (LLAMA_BENCH=/path/to/llama-bench not set or not executable)"; \
	  $(BUILD)/bench_gguf_llm $(GGUF_LLM_DIR) $(GGUF_LLM_ROUNDS) - q8_0,q4_0 big; fi
# llama.cpp as a second oracle when LLAMA_CPP_BIN names a folder with llama-tokenize and llama-simple:
# its ids of the reference's strings, and its greedy text of the F32 file beside the example's.
LLAMA_CPP_BIN ?=
test-gguf-llm-llama: $(BUILD)/06_gguf_llm gguf-llm-models ## the tokenizer and the F32 greedy text beside llama.cpp's (LLAMA_CPP_BIN=)
	@if [ -z "$(LLAMA_CPP_BIN)" ] || [ ! -x "$(LLAMA_CPP_BIN)/llama-simple" ]; then \
	  echo "skip: llama.cpp beside test-gguf-llm (LLAMA_CPP_BIN=folder with llama-tokenize and llama-simple)"; \
	elif [ -f $(GGUF_LLM_DIR)/tiny-f32.gguf ]; then \
	  $(PYTHON) tools/llama_tokenize_check.py $(LLAMA_CPP_BIN)/llama-tokenize $(GGUF_LLM_DIR)/tiny-f32.gguf tests/data/gguf_llm_ref.txt || exit 1; \
	  $(PYTHON) tools/llama_tokenize_check.py $(LLAMA_CPP_BIN)/llama-tokenize $(GGUF_LLM_DIR)/tiny-spm.gguf tests/data/gguf_llm_ref_spm.txt || exit 1; \
	  p=$$($(PYTHON) -c "import sys; print(bytes.fromhex(sys.argv[1]).decode())" $$(grep '^prompt' tests/data/gguf_llm_ref.txt | cut -d' ' -f2)); \
	  a=$$($(LLAMA_CPP_BIN)/llama-simple -m $(GGUF_LLM_DIR)/tiny-f32.gguf -n 32 "$$p" 2>/dev/null | head -1); \
	  b=$$($(BUILD)/06_gguf_llm $(GGUF_LLM_DIR)/tiny-f32.gguf tests/data/gguf_llm_ref.txt | sed -n 3p); \
	  if [ "$$a" = "$$b" ]; then echo "llama.cpp's greedy text of tiny-f32.gguf: equal to the example's (32 tokens)"; \
	  else printf 'llama.cpp: %s\ngenie:     %s\nFAIL test-gguf-llm-llama\n' "$$a" "$$b"; exit 1; fi; fi
bench-llm: bench-gguf-llm
test: test-gguf-llm
