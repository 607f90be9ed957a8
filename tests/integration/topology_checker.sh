#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The emulated-topology checker's self-test (tests/topology/selftest.sh): the
# recorded guest results must pass and doctored copies must fail, with every awk
# on the machine. No guest is booted here; `make check-topology` does that.
cd "$(dirname "$0")/../.."
exec sh tests/topology/selftest.sh
