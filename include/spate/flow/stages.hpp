#pragma once
// Stage descriptors: what a graph is built from. They are values (copyable recipes); a
// graph instantiates them into running node replicas when it runs.
//
//   auto job = flow::pipeline(
//       flow::generate<int>(1000, [](std::size_t i) { return int(i); }),
//       flow::farm(flow::map([](int x) { return x * x; }), 4),
//       flow::sink([&](int x) { total += x; }));
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "spate/exec/link.hpp"
#include "spate/flow/node.hpp"
#include "spate/flow/policies.hpp"
#include "spate/platform/callable_traits.hpp"
#include "spate/platform/type_name.hpp"

namespace spate::flow {

/// How one stage's nodes run.
struct stage_options {
  std::string name;                       ///< in errors, metrics and topology pictures
  bool dedicated_thread = false;          ///< run on a thread of its own instead of the pool
  std::optional<std::size_t> pin_to_cpu;  ///< with dedicated_thread
  /// The links into this stage's nodes; unset: graph_options::links.
  std::optional<link_options> input_links;
};

namespace detail {
// The options of a stage that sets nothing but its name.
inline stage_options named_options(std::string name) {
  stage_options options;
  options.name = std::move(name);
  return options;
}
}  // namespace detail

namespace detail {
template <class N>
struct unchained_node;
// N kept out of operator chains: unchained_node<N>, once.
template <class N>
struct unchained_of {
  using type = unchained_node<N>;
};
template <class N>
struct unchained_of<unchained_node<N>> {
  using type = unchained_node<N>;
};
template <class N>
using unchained_t = typename unchained_of<N>::type;
}  // namespace detail

/// A stage of one node type: `make` builds a node for each replica.
template <class N>
struct node_stage {
  using node_type = N;                          ///< the node class
  using input_type = typename N::input_type;    ///< what it consumes (void: a source)
  using output_type = typename N::output_type;  ///< what it sends (void: a sink)

  std::function<N()> make;  ///< builds one replica's node
  stage_options options;    ///< its name and where it runs

  /// A copy named `name`.
  node_stage named(std::string name) const {
    node_stage copy = *this;
    copy.options.name = std::move(name);
    return copy;
  }
  /// A copy whose input links (one per upstream replica and replica of this stage) are made
  /// with `links` instead of graph_options::links (WindFlow's builders set per-operator
  /// queue sizes the same way).
  /// Such a stage is its own task, never chained (flow::unchained).
  node_stage<detail::unchained_t<N>> with_input_links(const link_options& links) const {
    auto copy = apart();
    copy.options.input_links = links;
    return copy;
  }
  /// A copy whose nodes run on threads of their own (pinned to `cpu` when given), each its
  /// own task, never chained (flow::unchained).
  node_stage<detail::unchained_t<N>> on_dedicated_thread(
      std::optional<std::size_t> cpu = std::nullopt) const {
    auto copy = apart();
    copy.options.dedicated_thread = true;
    copy.options.pin_to_cpu = cpu;
    return copy;
  }

