#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The levers fuzz test (tests/fuzz/levers.sh: crafted records whose levers table
# would show a negative, overshooting or missing share or cost, through harness
# plot) against bin/harness; `make sanitize` runs the same script against the
# ASan + UBSan build.
exec "$(dirname "$0")/../fuzz/levers.sh"
