# shellcheck shell=bash
# all: tests, then bench (the default mode).
# shellcheck source=scripts/device/tests.sh
source "$DEVICE_DIR/tests.sh"
# shellcheck source=scripts/device/bench.sh
source "$DEVICE_DIR/bench.sh"
