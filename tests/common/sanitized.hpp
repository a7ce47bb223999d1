#pragma once
// Tests that repeat one check over many cases (random layers, random points, a list of layers
// times objectives) run a third of the cases under ASan + UBSan (scripts/run-sanitized-tests.sh),
// where the arithmetic runs 5 to 10 times slower; the plain suite runs every case. The sanitized
// run is there to find memory errors and undefined behaviour on the code paths, which the kept
// cases still take; the plain run checks the results on all of them. A check over the whole set
// of cases (at least one of them shows an effect) is made only where all of them run.

namespace mapwright::test_cases {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

/// How many of `n` random cases to run: all of them, or a third (at least one) when sanitized.
constexpr int cases(int n) {
  return kSanitized ? (n + 2) / 3 : n;
}

/// Whether to run the `i`-th of a list of cases: each of them, or every third (the first, the
/// fourth, ...) when sanitized.
constexpr bool runs(int i) {
  return !kSanitized || i % 3 == 0;
}

}  // namespace mapwright::test_cases