 private:
  node_stage<detail::unchained_t<N>> apart() const;
};

/// Stages in sequence (flow::pipeline).
template <class... Stages>
struct pipeline_stage {
  std::tuple<Stages...> stages;  ///< in order
  /// The first stage's input.
  using input_type = typename std::tuple_element_t<0, std::tuple<Stages...>>::input_type;
  /// The last stage's output.
  using output_type =
      typename std::tuple_element_t<sizeof...(Stages) - 1, std::tuple<Stages...>>::output_type;
};

/// Replicas of a worker stage fed by a routing policy (flow::farm, flow::ordered_farm).
template <class Worker, class Policy>
struct farm_stage {
  using input_type = typename Worker::input_type;    ///< the worker's input
  using output_type = typename Worker::output_type;  ///< the worker's output
  Worker worker;         ///< a node stage or a pipeline, instantiated once per replica
  std::size_t replicas;  ///< how many
  Policy policy;         ///< which replica gets each item
  bool ordered = false;  ///< outputs in input order (ordered_farm)
  std::string name;      ///< for its router and collector
};

template <class S>
struct is_stage : std::false_type {};
template <class N>
struct is_stage<node_stage<N>> : std::true_type {};
template <class... S>
struct is_stage<pipeline_stage<S...>> : std::true_type {};
template <class W, class P>
struct is_stage<farm_stage<W, P>> : std::true_type {};

namespace detail {
/// The member a node type must define, checked where the user names the node, so that a
/// misspelled consume() or produce() is reported with its name instead of deep in a task.
template <class N>
constexpr bool check_node_members() {
  using In = typename N::input_type;
  if constexpr (std::is_void_v<In>) {
    static_assert(
        requires(N& n) { n.produce(); },
        "spate::flow: a source (node<void, Out>) must define `bool produce()` (or return "
        "produce_status); this node has no member produce() - check its spelling");
  } else {
    static_assert(
        requires(N& n, In& item) { n.consume(item); },
        "spate::flow: a node<In, Out> must define `void consume(In&)` (or `const In&`); this "
        "node has no member consume() callable with In& - check its spelling and argument type");
  }
  return true;
}
}  // namespace detail

/// Anything a pipeline accepts: a stage descriptor, or a node object (copied per replica).
template <class X>
concept stage_like = is_stage<std::decay_t<X>>::value || node_type<std::decay_t<X>>;

template <stage_like X>
auto as_stage(X&& x) {
  using T = std::decay_t<X>;
  if constexpr (is_stage<T>::value) {
    return T(std::forward<X>(x));
  } else {
    static_assert(detail::check_node_members<T>());
    static_assert(std::is_copy_constructible_v<T>,
                  "spate::flow: a node object given to a pipeline or farm is copied for each "
                  "replica; make it copyable or use flow::make_stage<N>(args...)");
    return node_stage<T>{[prototype = T(std::forward<X>(x))] { return prototype; },
                         detail::named_options(type_name<T>())};
  }
}

/// A node built in place for each replica: make_stage<tokenizer>(",").
template <class N, class... Args>
node_stage<N> make_stage(Args... args) {
  static_assert(node_type<N>, "make_stage<N>: N must derive from spate::flow::node<In, Out>");
  static_assert(detail::check_node_members<N>());
  return {[=] { return N(args...); }, detail::named_options(type_name<N>())};
}

namespace detail {

/// Used only when two stages disagree. Deleted, so that the compiler's FIRST error line
/// names the stage (from 0) and both types, "use of deleted function '... [with ... Stage = 1;
/// Produces = std::string; Consumes = int]'", where a static_assert could only print a
/// fixed text and leave the types to the "In instantiation of" lines above it.
template <std::size_t Stage, class Produces, class Consumes>
constexpr bool pipeline_stage_produces_a_type_the_next_stage_does_not_consume() = delete;

/// Instantiated for each link of a pipeline: the name and arguments also appear in the
/// instantiation context, "link_type_mismatch<1, std::string, int>".
template <std::size_t Position, class Produces, class Consumes>
struct link_type_mismatch {
  static constexpr bool ok =
      pipeline_stage_produces_a_type_the_next_stage_does_not_consume<Position, Produces,
                                                                     Consumes>();
};
/// The stages agree.
template <std::size_t Position, class T>
struct link_type_mismatch<Position, T, T> {
  static constexpr bool ok = true;  ///< always
};

template <class Tuple, std::size_t... I>
constexpr bool check_links(std::index_sequence<I...>) {
  return (link_type_mismatch<I, typename std::tuple_element_t<I, Tuple>::output_type,
                             typename std::tuple_element_t<I + 1, Tuple>::input_type>::ok &&
          ... && true);
}

}  // namespace detail

template <stage_like... Stages>
auto pipeline(Stages&&... stages) {
  static_assert(sizeof...(Stages) >= 1, "spate::flow::pipeline needs at least one stage");
  using tuple_type = std::tuple<decltype(as_stage(std::forward<Stages>(stages)))...>;
  static_assert(detail::check_links<tuple_type>(std::make_index_sequence<sizeof...(Stages) - 1>{}));
  return pipeline_stage<decltype(as_stage(std::forward<Stages>(stages)))...>{
      tuple_type(as_stage(std::forward<Stages>(stages))...)};
}

namespace detail {
/// The node a worker starts with.
template <class W>
struct first_node;
template <class N>
struct first_node<node_stage<N>> {
  using type = N;
};
template <class S0, class... S>
struct first_node<pipeline_stage<S0, S...>> : first_node<S0> {};
// A farm inside: its replicas would not know the outer farm's replica index, and each
// outer replica would send the same shares again; not a parallel source.
template <class W, class P>
struct first_node<farm_stage<W, P>> {
  using type = void;
};
}  // namespace detail

/// A source each of whose replicas sends its own share of the stream (by replica_index()
/// of replica_count()), and so may be farmed: it says so with
/// `static constexpr bool parallel_source = true;`. A source that does not would send its
/// whole stream once per replica (or, reading one link, race for it).
template <class N>
concept parallel_source_node = !std::is_void_v<N> && requires { requires N::parallel_source; };

/// `replicas` copies of `worker` (a node, or a pipeline of nodes), fed by `policy`.
///
/// A worker that starts with a parallel_source_node makes a parallel source: no policy
/// routes anything to it, and each replica produces its own share of the stream
/// (node_context's replica_index() of replica_count() says which), as Flink's parallel
/// source functions do. With checkpoints, each replica's position is its own: a checkpoint
/// restores onto the same replica count only (with another, its fingerprint differs, and
/// the job starts afresh with a warning). Its outputs merge into the next stage:
/// farm(pipeline(source, parse), 2) runs two chained source -> parse tasks.
template <stage_like Worker, class Policy = round_robin>
auto farm(Worker&& worker, std::size_t replicas, Policy policy = {}) {
  auto w = as_stage(std::forward<Worker>(worker));
  if constexpr (std::is_void_v<typename decltype(w)::input_type>) {
    static_assert(std::is_same_v<Policy, round_robin>,
                  "spate::flow::farm: a farm of sources (a parallel source) routes nothing: "
                  "give it no policy");
    static_assert(parallel_source_node<typename detail::first_node<decltype(w)>::type>,
                  "spate::flow::farm: this source does not declare `static constexpr bool "
                  "parallel_source = true;`: each replica must send its own share of the "
                  "stream (replica_index() of replica_count()), or one replica is enough");
  }
  if (replicas == 0) throw std::invalid_argument("spate::flow::farm: replicas must be >= 1");
  return farm_stage<decltype(w), Policy>{std::move(w), replicas, std::move(policy), false, "farm"};
}

/// A farm whose output keeps the input order (a collector restores it). Workers must be
/// single nodes; they may send any number of items per input.
template <stage_like Worker, class Policy = round_robin>
auto ordered_farm(Worker&& worker, std::size_t replicas, Policy policy = {}) {
  auto f = farm(std::forward<Worker>(worker), replicas, std::move(policy));
  static_assert(!is_broadcast_v<Policy>,
                "spate::flow::ordered_farm: broadcast has no order to keep");
  static_assert(!std::is_void_v<typename decltype(f)::input_type>,
                "spate::flow::ordered_farm: sources have no input order to keep");
  f.ordered = true;
  f.name = "ordered_farm";
  return f;
}

// ---------------------------------------------------------------- operator chaining

namespace detail {
/// A node kept out of operator chains (flow::unchained): N itself, marked.
template <class N>
struct unchained_node : N {
  static constexpr bool unchained = true;  ///< read by detail::chainable_node
  explicit unchained_node(N n) : N(std::move(n)) {}
};
}  // namespace detail

/// Operator chaining. Adjacent single-node stages of a pipeline run as one task, each item
/// handed from one to the next by a function call, with no link, wake-up or copy between
/// them (as Flink chains forward edges by default). A stage with keyed state, a snapshot, a
/// two-phase commit, a refusal of checkpoints or wake-ups of its own (a timed window) is not
/// chained, nor is a source to a sink. Each chained node keeps its name, counters and errors;
/// node_info::chain names the chain (after its first node) and the topology joins them by "chained"
/// edges.
///
/// unchained(stage) keeps `stage` apart: it runs as a task of its own, linked to its
/// neighbours. Given a pipeline or a farm, it keeps every stage in it apart. Chaining gives
/// up pipeline parallelism between the chained stages; unchain a stage that is worth a
/// core of its own.
template <class N>
node_stage<detail::unchained_t<N>> unchained(const node_stage<N>& stage) {
  if constexpr (std::is_same_v<detail::unchained_t<N>, N>) {
    return stage;  // already apart
  } else {
    return {[make = stage.make] { return detail::unchained_node<N>(make()); }, stage.options};
  }
}

template <class N>
node_stage<detail::unchained_t<N>> node_stage<N>::apart() const {
  return unchained(*this);
}
/// Every stage of the pipeline apart.
template <class... S>
auto unchained(const pipeline_stage<S...>& p) {
  return std::apply([](const auto&... s) { return pipeline(unchained(s)...); }, p.stages);
}
/// Every stage of the farm's worker apart.
template <class W, class P>
auto unchained(const farm_stage<W, P>& farm) {
  using worker = decltype(unchained(farm.worker));
  return farm_stage<worker, P>{unchained(farm.worker), farm.replicas, farm.policy, farm.ordered,
                               farm.name};
}
/// A node object: as a stage of its own.
template <stage_like X>
  requires(!is_stage<std::decay_t<X>>::value)
auto unchained(X&& x) {
  return unchained(as_stage(std::forward<X>(x)));
}

// ---------------------------------------------------------------- lambda forms

namespace detail {

/// \cond recursive_traits
template <class F>
struct two_argument_signature : two_argument_signature<decltype(&std::decay_t<F>::operator())> {};
template <class F, class Second>
struct two_argument_signature_with : two_argument_signature<F> {};
template <class F, class Second>
  requires(!requires { &std::decay_t<F>::operator(); })
struct two_argument_signature_with<F, Second>
    : two_argument_signature<decltype(&std::decay_t<F>::template operator()<Second>)> {};
template <class C, class R, class A, class B>
struct two_argument_signature<R (C::*)(A, B) const> {
  using first = std::decay_t<A>;
};
template <class C, class R, class A, class B>
struct two_argument_signature<R (C::*)(A, B)> {
  using first = std::decay_t<A>;
};
/// \endcond

template <class F, class In, class Out>
struct map_node : node<In, Out> {
  F f;
  explicit map_node(F fn) : f(std::move(fn)) {}
  /// One output per input: node_task moves whole batches through apply(); consume() is the
  /// per-item form of the same thing.
  Out apply(In& item) { return f(item); }
  void consume(In& item) { this->send_next(apply(item)); }
};

template <class F, class T>
struct filter_node : node<T, T> {
  F f;
  explicit filter_node(F fn) : f(std::move(fn)) {}
  void consume(T& item) {
    if (f(std::as_const(item))) this->send_next(std::move(item));
  }
};

/// What flat_map's function receives to send items: emit(item).
template <class Out>
class emitter {
 public:
  template <class Node>
  explicit emitter(Node* target) : target_(target), send_(&forward<Node>) {}
  void operator()(Out item) const { send_(target_, std::move(item)); }

