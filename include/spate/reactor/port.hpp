#pragma once
// Ports (LF paper, Sect. 2.1): typed inputs and outputs of a reactor. A port holds at most
// one value per tag and is absent again at the next tag. Ports joined by connections without
// a delay share one value: every reader reads the writer's port (its *root*), so a value
// read by many readers is neither copied nor counted.
//
// Reading is public (`get`, `is_present`); writing is not: a reaction sets a port only
// through the writer its `effects(...)` declaration hands to its body, so setting a port that
// was not declared as an effect does not compile.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "spate/platform/export.hpp"
#include "spate/reactor/element.hpp"

namespace spate::reactor {

namespace detail {
class assembler;
class reaction_scheduler;
struct delayed_connection;

/// Which channels of one multiport are present at the current tag (LF's sparse multiports):
/// when a port becomes present, it appends the index of every multiport channel that reads
/// it, so listing the present channels costs in proportion to their number, not the width.
///
/// Threads: mark() from the reactions that set the channels' ports, in parallel (each index
/// is marked at most once a tag: only when its port goes from absent to present, and a port
/// has one writer at a time); present() from a reaction that declared the multiport as a trigger or
/// source, which runs after every writer of it has completed (the reaction scheduler's dependency
/// counters order those writes before it); reset() by the thread that ends the tag.
class channel_presence {
 public:
  explicit channel_presence(std::size_t width) : slots_(width) {}
  void mark(std::size_t channel) noexcept {
    slots_[count_.fetch_add(1, std::memory_order_relaxed)] = channel;
  }
  void reset() noexcept { count_.store(0, std::memory_order_relaxed); }
  std::span<const std::size_t> present() const noexcept {
    return {slots_.data(), count_.load(std::memory_order_relaxed)};
  }

 private:
  std::vector<std::size_t> slots_;
  std::atomic<std::size_t> count_{0};
};

/// A multiport channel that reads a root port: where to mark it.
struct channel_reader {
  channel_presence* presence;
  std::size_t channel;
};
}  // namespace detail

template <class Port>
class multiport;

enum class port_direction { input, output };

/// What every port shares: direction, value, connections.
class SPATE_API port_base : public element, public detail::event_target {
 public:
  /// Input or output.
  port_direction direction() const noexcept { return direction_; }
  /// True for an input.
  bool is_input() const noexcept { return direction_ == port_direction::input; }
  /// Present at the current tag. Call only from a reaction that declared this port as a
  /// trigger or a source (or an effect it set): that is what orders the read after the write.
  bool is_present() const noexcept { return root_->present_; }
  /// Itself, as the element it is.
  const element& as_element() const noexcept override { return *this; }

 protected:
  /// A port named `name` in `container`.
  port_base(std::string name, reactor* container, port_direction direction);
  /// Throws: the port has no value at this tag.
  [[noreturn]] void throw_absent() const;
  /// The value at the end of its connection chain.
  const detail::erased_value& root_value() const noexcept { return root_->value_; }

 private:
  friend class detail::assembler;
  friend class detail::reaction_scheduler;
  friend class reaction;
  friend void set_port_value(reaction&, port_base&, detail::erased_value);
  template <class Port>
  friend class multiport;
  /// Delivers a value to this root port; when it was absent, marks the multiport channels
  /// reading it and returns true.
  bool deliver_to_root(detail::erased_value value) {
    const bool was_present = present_;
    deliver(std::move(value));
    if (!was_present)
      for (const detail::channel_reader& c : channel_readers_) c.presence->mark(c.channel);
    return !was_present;
  }
  /// Absent again at the end of the tag, and so are the channels reading it.
  void clear_root() noexcept {
    if (!present_) return;
    clear();
    for (const detail::channel_reader& c : channel_readers_) c.presence->reset();
  }
  port_direction direction_;
  port_base* root_ = this;           ///< the port whose value this one reads (assembly)
  port_base* inward_ = nullptr;      ///< the upstream end of this port's connection, if any
  bool inward_is_delayed = false;    ///< that connection has an `after` delay or is physical
  std::vector<port_base*> outward_;  ///< downstream ends of connections without delay
  std::vector<detail::delayed_connection*> delayed_;  ///< delayed connections from the closure
  std::vector<detail::delayed_connection*> delayed_leaving_;  ///< delayed connections from here
  std::vector<reaction*> readers_;  ///< reactions that declared it as trigger or source
  std::vector<reaction*> writers_;  ///< reactions that declared it as an effect
  /// When it is a multiport's channel: that multiport's presence and this channel's index.
  detail::channel_reader as_channel_{nullptr, 0};
  /// When it is a root: the multiport channels whose root it is (assembly).
  std::vector<detail::channel_reader> channel_readers_;
};

/// A port carrying values of type T.
template <class T>
class port : public port_base {
 public:
  /// The type of its values.
  using value_type = T;
  /// The value at the current tag; throws std::logic_error (naming the port) when absent.
  /// (Spelled so that port<void>, a port that carries presence only, is well-formed.)
  std::add_lvalue_reference_t<const T> get() const
    requires(!std::is_void_v<T>)
  {
    if (!is_present()) throw_absent();
    return root_value().template get<T>();
  }
  /// The current value (throws when absent).
  std::add_lvalue_reference_t<const T> operator*() const
    requires(!std::is_void_v<T>)
  {
    return get();
  }
  /// The current value (throws when absent).
  const T* operator->() const
    requires(!std::is_void_v<T>)
  {
    return &get();
  }
  /// The value as a shared immutable pointer (for keeping it beyond the tag without a copy of
  /// a large value); null when absent.
  std::shared_ptr<const T> get_shared() const
    requires(!std::is_void_v<T>)
  {
    if (!is_present()) return nullptr;
    return root_value().template get_shared<T>();
  }

