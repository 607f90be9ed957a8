#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The raw.csv fuzz test (tests/fuzz/raw_csv.sh: 1,000 seeded mutations through
# harness report and compare) against bin/harness; `make sanitize` runs the same
# script against the ASan + UBSan build.
exec "$(dirname "$0")/../fuzz/raw_csv.sh"
