#!/bin/sh
# The Windows build's CMAKE_CROSSCOMPILING_EMULATOR (cmake/toolchains/x86_64-w64-mingw32.cmake):
# runs a program under Wine ($1), once more when Wine failed to start it. Such a run exits with
# an error and prints nothing at all (about once in 4,700 runs on 2 cores); ctest's test
# listing (gtest_discover_tests) then fails the whole suite, where --repeat until-pass covers
# only the tests themselves. A program that fails and prints something is not run again.
wine="$1"
shift
out=$(mktemp) && err=$(mktemp) || exit 1
"$wine" "$@" >"$out" 2>"$err"
status=$?
if [ "$status" -ne 0 ] && [ ! -s "$out" ] && [ ! -s "$err" ]; then
    "$wine" "$@" >"$out" 2>"$err"
    status=$?
fi
cat "$out"
cat "$err" >&2
rm -f "$out" "$err"
exit "$status"
