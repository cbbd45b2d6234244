# The two commands of the README:
#   make run   set up, build (Release) and run the main job on the default scene
#   make test  set up, build (optimised, assertions on) and run the whole test suite, then build it
#              again with clang under AddressSanitizer + UndefinedBehaviorSanitizer (with the
#              fuzz targets, whose seed corpora it replays) and run it there too
# Other targets: make test-portable (the first half alone), make test-sanitize (the second),
#   make fuzz FUZZ_SECONDS=600 (every fuzz target for that long, fuzz/README.md).
JOBS ?= 2
ARGS ?= granular
# Unity builds (CMake joins 8 source files into one translation unit): a clean build parses
# Eigen and instantiates its templates 8 times less often.  The RelWithAssert build took 417 s
# instead of 635 s on a 2-core AMD EPYC (2026-11-26).  Incremental builds of one's own (a build
# folder configured without it) keep one file per unit; both must compile, so file-local names
# stay unique across a folder's files.
UNITY = -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8

.PHONY: setup run test test-portable test-sanitize fuzz build-release build-test build-sanitize \
  build-fuzz clean

setup:
	bash scripts/setup.sh

build-release: setup
	cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DSUBSIM_BUILD_TESTS=OFF $(UNITY)
	cmake --build build/release -j $(JOBS)

build-test: setup
	cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=RelWithAssert $(UNITY)
	cmake --build build/test -j $(JOBS)

# The run's page (subsim view): open it in a browser when the run ends.
VIEW ?= build/view/run.html
run: build-release
	mkdir -p $(dir $(VIEW))
	./build/release/subsim run $(ARGS) --view $(VIEW)

# The tests' sanitizer build replays the fuzz targets' corpora, which needs no coverage
# instrumentation; `make fuzz` builds its own folder with it.
SANITIZE_CMAKE = -G Ninja -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_C_COMPILER=clang-14 \
  -DCMAKE_CXX_COMPILER=clang++-14 -DSUBSIM_FUZZ=ON

build-sanitize: setup
	cmake -S . -B build/sanitize $(SANITIZE_CMAKE) -DSUBSIM_FUZZ_COVERAGE=OFF $(UNITY)
	cmake --build build/sanitize -j $(JOBS)

build-fuzz: setup
	cmake -S . -B build/fuzz $(SANITIZE_CMAKE) -DSUBSIM_FUZZ_COVERAGE=ON -DSUBSIM_BUILD_TESTS=OFF
	cmake --build build/fuzz -j $(JOBS)

test-portable: build-test
	cd build/test && ctest --output-on-failure -j $(JOBS)

# detect_leaks: LeakSanitizer is part of AddressSanitizer; halt_on_error is UBSan's abort.
# alloc_dealloc_mismatch=0: clang-14's ASan does not intercept libstdc++-12's nothrow operator
# delete, so std::stable_sort's temporary buffer (new(nothrow), freed through it) reads as
# "operator new vs free"; every other check stays on.  allocator_may_return_null=1: HDF5 allocates
# sizes read from a (possibly corrupt) file and handles a null return, which glibc's malloc gives
# for an impossible size; ASan would abort there instead (fuzz_problem_file's first finding).
SANITIZE_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:alloc_dealloc_mismatch=0:allocator_may_return_null=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer-14

