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
#include <cstdint>
#include <memory>
#include <new>
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
  /// What a root port lists for each channel that reads it (port_base::channel_readers_).
  /// Marking through it touches this small array and the presence, not the channel's port:
  /// in a wide mesh of multiports (Savina's big) the reading port is rarely in a cache.
  struct entry {
    channel_presence* owner;
  };

  explicit channel_presence(std::size_t width) : slots_(width), entries_(width, entry{this}) {}
  channel_presence(const channel_presence&) = delete;  // entries point back at it
  channel_presence& operator=(const channel_presence&) = delete;

  /// Marks the channel `e` stands for (its index is its position in the entries).
  static void mark(const entry* e) noexcept {
    channel_presence& p = *e->owner;
    p.slots_[p.count_.fetch_add(1, std::memory_order_relaxed)] =
        static_cast<std::size_t>(e - p.entries_.data());
  }
  /// Channel `channel`'s entry.
  const entry* entry_of(std::size_t channel) const noexcept { return &entries_[channel]; }
  void reset() noexcept { count_.store(0, std::memory_order_relaxed); }
  std::span<const std::size_t> present() const noexcept {
    return {slots_.data(), count_.load(std::memory_order_relaxed)};
  }

 private:
  std::vector<std::size_t> slots_;
  std::vector<entry> entries_;
  std::atomic<std::size_t> count_{0};
};

/// A port's delayed connections (`connect(...).after(d)` and physical ones), kept apart
/// from the port because few ports have any: in place, these two lists would cost every port
/// 16 bytes.
struct delayed_links {
  /// On a root: the delayed connections leaving any port of its closure (the ports that
  /// read its value), which its value travels along when it is set.
  pointer_list<delayed_connection*> from_closure;
  /// The delayed connections leaving this port.
  pointer_list<delayed_connection*> leaving;
};

}  // namespace detail

template <class Port>
class multiport;

enum class port_direction : unsigned char { input, output };

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

 protected:
  /// A port named `name` in `container`.
  port_base(std::string_view name, reactor* container, port_direction direction);
  /// A multiport's channel.
  port_base(detail::channel_name name, reactor* container, port_direction direction);
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
  /// Registers in `container` (both constructors).
  void join(reactor* container);
  /// Delivers a value to this root port; when it was absent, marks the multiport channels
  /// reading it and returns true.
  bool deliver_to_root(detail::erased_value value) {
    const bool was_present = present_;
    deliver(std::move(value));
    if (!was_present)
      for (const detail::channel_presence::entry* e : channel_readers_)
        detail::channel_presence::mark(e);
    return !was_present;
  }
  /// On a root: the delayed connections leaving any port that reads it.
  std::span<detail::delayed_connection* const> delayed_from_closure() const noexcept {
    return delayed_ == nullptr ? std::span<detail::delayed_connection* const>{}
                               : delayed_->from_closure.span();
  }
  /// The delayed connections leaving this port.
  std::span<detail::delayed_connection* const> delayed_leaving() const noexcept {
    return delayed_ == nullptr ? std::span<detail::delayed_connection* const>{}
                               : delayed_->leaving.span();
  }
  /// Its delayed connection lists, made on first use (assembly and mutations).
  detail::delayed_links& delayed_links() {
    if (delayed_ == nullptr) delayed_ = std::make_unique<detail::delayed_links>();
    return *delayed_;
  }
  /// Absent again at the end of the tag, and so are the channels reading it.
  void clear_root() noexcept {
    if (!present_) return;
    clear();
    for (const detail::channel_presence::entry* e : channel_readers_) e->owner->reset();
  }
  // Every list is a pointer_list: most ports have at most one entry in each, which then
  // costs no allocation (uct's nodes have 15 ports each).
  port_direction direction_;
  bool inward_is_delayed = false;  ///< its inward connection has an `after` delay or is physical
  port_base* root_ = this;         ///< the port whose value this one reads (assembly)
  port_base* inward_ = nullptr;    ///< the upstream end of this port's connection, if any
  detail::pointer_list<port_base*> outward_;  ///< downstream ends of connections without delay
  /// Its delayed connections (null for the many ports without any): see delayed_links.
  std::unique_ptr<detail::delayed_links> delayed_;
  detail::pointer_list<reaction*> readers_;  ///< reactions that declared it as trigger or source
  detail::pointer_list<reaction*> writers_;  ///< reactions that declared it as an effect
  /// When it is a multiport's channel: its entry in that multiport's presence (else null).
  const detail::channel_presence::entry* channel_entry_ = nullptr;
  /// When it is a root: the multiport channels (ports with channel_entry_ set) whose root it
  /// is, as their presence entries.
  detail::pointer_list<const detail::channel_presence::entry*> channel_readers_;
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
  input(reactor* container, std::string_view name)
      : port<T>(name, container, port_direction::input) {}
  /// A multiport's channel (multiport makes these).
  input(reactor* container, detail::channel_name name)
      : port<T>(name, container, port_direction::input) {}
};

/// An output port.
template <class T>
class output final : public port<T> {
 public:
  /// An output named `name` of `container`.
  output(reactor* container, std::string_view name)
      : port<T>(name, container, port_direction::output) {}
  /// A multiport's channel (multiport makes these).
  output(reactor* container, detail::channel_name name)
      : port<T>(name, container, port_direction::output) {}

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
      : name_(std::move(name)),
        presence_(width),
        ports_(static_cast<Port*>(
            ::operator new(width * sizeof(Port), std::align_val_t{alignof(Port)}))) {
    try {
      for (; width_ < width; ++width_) {
        ::new (static_cast<void*>(ports_ + width_))
            Port(container, detail::channel_name{&name_, static_cast<std::uint32_t>(width_)});
        ports_[width_].channel_entry_ = presence_.entry_of(width_);
      }
    } catch (...) {
      destroy();
      throw;
    }
  }
  multiport(const multiport&) = delete;
  multiport& operator=(const multiport&) = delete;
  ~multiport() { destroy(); }

  /// Its name.
  const std::string& name() const noexcept { return name_; }
  /// How many ports.
  std::size_t width() const noexcept { return width_; }
  /// How many ports.
  std::size_t size() const noexcept { return width_; }
  /// Port i.
  Port& operator[](std::size_t i) { return ports_[i]; }
  /// Port i.
  const Port& operator[](std::size_t i) const { return ports_[i]; }
  /// The first port.
  Port* begin() { return ports_; }
  /// After the last port.
  Port* end() { return ports_ + width_; }
  /// The first port.
  const Port* begin() const { return ports_; }
  /// After the last port.
  const Port* end() const { return ports_ + width_; }

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
  void destroy() noexcept {
    while (width_ > 0) ports_[--width_].~Port();
    ::operator delete(ports_, std::align_val_t{alignof(Port)});
  }
  std::string name_;
  detail::channel_presence presence_;
  Port* ports_;  ///< one block of `width` ports, made in place: ports never move
  std::size_t width_ = 0;
};

template <class T>
using multiport_input = multiport<input<T>>;
template <class T>
using multiport_output = multiport<output<T>>;

}  // namespace spate::reactor
