# genie - build, examples, tests. `make run` runs the flagship example, `make test` the tests.
CC      ?= cc
CXX     ?= c++
PYTHON  ?= /usr/bin/python3
PREFIX  ?= /usr/local
WARN     = -Wall -Wextra -pedantic -Werror
CFLAGS  ?= -O2 -g
STD      = -std=c99
BUILD    = build
SAN      = -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=undefined,float-cast-overflow
EXAMPLES = $(patsubst examples/%.c,%,$(wildcard examples/*.c))
TESTSRC  = tests/test_main.c tests/test_planner.c tests/test_gemm.c tests/prog.c tests/impl.c tests/test_fuse.c tests/test_vmath.c \
           tests/test_reduce.c tests/test_tcache.c tests/test_llmops.c tests/test_rfuse.c tests/test_safetensors.c \
           tests/test_safetensors_nommap.c tests/test_roles.c tests/test_threads.c
TESTOBJ  = $(patsubst tests/%.c,$(BUILD)/%.o,$(TESTSRC))

.PHONY: all run test asan valgrind examples install uninstall props cases bench bench-views bench-mlp bench-eltwise bench-gemm bench-rowwise bench-tape bench-attention bench-llm compile-checks clean torch torch-suite test-torch test-torch-opdb example-torch bench-torch
.PHONY: cuda cuda-suite test-cuda bench-cuda
.PHONY: fuzz-safetensors test-safetensors asan-safetensors valgrind-safetensors
.PHONY: test-vmath-all
.PHONY: fuzz
.PHONY: matrix diff-test

all: examples $(BUILD)/test_main $(BUILD)/test_alloc $(BUILD)/test_robust $(BUILD)/fuzz_replay

$(BUILD):
	@mkdir -p $(BUILD)

# ---- examples: numbered tutorials, each checks its own results ----
examples: $(addprefix $(BUILD)/,$(EXAMPLES))
$(BUILD)/%: examples/%.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $< -o $@ -lm -pthread

run: $(BUILD)/03_mlp
	cd $(BUILD) && ./03_mlp

# ---- tests ----
$(BUILD)/cxx_part.o: tests/cxx_part.cpp genie.h | $(BUILD)
	$(CXX) -std=c++11 $(CFLAGS) $(WARN) -c $< -o $@
$(BUILD)/%.o: tests/%.c tests/prog.h tests/vmath_bounds.h genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -c $< -o $@
print-testsrc: # test_main's sources, for tests/matrix.sh
	@echo $(TESTSRC)
$(BUILD)/test_safetensors_nommap.o: tests/test_safetensors.c
$(BUILD)/test_main: $(TESTOBJ) $(BUILD)/cxx_part.o
	$(CXX) $(CFLAGS) $^ -o $@ -lm -pthread
# the backend table (>>backend) through a fake device: no GPU, no toolkit
$(BUILD)/test_backend: tests/test_backend.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) $< -o $@ -lm -pthread
$(BUILD)/test_alloc: tests/test_alloc.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) $< -o $@ -lm -pthread
# every f32 input through the SIMD paths' transcendental kernels against the reference (optional:
# about half an hour of CPU per path; make test runs the dense sweep of tests/test_vmath.c)
$(BUILD)/vmath_all: tests/vmath_all.c tests/vmath_bounds.h genie.h | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. $< -o $@ -lm -pthread
test-vmath-all: $(BUILD)/vmath_all
	$(BUILD)/vmath_all
# odd input (huge, empty, NULL, dead handles) and every crash the fuzzer found
$(BUILD)/test_robust: tests/test_robust.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) $< -o $@ -lm -pthread
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
$(BUILD)/test_dead: tests/test_dead.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) $< -o $@ -lm -pthread
build-fuzz/fuzz_diff: tests/fuzz/fuzz_api.c genie.h
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -DFZ_DIFF_DEFAULT=1 -I. $< -o $@ -lm -pthread
fuzz-diff: build-fuzz/fuzz_diff
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
# (add the input to tests/fuzz/regressions and a case to tests/test_robust.c).
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_FLAGS    = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_ENV      = ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
build-fuzz/fuzz_api: tests/fuzz/fuzz_api.c genie.h
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -I. $< -o $@ -lm -pthread
# libFuzzer's log goes to build-fuzz/fuzz.log; on a failure the target prints its tail, then
# the lines that say what broke, then the failing input in hex (a CI log shows only its end).
fuzz: build-fuzz/fuzz_api $(BUILD)/fuzz_safetensors
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

# genie.h compiles cleanly as C99 and C++11 with every compiler here
compile-checks: | $(BUILD)
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

test: compile-checks $(BUILD)/test_main $(BUILD)/test_alloc $(BUILD)/test_backend $(BUILD)/test_robust $(BUILD)/fuzz_replay examples
	@$(MAKE) --no-print-directory torch-suite
	@$(MAKE) --no-print-directory cuda-suite
	@for e in $(EXAMPLES); do (cd $(BUILD) && ./$$e >/dev/null) || { echo "FAIL example $$e"; exit 1; }; \
	  echo "  example $$e ok"; done
	$(BUILD)/test_alloc
	$(BUILD)/test_backend
	$(BUILD)/test_robust
	$(BUILD)/fuzz_replay $(FUZZ_INPUTS)
	@{ $(BUILD)/test_main; echo $$? > $(BUILD)/test_main.rc; } | \
	  awk -v counts=$(BUILD)/torch_counts -v rcfile=$(BUILD)/test_main.rc -f tests/torch/summary.awk


# ---- the PyTorch device (genie_torch_bridge.c is C++ by necessity: ATen is C++) ----
# Built against the installed libtorch (Debian's 1.13 here; TORCH_VERSION_MAJOR guards keep
# torch 2.x building). Torch's headers are -isystem so only the bridge's own warnings show.
TORCH_INC ?= /usr/include
TORCH_CXXFLAGS = -std=c++17 -O2 -g -fPIC -shared -Wall -Wextra -isystem $(TORCH_INC)/torch/csrc/api/include $(if $(filter /usr/include,$(TORCH_INC)),,-isystem $(TORCH_INC))
TORCH_LIBS = -ltorch -ltorch_cpu -lc10
torch: $(BUILD)/libgenie_torch.so
$(BUILD)/libgenie_torch.so: genie_torch_bridge.c genie.h | $(BUILD)
	$(CXX) -x c++ $(TORCH_CXXFLAGS) -I. genie_torch_bridge.c -o $@ $(TORCH_LIBS)

HAVE_TORCH = $(PYTHON) -c "import torch" 2>/dev/null && [ -f $(TORCH_INC)/ATen/ATen.h ]
# the bridge suite inside `make test`: writes its counts for the closing summary line (a
# failure to build or run counts as a failure; no PyTorch here: one clear skip line)
torch-suite: | $(BUILD)
	@rm -f $(BUILD)/torch_counts
	@if $(HAVE_TORCH); then \
	  if $(MAKE) --no-print-directory torch; then \
	    $(PYTHON) tests/torch/test_bridge.py --counts $(BUILD)/torch_counts || true; fi; \
	  [ -s $(BUILD)/torch_counts ] || { echo "FAIL PyTorch bridge suite did not run"; echo "0 1 0" > $(BUILD)/torch_counts; }; \
	else echo "skip: PyTorch bridge tests ($(PYTHON) cannot import torch, or libtorch-dev is missing)"; \
	  echo "0 0 1" > $(BUILD)/torch_counts; fi
# the bridge suite alone (fails on any failure); --quick leaves out the operator database
test-torch: torch
	$(PYTHON) tests/torch/test_bridge.py
# PyTorch's operator database on the device, every float32 operator and sample (~30 s)
test-torch-opdb: torch
	$(PYTHON) tests/torch/opdb.py --all
# the tutorial: an MLP and a TransformerEncoderLayer on the device, compared with CPU
example-torch: torch
	$(PYTHON) examples/torch/tutorial.py
# per-operation overhead seen from Python: x + y on the device vs CPU eager
bench-torch: torch
	$(PYTHON) bench/torch_overhead.py

# ---- the CUDA backend (genie_cuda.c: plain C against cudart, cuBLAS and NVRTC) ----
# genie_cuda.c is genie's implementation unit with the backend: link genie_cuda.o instead of
# defining GENIE_IMPLEMENTATION. `make cuda CUDA=/opt/cuda` points at another toolkit.
CUDA      ?= /usr/local/cuda
CUDA_INC   = -isystem $(CUDA)/include
CUDA_LIBS  = -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64 -lcudart -lcublas -lnvrtc
HAVE_CUDA  = [ -f $(CUDA)/include/cuda_runtime_api.h ] && [ -f $(CUDA)/include/nvrtc.h ]
cuda: $(BUILD)/genie_cuda.o $(BUILD)/test_cuda $(BUILD)/bench_cuda
$(BUILD)/genie_cuda.o: genie_cuda.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $(CUDA_INC) -c $< -o $@
$(BUILD)/test_cuda: tests/test_cuda.c genie_cuda.c genie.h tests/prog.c tests/prog.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -I. $(CUDA_INC) tests/test_cuda.c tests/prog.c -o $@ $(CUDA_LIBS) -lm -pthread
# the benchmark links genie_cuda.o like an application would (the link check of `make cuda`)
$(BUILD)/bench_cuda: bench/cuda.c $(BUILD)/genie_cuda.o | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. $(CUDA_INC) bench/cuda.c $(BUILD)/genie_cuda.o -o $@ $(CUDA_LIBS) -lm -pthread
# inside `make test`: no GPU needed (NVRTC compiles every generated kernel; selecting "cuda"
# without a device is GENIE_ERR_BACKEND); no toolkit: one clear skip line
cuda-suite: | $(BUILD)
	@if $(HAVE_CUDA); then $(MAKE) --no-print-directory cuda && $(BUILD)/test_cuda; \
	else echo "skip: CUDA backend tests ($(CUDA)/include has no cuda_runtime_api.h or nvrtc.h; set CUDA=)"; fi
# on a machine with an NVIDIA GPU: every case and the property programs on the GPU vs the CPU
test-cuda: cuda
	$(BUILD)/test_cuda --gpu
# genie on the GPU beside PyTorch on the GPU, in the same run (TORCH_PY: a python with CUDA torch)
TORCH_PY ?= /opt/torch/.venv/bin/python3
bench-cuda: cuda
	@if [ -x $(TORCH_PY) ]; then $(BUILD)/bench_cuda $$($(TORCH_PY) bench/cuda_torch.py); \
	else echo "skip: PyTorch peer ($(TORCH_PY) missing; TORCH_PY=...)"; $(BUILD)/bench_cuda; fi

# ---- sanitizers and valgrind ----
# test_main under ASan and under valgrind runs in SHARDS processes side by side (tests/shards.sh:
# each suite runs once, in the first process that reaches it), one a core: valgrind runs a
# process's threads one at a time, and most suites run on one thread
SHARDS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
asan: | $(BUILD)
	$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g $(SAN)" all
	@for e in $(EXAMPLES); do (cd build-asan && ./$$e >/dev/null) || { echo "FAIL asan example $$e"; exit 1; }; \
	  echo "  asan example $$e ok"; done
	build-asan/test_alloc
	ASAN_OPTIONS=allocator_may_return_null=1 build-asan/test_robust
	ASAN_OPTIONS=allocator_may_return_null=1 build-asan/fuzz_replay $(FUZZ_INPUTS)
	GENIE_TEST_TIMES=1 GENIE_FILES_ONE_MODE=1 tests/shards.sh $(SHARDS) build-asan/test_main.log build-asan/test_main

valgrind: examples $(BUILD)/test_main
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
matrix:
	tests/matrix.sh

# ---- the full property runs against PyTorch ----
PROPS_N ?= 10000
PROPS_SEED ?= 1
props: $(BUILD)/test_main
	$(PYTHON) tests/gen_props.py views $(PROPS_N) $(PROPS_SEED) $(BUILD)/props_views.txt
	$(PYTHON) tests/gen_props.py graphs $(PROPS_N) $(PROPS_SEED) $(BUILD)/props_graphs.txt
	$(PYTHON) tests/gen_props.py ops $(PROPS_N) $(PROPS_SEED) $(BUILD)/props_ops.txt
	$(BUILD)/test_main --files $(BUILD)/props_views.txt $(BUILD)/props_graphs.txt $(BUILD)/props_ops.txt

# differential testing at scale: DIFF_N random programs (split evenly over views, graphs and ops)
# against PyTorch, on DIFF_JOBS workers (default: every core), each worker its own seed ranges.
# Prints the programs, checks and mismatches; keeps a failing chunk in $(BUILD)/diff_test.
DIFF_N    ?= 100000
DIFF_SEED ?= 100000
DIFF_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
DIFF_MODE ?= fused
diff-test: $(BUILD)/test_main
	GENIE_FILES_MODE=$(DIFF_MODE) tests/diff_test.sh $(BUILD)/test_main $(DIFF_N) $(DIFF_SEED) $(DIFF_JOBS) $(BUILD)/diff_test

# regenerate the checked-in expectations from PyTorch
cases:
	$(PYTHON) tests/gen_cases.py tests/data/cases.txt
	$(PYTHON) tests/gen_llmops.py tests/data/llmops.txt
	$(PYTHON) tests/gen_props.py views 400 1 tests/data/props_views.txt
	$(PYTHON) tests/gen_props.py graphs 300 1 tests/data/props_graphs.txt
	$(PYTHON) tests/gen_props.py ops 300 1 tests/data/props_ops.txt

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

bench: bench-views bench-mlp bench-eltwise bench-rowwise bench-gemm bench-tape bench-attention bench-llm

bench-views: | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. bench/views.c -o $(BUILD)/bench_views -lm -pthread
	@if [ -n "$(ATEN_H)" ]; then \
	  $(CXX) -std=c++17 -O2 bench/views_aten.cpp -o $(BUILD)/bench_views_aten $(ATEN_LIBS) && \
	  $(BUILD)/bench_views $$($(BUILD)/bench_views_aten); \
	else $(BUILD)/bench_views; fi

bench-mlp: | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. bench/mlp_step.c -o $(BUILD)/bench_mlp_step -lm -pthread
	$(BUILD)/bench_mlp_step

bench-tape: | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. bench/tape.c -o $(BUILD)/bench_tape -lm -pthread
	@if [ -n "$(ATEN_H)" ]; then \
	  $(MAKE) --no-print-directory $(BUILD)/bench_tape_aten && \
	  $(BENCH_ENV) $(BUILD)/bench_tape $$($(BENCH_ENV) $(BUILD)/bench_tape_aten $(BUILD)/tape_block.bin); \
	else echo "skip: PyTorch eager peer of bench/tape.c (/usr/include/ATen/ATen.h missing)"; $(BUILD)/bench_tape; fi

# the ATen peer of bench/tape.c (about a minute to compile: built only when changed)
$(BUILD)/bench_tape_aten: bench/tape_aten.cpp | $(BUILD)
	$(CXX) -std=c++17 -O2 -I/usr/include/torch/csrc/api/include $< -o $@ $(ATEN_LIBS) -lopenblas

bench-eltwise: | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. bench/eltwise.c -o $(BUILD)/bench_eltwise -lm -pthread && $(BUILD)/bench_eltwise

# fused scaled_dot_product_attention vs the unfused composition in genie and in ATen (if installed)
bench-attention: | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. bench/attention.c -o $(BUILD)/bench_attention -lm -pthread
	@if [ -n "$(ATEN_H)" ]; then \
	  $(MAKE) --no-print-directory $(BUILD)/bench_attention_aten && \
	  $(BENCH_ENV) $(BUILD)/bench_attention $$($(BENCH_ENV) $(BUILD)/bench_attention_aten); \
	else echo "skip: PyTorch eager peer of bench/attention.c (/usr/include/ATen/ATen.h missing)"; $(BUILD)/bench_attention; fi
$(BUILD)/bench_attention_aten: bench/attention_aten.cpp | $(BUILD)
	$(CXX) -std=c++17 -O2 $< -o $@ $(ATEN_LIBS)

bench-rowwise: | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. bench/rowwise.c -o $(BUILD)/bench_rowwise -lm -pthread && $(BUILD)/bench_rowwise

bench-gemm: | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. bench/gemm.c -o $(BUILD)/bench_gemm -lm -pthread $(OPENBLAS)
	@if [ -n "$(ATEN_H)" ]; then \
	  $(CXX) -std=c++17 -O2 bench/gemm_aten.cpp -o $(BUILD)/bench_gemm_aten $(ATEN_LIBS) && \
	  $(BENCH_ENV) $(BUILD)/bench_gemm $$($(BENCH_ENV) $(BUILD)/bench_gemm_aten $(BENCH_CASES)) $(BENCH_CASES); \
	else $(BENCH_ENV) $(BUILD)/bench_gemm $(BENCH_CASES); fi

# a GPT-2-small-sized decoder: prefill and decode tokens/s on 1 and 2 threads beside PyTorch eager
# (bench/llm_torch.py, same weights and math; threads pinned: torch's count and OPENBLAS_NUM_THREADS,
# on 2 cores PyTorch's best of the splits 1x2, 2x1, 2x2) and the decode bandwidth bound.
# LLM_REPS=1 runs each measure once (default 3, best kept: the machines are noisy).
LLM_REPS ?= 3
bench-llm: | $(BUILD)
	$(CC) $(STD) -O2 $(WARN) -I. bench/llm.c -o $(BUILD)/bench_llm -lm -pthread
	@rm -f $(BUILD)/llm_torch.txt
	@if $(PYTHON) -c "import torch, numpy" 2>/dev/null; then \
	  for s in 1x1 1x2 2x1 2x2; do t=$${s%x*}; b=$${s#*x}; \
	    $(BENCH_ENV) OPENBLAS_NUM_THREADS=$$b OMP_NUM_THREADS=$$t $(PYTHON) bench/llm_torch.py $$t $(LLM_REPS) >> $(BUILD)/llm_torch.txt || exit 1; done; \
	else echo "skip: PyTorch eager peer of bench/llm.c ($(PYTHON) cannot import torch and numpy)"; fi
	$(BUILD)/bench_llm $(BUILD)/llm_torch.txt $(LLM_REPS)

# ---- install: the header and a pkg-config file ----
install:
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 genie.h $(DESTDIR)$(PREFIX)/include/genie.h
	sed -e 's|@PREFIX@|$(PREFIX)|' genie.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/genie.pc
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/genie.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/genie.pc

clean:
	rm -rf build build-asan build-fuzz

# ---- the safetensors tests alone (part of test_main too), on both read paths: mapped and GENIE_NO_MMAP ----
$(BUILD)/test_safetensors: tests/test_safetensors.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -DST_STANDALONE -DGENIE_IMPLEMENTATION $< -o $@ -lm -pthread
$(BUILD)/test_safetensors_nommap: tests/test_safetensors_nommap.c tests/test_safetensors.c genie.h | $(BUILD)
	$(CC) $(STD) $(CFLAGS) $(WARN) -DST_STANDALONE $< -o $@ -lm -pthread
test-safetensors: $(BUILD)/test_safetensors $(BUILD)/test_safetensors_nommap
	$(BUILD)/test_safetensors
	$(BUILD)/test_safetensors_nommap
asan-safetensors:
	$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g $(SAN)" test-safetensors
valgrind-safetensors: $(BUILD)/test_safetensors $(BUILD)/test_safetensors_nommap
	valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=all $(BUILD)/test_safetensors
	valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=all $(BUILD)/test_safetensors_nommap

# ---- fuzzing the safetensors reader (libFuzzer: clang with libclang-rt, e.g. Debian's clang) ----
# Runs for FUZZ_SECONDS on the seed corpus (new inputs go to build/fuzz_corpus_safetensors); a
# crash is written to build/ as crash-*; make it a case in tests/test_safetensors.c.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
$(BUILD)/fuzz_safetensors: tests/fuzz/fuzz_safetensors.c genie.h | $(BUILD)
	$(FUZZ_CC) -std=c99 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	  -DGENIE_NO_THREADS $(WARN) $< -o $@ -lm
fuzz-safetensors: $(BUILD)/fuzz_safetensors
	@mkdir -p $(BUILD)/fuzz_corpus_safetensors
	cd $(BUILD) && ./fuzz_safetensors -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
	  -dict=../tests/fuzz/safetensors.dict \
	  -print_final_stats=1 fuzz_corpus_safetensors ../tests/fuzz/corpus_safetensors
