#include "sim/profile/shape_rules.h"

#include "ir/error.h"

#include <numeric>

namespace lightsim::profile {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw InputError(where, what);
}

std::vector<int> match_axes(const Shape& in, const Shape& out, bool reverse_ties) {
  const std::size_t rank = in.size();
  std::vector<bool> used(rank, false);
  std::vector<int> perm(rank, -1);
  for (std::size_t j = 0; j < rank; ++j) {
    const bool reverse = reverse_ties && out[j] != 1;
    for (std::size_t step = 0; step < rank; ++step) {
      const std::size_t i = reverse ? rank - 1 - step : step;
      if (!used[i] && in[i] == out[j]) {
        used[i] = true;
        perm[j] = static_cast<int>(i);
        break;
      }
    }
    if (perm[j] < 0) return {};
  }
  return perm;
}

bool is_identity(const std::vector<int>& perm) {
  for (std::size_t j = 0; j < perm.size(); ++j)
    if (perm[j] != static_cast<int>(j)) return false;
  return true;
}

} // namespace

std::string shape_text(const Shape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

std::vector<std::int64_t> contiguous_strides(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

std::vector<int> infer_permutation(const Shape& in, const Shape& out, const std::string& where) {
  if (in.size() != out.size())
    fail(where, "transpose from " + shape_text(in) + " to " + shape_text(out) + " changes the rank");
  std::vector<int> perm = match_axes(in, out, false);
  if (perm.empty())
    fail(where, "transpose output " + shape_text(out) + " is not a permutation of " + shape_text(in));
  if (is_identity(perm)) {
    std::vector<int> reversed = match_axes(in, out, true);
    if (!reversed.empty()) perm = std::move(reversed);
  }
  return perm;
}

std::vector<bool> infer_reduced_axes(const Shape& in, const Shape& out, const std::string& where) {
  std::vector<bool> reduced(in.size(), false);
  const auto out_elements = std::accumulate(out.begin(), out.end(), std::int64_t{1}, std::multiplies<>());
  if (out_elements == 1) return std::vector<bool>(in.size(), true);
  if (in.size() == out.size()) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (out[i] == in[i]) continue;
      if (out[i] != 1)
        fail(where, "reduction from " + shape_text(in) + " to " + shape_text(out) + ": axis " +
                        std::to_string(i) + " is neither kept nor reduced to 1");
      reduced[i] = true;
    }
    return reduced;
  }
  std::size_t j = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (j < out.size() && in[i] == out[j])
      ++j;
    else
      reduced[i] = true;
  }
  if (j != out.size())
    fail(where, "reduction output " + shape_text(out) + " is not a subsequence of " + shape_text(in));
  return reduced;
}

std::vector<ReducePass> plan_reduce_passes(const Shape& in, const std::vector<bool>& reduced,
                                           std::int64_t& count) {
  std::vector<std::pair<bool, std::int64_t>> runs; // (reduced, size)
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == 1) continue;
    if (!runs.empty() && runs.back().first == reduced[i])
      runs.back().second *= in[i];
    else
      runs.emplace_back(reduced[i], in[i]);
  }
  std::vector<ReducePass> passes;
  count = 1;
  std::int64_t inner = 1;
  for (std::size_t r = runs.size(); r-- > 0;) {
    if (!runs[r].first) {
      inner *= runs[r].second;
      continue;
    }
    std::int64_t outer = 1;
    for (std::size_t q = 0; q < r; ++q)
      outer *= runs[q].second;
    passes.push_back({outer, runs[r].second, inner});
    count *= runs[r].second;
  }
  return passes;
}

int infer_concat_axis(const std::vector<Shape>& parts, const Shape& whole, const std::string& where) {
  if (parts.empty()) fail(where, "concatenate/split without parts");
  for (const Shape& p : parts)
    if (p.size() != whole.size())
      fail(where, "part " + shape_text(p) + " and whole " + shape_text(whole) + " differ in rank");
  for (std::size_t axis = 0; axis < whole.size(); ++axis) {
    std::int64_t sum = 0;
    bool others_agree = true;
    for (const Shape& p : parts) {
      sum += p[axis];
      for (std::size_t d = 0; d < whole.size(); ++d)
        if (d != axis && p[d] != whole[d]) others_agree = false;
    }
    if (others_agree && sum == whole[axis]) return static_cast<int>(axis);
  }
  fail(where, "no axis along which the parts add up to " + shape_text(whole));
}

int infer_take_axis(const Shape& data, const Shape& indices, const Shape& out, const std::string& where) {
  for (std::size_t a = 0; a < data.size(); ++a) {
    Shape expect(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(a));
    expect.insert(expect.end(), indices.begin(), indices.end());
    expect.insert(expect.end(), data.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.end());
    if (expect == out) return static_cast<int>(a);
  }
  if (out == indices) return -1;
  fail(where, "take of " + shape_text(data) + " by indices " + shape_text(indices) + " cannot give " +
                  shape_text(out));
}

void check_slice(const Shape& in, const Shape& out, const std::string& where) {
  bool ok = in.size() == out.size();
  for (std::size_t i = 0; ok && i < in.size(); ++i)
    ok = out[i] <= in[i];
  if (!ok) fail(where, "strided_slice output " + shape_text(out) + " does not fit in " + shape_text(in));
}

} // namespace lightsim::profile
