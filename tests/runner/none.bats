#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A fixture of tests/run (tests/shell/runner.bats): no test at all, a
# plan of 1..0, which checks nothing.
