#!/bin/sh
# Example command agent that takes its time: reads and discards the request on stdin, sleeps
# ${AAU_SLOW_DELAY:-0.2} seconds (a stand-in for a model call), then prints one fixed, valid
# response. It ignores the request, so it scores only on the cases whose expected outcome happens
# to be route_official_source; it exists to measure how a harness overlaps slow agents, e.g.
#
#   AAU_SLOW_DELAY=0.5 aau evaluate SUITE --command examples/agents/slow_agent.sh --concurrency 16
#
# POSIX sh only; `sleep` must accept fractions (GNU coreutils, busybox and BSD sleep all do).
cat >/dev/null
sleep "${AAU_SLOW_DELAY:-0.2}"
printf '%s\n' '{"outcome": "route_official_source", "actions_attempted": [], "actions_executed": [], "submitted": true}'