# Left out under the sanitizers, as they check nothing there: the golden-state hashes (a clang
# build has other bits, so they reduce to the thread check that Subadmm.Deterministic* makes) and
# the heap-layout test (GLIBC_TUNABLES moves glibc's heap, which ASan replaces with its own).
# Also left out there: the accuracy tests that run a paper scene or a fine model for seconds of
# simulated time (under ASan 27-161 s each, 455 s of the sanitizer run's 1200 s of CPU); their
# code runs there in shorter tests (the solver registry's scenes, the small FEM and cable tests,
# the other bench tests), and they run whole in the portable build.
SANITIZE_LONG := BenchCli.PaperTableHasTableIsShapeWithThePapersFigures|CableScene.TheRobotsCarry
SANITIZE_LONG := $(SANITIZE_LONG)|BeamScene.ACoarseBeamIsPushed|CorotationalFemPhysics.Cantilever
SANITIZE_LONG := $(SANITIZE_LONG)|CosseratCable.PaperCableIsStableWithSubadmm
SANITIZE_LONG := $(SANITIZE_LONG)|Cli.TheBeamRunsAtItsOwnIterationCap
SANITIZE_LONG := $(SANITIZE_LONG)|BenchCli.PaperSchurPrintsTheTablesWithThePapersFigures
SANITIZE_LONG := $(SANITIZE_LONG)|SchurScenes.TheNetHoldsTheTruck
SANITIZE_LONG := $(SANITIZE_LONG)|BenchCli.PaperCondPrintsTheTablesWithThePapersFigures
# COND's convergence tests run thousands of iterations (the box test at k_v = 1e5, the soft ball
# to 1e-10): the portable build runs them; the sanitizers see the same code in Cond's short tests.
SANITIZE_LONG := $(SANITIZE_LONG)|Cond.PushedBox|Cond.SoftBall|Cond.FemOnRealNodes|Cond.SoftMat
SANITIZE_LONG := $(SANITIZE_LONG)|Cond.AJointsRowsKeepTheirOwnCoupling|CableWindingScene.LaysTheCable
SANITIZE_LONG := $(SANITIZE_LONG)|Cond.SoftGripperLiftsTheCube
# Convergence studies of 20-27 s each under ASan (CI's make test passed in 1723 s of its 1800,
# 2026-11-26): their iterations run there in the solvers' shorter tests.
SANITIZE_LONG := $(SANITIZE_LONG)|Subadmm.ConstraintResidualDecreasesWithIterationsOnGranularScene
SANITIZE_LONG := $(SANITIZE_LONG)|Fadmm.FrictionlessPileConvergesFromAnyPenaltyAndRelaxation
SANITIZE_LONG := $(SANITIZE_LONG)|CosseratCable.ClampedRodBendsByTheBeamFormula
SANITIZE_LONG := $(SANITIZE_LONG)|SparseSubsystem.PenaltyRuleMatchesTheDensePerRowSolvesOnThePapersBeam
# Every solver on one problem stored dense and sparse: 15-23 s each under ASan (most of it the 24
# steps that load the soft ball, once per test process), 520 s in all; the solvers meet sparse
# blocks there in EverySolver.RunsEveryBuiltInScene (the soft ball, the beam).
SANITIZE_LONG := $(SANITIZE_LONG)|SparseBlocks/SparseAndDense
# Five of the seven LCP solvers on every built-in scene (4-5 s each there): lemke and lcp-ip
# still run them, through the formulation and the free-variable elimination every one of them
# uses, and the five run one step each in PolyhedralLcp.EverySolverSolvesTheSameStep.
SANITIZE_LONG := $(SANITIZE_LONG)|EverySolver.RunsEveryBuiltInScene/(path|fischer_newton)
SANITIZE_LONG := $(SANITIZE_LONG)|EverySolver.RunsEveryBuiltInScene/(minmap_newton|lcp_p)
# CI's make test took 1711 s of its 1800 with the Python module and the viewer (2026-11-27, a
# fresh clone here): 10-14 s each under ASan, these run whole in the portable build, and their
# code under the sanitizers in shorter tests (APGD's two operators in DelassusOperator.* and
# Apgd.IterationsDoNotAllocate, the AL variants through canal's every-scene run, plotting is
# matplotlib's, the slab's queries in DeformableContact.*).
SANITIZE_LONG := $(SANITIZE_LONG)|Apgd.FactoredAndAssembledDelassusReachTheSameSolution
SANITIZE_LONG := $(SANITIZE_LONG)|EverySolver.RunsEveryBuiltInScene/(ssn|tr_dogleg)
SANITIZE_LONG := $(SANITIZE_LONG)|PlotCli.EveryKindOfARecordingDrawsItsRecordedValues
SANITIZE_LONG := $(SANITIZE_LONG)|DeformableSlab.QueryCost
# The dish stack held for 5 s (SubADMM) and 1 s (CANAL at 100 Newton iterations): 8 s each here;
# the sanitizers meet the same Frank-Wolfe contacts in the geometry and recorder tests.
SANITIZE_LONG := $(SANITIZE_LONG)|DishStack.StaysStackedForFiveSeconds|DishStack.CanalHoldsItStill
# The Panda's 8 s pick and place of a bowl (4 s here) and three 3.5 s pours (2.5 s): the same
# contacts as the stack's, and the pouring runs 40 steps in the solver registry's test.
SANITIZE_LONG := $(SANITIZE_LONG)|Dishes.ThePandaPicksABowlUp|Pouring.TheParticlesEndInTheTarget
# 14 s and 40 s under ASan (CI took about 29 min on 2026-11-28): CANAL on 20 dish problems and
# the mesh grid against the exact field at 200 points; the sanitizers see their code in the
# shorter geometry, mesh and recorder tests.
SANITIZE_LONG := $(SANITIZE_LONG)|DishStack.CanalReaches1e8|MeshGridShape.GridFieldFollows
SANITIZE_EXCLUDE = GoldenState|golden_state|WhateverTheHeapLayout|$(SANITIZE_LONG)

test-sanitize: build-sanitize
	cd build/sanitize && $(SANITIZE_ENV) ctest --output-on-failure -j $(JOBS) -E '$(SANITIZE_EXCLUDE)'

test: test-portable test-sanitize

FUZZ_SECONDS ?= 600
fuzz: build-fuzz
	bash fuzz/run.sh build/fuzz $(FUZZ_SECONDS)

clean:
	rm -rf build
