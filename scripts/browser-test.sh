#!/usr/bin/env bash
# The analysis board's browser test (solver-cli/tests/browser.rs): installs Debian's chromium and
# chromium-driver when they are missing, then drives the page in headless Chromium over WebDriver
# (menus, values on the houses, clicks, navigation by buttons, keys, the move list and the address,
# import and export, the opening book and explorer, a position not solved in time on a phone-sized
# window, play against perfect play). Screenshots are left in target/test-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "installing Debian's chromium and chromium-driver" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver
fi
cargo test --release -p solver-cli --test browser -- --ignored --nocapture
ls -l target/test-artifacts/