 protected:
  /// As port_base's constructor.
  using port_base::port_base;
};

/// An input port.
template <class T>
class input final : public port<T> {
 public:
  /// An input named `name` of `container`.
  input(reactor* container, std::string name)
      : port<T>(std::move(name), container, port_direction::input) {}
};

/// An output port.
template <class T>
class output final : public port<T> {
 public:
  /// An output named `name` of `container`.
  output(reactor* container, std::string name)
      : port<T>(std::move(name), container, port_direction::output) {}

  /// Not a way to write: a reaction writes an output through the port_writer its body
  /// receives for a declared effect (compile error saying so).
  template <class V>
  void set(V&&) const {
    static_assert(sizeof(V) == 0,
                  "an output is written by a reaction that declares it: add .effects(out) to "
                  "the reaction and take port_writer<T>& in the body, then call set() on that");
  }
};

/// A port of a width fixed when it is made (LF's multiport): `in[i]` is the i-th channel.
/// Channels are ordinary ports named "in[i]", so they connect, trigger and are read as ports.
template <class Port>
class multiport {
 public:
  /// The type of its ports.
  using port_type = Port;
  /// The type of their values.
  using value_type = typename Port::value_type;

  /// `width` ports named name[i].
  multiport(reactor* container, std::string name, std::size_t width)
      : name_(std::move(name)), presence_(width) {
    for (std::size_t i = 0; i < width; ++i) {
      ports_.emplace_back(container, name_ + "[" + std::to_string(i) + "]");
      ports_.back().as_channel_ = {&presence_, i};
    }
  }
  multiport(const multiport&) = delete;
  multiport& operator=(const multiport&) = delete;

  /// Its name.
  const std::string& name() const noexcept { return name_; }
  /// How many ports.
  std::size_t width() const noexcept { return ports_.size(); }
  /// How many ports.
  std::size_t size() const noexcept { return ports_.size(); }
  /// Port i.
  Port& operator[](std::size_t i) { return ports_[i]; }
  /// Port i.
  const Port& operator[](std::size_t i) const { return ports_[i]; }
  /// The first port.
  auto begin() { return ports_.begin(); }
  /// After the last port.
  auto end() { return ports_.end(); }
  /// The first port.
  auto begin() const { return ports_.begin(); }
  /// After the last port.
  auto end() const { return ports_.end(); }

  /// The channels present at this tag, in increasing order (LF's sparse iteration): costs
  /// in proportion to their number k (k log k), not to the width. Call it from a reaction that
  /// declared the multiport as a trigger or a source (those run after every writer of it).
  std::vector<std::size_t> present_indices() const {
    const std::span<const std::size_t> present = presence_.present();
    std::vector<std::size_t> sorted(present.begin(), present.end());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
  }
  /// The same channels in the order they became present (which depends on how the workers
  /// ran their writers: not deterministic across runs); no copy, no sort. Valid until the
  /// tag ends.
  std::span<const std::size_t> present_indices_unsorted() const noexcept {
    return presence_.present();
  }
  /// True when any of its ports has a value.
  bool any_present() const noexcept { return !presence_.present().empty(); }

 private:
  std::string name_;
  detail::channel_presence presence_;
  std::deque<Port> ports_;  ///< deque: ports never move
};

template <class T>
using multiport_input = multiport<input<T>>;
template <class T>
using multiport_output = multiport<output<T>>;

}  // namespace spate::reactor
