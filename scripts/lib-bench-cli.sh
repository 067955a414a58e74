# Sourced by the scripts/bench-*.sh that time the CLI, from the repository root: sets BUILD_DIR (default
# build-bench, a Release build of its own, configured the first time) and `cli`, the lstm-workbench-cli
# in it, built up to date.
BUILD_DIR=${BUILD_DIR:-build-bench}
if [ ! -x "$BUILD_DIR/bin/lstm-workbench-cli" ]; then
  ./scripts/install-deps.sh
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD_DIR" -j"$(nproc)" --target lstm-workbench-cli >/dev/null
cli="$BUILD_DIR/bin/lstm-workbench-cli"
