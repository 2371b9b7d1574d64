#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A fixture of tests/run (tests/shell/runner.bats): skips of each kind.

@test "a skip for a tool scripts/install-deps.sh installs" {
	skip "pv is not installed (scripts/install-deps.sh)"
}

@test "a skip for what this machine lacks" {
	skip "needs a hardware PMU (this machine has none)"
}

@test "a skip for a tool the set-up does not install" {
	skip "frobnicate is not installed"
}