 private:
  template <class Node>
  static void forward(void* target, Out&& item) {
    static_cast<Node*>(target)->emit(std::move(item));
  }
  void* target_;
  void (*send_)(void*, Out&&);
};

template <class F, class In, class Out>
struct flat_map_node : node<In, Out> {
  F f;
  explicit flat_map_node(F fn) : f(std::move(fn)) {}
  void consume(In& item) { f(item, emitter<Out>(this)); }
  void emit(Out&& item) { this->send_next(std::move(item)); }
};

template <class F, class In>
struct sink_node : node<In, void> {
  F f;
  explicit sink_node(F fn) : f(std::move(fn)) {}
  void consume(In& item) { f(item); }
};

template <class F, class Out>
struct generator_node : node<void, Out> {
  F f;
  std::size_t count, next = 0;
  generator_node(F fn, std::size_t n) : f(std::move(fn)), count(n) {}
  bool produce() {
    if (next == count) return false;
    this->send_next(make_next());
    return next != count;
  }
  /// Counted: node_task may make whole batches (node_task::consume_some).
  std::size_t remaining() const { return count - next; }
  Out make_next() { return f(next++); }
  /// Checkpoints (flow/checkpoints.hpp): the index of the next item; a restore resumes there.
  std::uint64_t checkpoint_position() const { return next; }
  void seek(std::uint64_t position) {
    if (position > count) {
      throw std::out_of_range("spate::flow::generate: position " + std::to_string(position) +
                              " is past the last of " + std::to_string(count) + " items");
    }
    next = static_cast<std::size_t>(position);
  }
};

template <class F, class Out>
struct optional_source_node : node<void, Out> {
  F f;
  explicit optional_source_node(F fn) : f(std::move(fn)) {}
  bool produce() {
    std::optional<Out> item = f();
    if (!item) return false;
    this->send_next(std::move(*item));
    return true;
  }
};

template <class N>
node_stage<N> lambda_stage(N n, const char* name) {
  return {[prototype = std::move(n)] { return prototype; }, detail::named_options(name)};
}

}  // namespace detail

namespace detail {
/// A lambda whose parameter type can be read off (not a generic `auto` lambda).
template <class F>
concept has_fixed_signature = requires { &std::decay_t<F>::operator(); } ||
                              std::is_function_v<std::remove_pointer_t<std::decay_t<F>>>;
}  // namespace detail

/// In -> f(In): one output per input. map<In>(f) names the input type, for generic lambdas.
template <class In, class F>
  requires(!std::is_void_v<In>)
auto map(F f) {
  using Out = std::decay_t<std::invoke_result_t<F&, In&>>;
  static_assert(!std::is_void_v<Out>,
                "spate::flow::map: the function must return a value (use sink)");
  return detail::lambda_stage(detail::map_node<F, In, Out>(std::move(f)), "map");
}
template <class F>
auto map(F f) {
  static_assert(detail::has_fixed_signature<F>,
                "spate::flow::map: a generic lambda (an `auto` parameter) has no input type to "
                "deduce; name it: flow::map<In>(f)");
  if constexpr (detail::has_fixed_signature<F>) {
    return map<typename handler_signature<F>::argument>(std::move(f));
  }
}

/// Keeps the items for which pred(item) is true. filter<T>(pred) for generic lambdas.
template <class T, class F>
  requires(!std::is_void_v<T>)
auto filter(F pred) {
  return detail::lambda_stage(detail::filter_node<F, T>(std::move(pred)), "filter");
}
template <class F>
auto filter(F pred) {
  static_assert(detail::has_fixed_signature<F>,
                "spate::flow::filter: a generic lambda (an `auto` parameter) has no input type "
                "to deduce; name it: flow::filter<T>(f)");
  if constexpr (detail::has_fixed_signature<F>) {
    return filter<typename handler_signature<F>::argument>(std::move(pred));
  }
}

/// f(In&, emit) calls emit(Out) any number of times: flat_map<std::string>([](std::string&
/// line, auto emit) { for (...) emit(word); }).
template <class Out, class F>
auto flat_map(F f) {
  /// A generic lambda (auto emit) is resolved with the emitter type.
  using In = typename detail::two_argument_signature_with<F, detail::emitter<Out>>::first;
  return detail::lambda_stage(detail::flat_map_node<F, In, Out>(std::move(f)), "flat_map");
}

/// Calls f(item) for every item. sink<In>(f) for generic lambdas.
template <class In, class F>
  requires(!std::is_void_v<In>)
auto sink(F f) {
  return detail::lambda_stage(detail::sink_node<F, In>(std::move(f)), "sink");
}
template <class F>
auto sink(F f) {
  static_assert(detail::has_fixed_signature<F>,
                "spate::flow::sink: a generic lambda (an `auto` parameter) has no input type "
                "to deduce; name it: flow::sink<In>(f)");
  if constexpr (detail::has_fixed_signature<F>) {
    return sink<typename handler_signature<F>::argument>(std::move(f));
  }
}

/// A source of `count` items f(0), f(1), ...
template <class Out, class F>
auto generate(std::size_t count, F f) {
  return detail::lambda_stage(detail::generator_node<F, Out>(std::move(f), count), "source");
}

/// A source that calls f() -> std::optional<Out> until it returns nullopt.
template <class F>
auto source_from(F f) {
  using Out = typename std::invoke_result_t<F&>::value_type;
  return detail::lambda_stage(detail::optional_source_node<F, Out>(std::move(f)), "source");
}

/// A source over a copy of `items`.
template <class Container>
auto from_range(Container items) {
  using Out = typename Container::value_type;
  auto shared = std::make_shared<const Container>(std::move(items));
  return generate<Out>(shared->size(), [shared](std::size_t i) { return (*shared)[i]; });
}

}  // namespace spate::flow
