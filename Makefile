# The two commands of the README:
#   make run   set up, build (Release) and run the main job on the default scene
#   make test  set up, build (optimised, assertions on) and run the whole test suite
JOBS ?= 2
ARGS ?= granular

.PHONY: setup run test build-release build-test clean

setup:
	bash scripts/setup.sh

build-release: setup
	cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DSUBSIM_BUILD_TESTS=OFF
	cmake --build build/release -j $(JOBS)

build-test: setup
	cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=RelWithAssert
	cmake --build build/test -j $(JOBS)

run: build-release
	./build/release/subsim run $(ARGS)

test: build-test
	cd build/test && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf build
