// LIGHTSIM_NATIVE_API marks what the profiler's native kernel library exports: the kernels, their plans and
// the shape rules (kernels.h, op_plans.h, broadcast.h, strided_copy.h, shape_rules.h). That library
// (lightsim_profile_kernels, sim/profile/CMakeLists.txt) is a shared object compiled for this machine
// (-march=native) with every other symbol hidden and its copies of inline code (std::, Eigen) kept local,
// so that no binary holds inline code compiled with two sets of flags (tests/check_native_odr.py).
//
// It is not an ABI promise: the library is built and loaded with the tools of the same build.
#pragma once

#define LIGHTSIM_NATIVE_API __attribute__((visibility("default")))
// For a member template of an exported class that only the library itself instantiates: its instances
// stay hidden (unoptimised builds emit them as weak symbols, which the library must not export).
#define LIGHTSIM_NATIVE_LOCAL __attribute__((visibility("hidden")))
