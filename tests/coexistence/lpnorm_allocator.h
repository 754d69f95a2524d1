// lpnorm_allocator.cpp: lpnorm's Halide runtime allocator for the coexistence test.
#pragma once

// While `refuse`, every allocation of lpnorm's Halide runtime fails.
void lpnorm_allocations_fail(bool refuse);
