// Elementwise kernels: unary math, binary arithmetic with broadcasting, less, where and cast. Every row is
// one Eigen array expression (vectorised by Eigen's packet math); an operand that repeats along the row is
// an Eigen constant, so no broadcast copy is made.
#include "ir/error.h"
#include "sim/profile/broadcast.h"
#include "sim/profile/kernels.h"

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

namespace lightsim::profile {
namespace {

using ir::DType;
using ir::OpClass;
template <class T> using Vec = Eigen::Array<T, Eigen::Dynamic, 1>;
template <class T> struct Tag { using type = T; };

[[noreturn]] void unsupported(const std::string& where, OpClass c, DType d) {
  throw InputError(where, std::string(ir::op_class_name(c)) + " on dtype " + std::string(ir::dtype_name(d)) +
                              " is not supported by the profiler");
}

// Calls f(Tag<T>) for the C++ type of `d` among the allowed kinds.
enum class Kinds { Floating, Numeric, Any };
template <class F> void visit(DType d, Kinds kinds, OpClass c, const std::string& where, F&& f) {
  switch (d) {
  case DType::Float32:
    return f(Tag<float>{});
  case DType::Float64:
    return f(Tag<double>{});
  case DType::Int32:
    if (kinds != Kinds::Floating) return f(Tag<std::int32_t>{});
    break;
  case DType::Int64:
    if (kinds != Kinds::Floating) return f(Tag<std::int64_t>{});
    break;
  case DType::Bool:
    if (kinds == Kinds::Any) return f(Tag<bool>{});
    break;
  default:
    break;
  }
  unsupported(where, c, d);
}

// Hands f either a map of the row or a constant holding its one value.
template <class T, class F> void with_row(const std::byte* p, bool scalar, Eigen::Index n, F&& f) {
  const T* typed = reinterpret_cast<const T*>(p);
  if (scalar)
    f(Vec<T>::Constant(n, *typed));
  else
    f(Eigen::Map<const Vec<T>>(typed, n));
}

// A kernel computing out = expr(rows...) over a broadcast plan; T* are the operand types, To the output's.
template <std::size_t N, class To, class T0, class T1, class T2, class Expr>
Kernel make_rows(Broadcast plan, std::array<const std::byte*, 3> base, std::byte* out, Expr expr) {
  return [plan = std::move(plan), base, out, expr] {
    const Eigen::Index n = plan.row_length();
    const bool s0 = plan.row_scalar(0), s1 = plan.row_scalar(1), s2 = plan.row_scalar(2);
    plan.for_each_row(base, out, [&](const std::array<const std::byte*, 3>& p, std::byte* o) {
      Eigen::Map<Vec<To>> y(reinterpret_cast<To*>(o), n);
      if constexpr (N == 1) {
        with_row<T0>(p[0], s0, n, [&](const auto& a) { y = expr(a, a, a); });
      } else if constexpr (N == 2) {
        with_row<T0>(p[0], s0, n, [&](const auto& a) {
          with_row<T1>(p[1], s1, n, [&](const auto& b) { y = expr(a, b, b); });
        });
      } else {
        with_row<T0>(p[0], s0, n, [&](const auto& a) {
          with_row<T1>(p[1], s1, n, [&](const auto& b) {
            with_row<T2>(p[2], s2, n, [&](const auto& c) { y = expr(a, b, c); });
          });
        });
      }
    });
  };
}

// Same-typed operands, output of the same type: arithmetic and math.
template <class T>
Kernel same_type(OpClass c, Broadcast plan, std::array<const std::byte*, 3> base, std::byte* out,
                 std::size_t n, const std::string& where) {
  const auto mk = [&](auto expr) {
    if (n == 1) return make_rows<1, T, T, T, T>(std::move(plan), base, out, expr);
    return make_rows<2, T, T, T, T>(std::move(plan), base, out, expr);
  };
  switch (c) {
  case OpClass::Add:
    return mk([](const auto& a, const auto& b, const auto&) { return a + b; });
  case OpClass::Subtract:
    return mk([](const auto& a, const auto& b, const auto&) { return a - b; });
  case OpClass::Multiply:
    return mk([](const auto& a, const auto& b, const auto&) { return a * b; });
  case OpClass::Divide:
    return mk([](const auto& a, const auto& b, const auto&) { return a / b; });
  case OpClass::Negative:
    return mk([](const auto& a, const auto&, const auto&) { return -a; });
  case OpClass::Relu:
    return mk([](const auto& a, const auto&, const auto&) { return a.max(T(0)); });
  default:
    break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    switch (c) {
    case OpClass::Power:
      return mk([](const auto& a, const auto& b, const auto&) { return a.pow(b); });
    case OpClass::Sqrt:
      return mk([](const auto& a, const auto&, const auto&) { return a.sqrt(); });
    case OpClass::Rsqrt:
      return mk([](const auto& a, const auto&, const auto&) { return a.rsqrt(); });
    case OpClass::Exp:
      return mk([](const auto& a, const auto&, const auto&) { return a.exp(); });
    case OpClass::Erf:
      return mk([](const auto& a, const auto&, const auto&) { return a.erf(); });
    case OpClass::Sigmoid:
      return mk([](const auto& a, const auto&, const auto&) { return a.logistic(); });
    case OpClass::Tanh:
      return mk([](const auto& a, const auto&, const auto&) { return a.tanh(); });
    default:
      break;
    }
  }
  throw InputError(where, std::string(ir::op_class_name(c)) + " is not an elementwise op the profiler runs");
}

void require(bool ok, const std::string& where, const std::string& what) {
  if (!ok) throw InputError(where, what);
}

} // namespace

bool is_elementwise_kernel(OpClass c) {
  switch (c) {
  case OpClass::Add:
  case OpClass::Subtract:
  case OpClass::Multiply:
  case OpClass::Divide:
  case OpClass::Power:
  case OpClass::Negative:
  case OpClass::Sqrt:
  case OpClass::Rsqrt:
  case OpClass::Exp:
  case OpClass::Erf:
  case OpClass::Relu:
  case OpClass::Sigmoid:
  case OpClass::Tanh:
  case OpClass::Cast:
  case OpClass::Less:
  case OpClass::Where:
    return true;
  default:
    return false;
  }
}

std::size_t elementwise_arity(OpClass c) {
  switch (c) {
  case OpClass::Add:
  case OpClass::Subtract:
  case OpClass::Multiply:
  case OpClass::Divide:
  case OpClass::Power:
  case OpClass::Less:
    return 2;
  case OpClass::Where:
    return 3;
  default:
    return 1;
  }
}

Kernel make_elementwise(OpClass c, const std::vector<TensorRef>& ins, const TensorRef& out,
                        const std::string& where) {
  require(is_elementwise_kernel(c), where, std::string(ir::op_class_name(c)) + " is not elementwise");
  const std::size_t n = elementwise_arity(c);
  require(ins.size() == n, where,
          std::string(ir::op_class_name(c)) + " needs " + std::to_string(n) + " inputs, has " +
              std::to_string(ins.size()));
  Broadcast plan = plan_broadcast(ins, out, where);
  std::array<const std::byte*, 3> base{};
  for (std::size_t i = 0; i < n; ++i)
    base[i] = ins[i].data;
  Kernel kernel;
  if (c == OpClass::Cast) {
    visit(ins[0].dtype, Kinds::Any, c, where, [&](auto from) {
      using From = typename decltype(from)::type;
      visit(out.dtype, Kinds::Any, c, where, [&](auto to) {
        using To = typename decltype(to)::type;
        kernel = make_rows<1, To, From, From, From>(
            std::move(plan), base, out.data,
            [](const auto& a, const auto&, const auto&) { return a.template cast<To>(); });
      });
    });
  } else if (c == OpClass::Less) {
    require(ins[0].dtype == ins[1].dtype && out.dtype == DType::Bool, where,
            "less needs two inputs of one dtype and a uint1/bool output");
    visit(ins[0].dtype, Kinds::Numeric, c, where, [&](auto tag) {
      using T = typename decltype(tag)::type;
      kernel = make_rows<2, bool, T, T, T>(std::move(plan), base, out.data,
                                           [](const auto& a, const auto& b, const auto&) { return a < b; });
    });
  } else if (c == OpClass::Where) {
    require(ins[0].dtype == DType::Bool && ins[1].dtype == out.dtype && ins[2].dtype == out.dtype, where,
            "where needs a uint1/bool condition and two values of the output's dtype");
    visit(out.dtype, Kinds::Any, c, where, [&](auto tag) {
      using T = typename decltype(tag)::type;
      kernel = make_rows<3, T, bool, T, T>(
          std::move(plan), base, out.data,
          [](const auto& cond, const auto& a, const auto& b) { return cond.select(a, b); });
    });
  } else {
    for (const TensorRef& t : ins)
      require(t.dtype == out.dtype, where, "operands and output must share one dtype");
    const Kinds kinds = (c == OpClass::Add || c == OpClass::Subtract || c == OpClass::Multiply ||
                         c == OpClass::Divide || c == OpClass::Negative || c == OpClass::Relu)
                            ? Kinds::Numeric
                            : Kinds::Floating;
    visit(out.dtype, kinds, c, where, [&](auto tag) {
      using T = typename decltype(tag)::type;
      kernel = same_type<T>(c, std::move(plan), base, out.data, n, where);
    });
  }
  return kernel;
}

} // namespace lightsim::profile
