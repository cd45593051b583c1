#pragma once
// A seeded Nexmark event generator, following the Flink suite's (github.com/nexmark/nexmark,
// generator/NexmarkGenerator.java and model/*Generator.java, whose data model has the bid's
// channel and url) with two deliberate differences:
//   - every event's random numbers come from a generator seeded with (seed, event id), as in
//     Beam's and the suite's first versions, so event n is the same on every run, whichever
//     source or split produces it (the suite's newest generator is seeded from the clock);
//   - a bid's bidder is a person id (base + 1,000), as in Beam; the suite's newest generator
//     adds the person-id offset twice.
// Everything else follows the suite: the event mix (person : auction : bid = 1 : 3 : 46 of every
// 50 event ids), hot auctions (1/2 of bids go to the newest hot auction), hot bidders and hot
// sellers (3/4), auctions open for a random span of the next ~100 in flight, prices
// 10^(6u) * 100 cents, string lengths, the channel and url mix (1/2 of bids on four hot
// channels, the rest on 10,000 channels, 9 in 10 of whose urls carry a channel_id), and the
// `extra` padding that brings each kind to its average size (200, 500 and 100 bytes).
//
// Event time: event n is stamped base_time + n / first_event_rate (ms, truncated), so the
// stream is in event-time order unless out_of_order_group_size > 1, which permutes each group
// of that many events (the suite's adjusted event number, n * 953 mod group).
#include <spate/flow.hpp>
#include <spate/flow/wake_timer.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../common/replay_source.hpp"
#include "model.hpp"

namespace apps::nexmark {

/// The generator's parameters; the defaults are the suite's (NexmarkConfiguration), with the
/// event rate of its 100-million-event workload (10 million events per second of event time)
/// and Beam's fixed base time.
struct generator_config {
  double first_event_rate = 10'000'000;           ///< events per second of event time
  std::int64_t base_time_ms = 1'436'918'400'000;  ///< 2015-07-15T00:00:00Z
  std::int64_t person_proportion = 1, auction_proportion = 3, bid_proportion = 46;
  std::int64_t avg_person_bytes = 200, avg_auction_bytes = 500, avg_bid_bytes = 100;
  std::int64_t hot_auction_ratio = 2, hot_sellers_ratio = 4, hot_bidders_ratio = 4;
  std::int64_t in_flight_auctions = 100, active_people = 1000;
  /// 1: events in time order. Else each group of this many events is reordered (event
  /// number n takes the place of n * 953 mod group, the suite's rule): a shuffle when the group
  /// is prime to 953 and does not divide 952 (10, say), the identity for the divisors of 952
  /// (2, 4, 7, 8, 14, ...). Not a permutation for multiples of 953.
  std::int64_t out_of_order_group_size = 1;
  std::uint64_t seed = 0;

  /// The largest average size: `extra` fields are slices of a 1 MiB text.
  static constexpr std::int64_t max_avg_bytes = 400'000;

  std::int64_t total_proportion() const noexcept {
    return person_proportion + auction_proportion + bid_proportion;
  }
  /// Throws std::invalid_argument naming the field.
  void check() const {
    if (!(first_event_rate > 0))
      throw std::invalid_argument("nexmark: first_event_rate must be > 0");
    if (person_proportion < 1 || auction_proportion < 1 || bid_proportion < 1)
      throw std::invalid_argument("nexmark: every proportion must be >= 1");
    if (hot_auction_ratio < 1 || hot_sellers_ratio < 1 || hot_bidders_ratio < 1)
      throw std::invalid_argument("nexmark: every hot ratio must be >= 1");
    if (in_flight_auctions < 1 || active_people < 1)
      throw std::invalid_argument("nexmark: in_flight_auctions and active_people must be >= 1");
    if (out_of_order_group_size < 1)
      throw std::invalid_argument("nexmark: out_of_order_group_size must be >= 1");
    for (std::int64_t size : {avg_person_bytes, avg_auction_bytes, avg_bid_bytes}) {
      if (size < 0 || size > max_avg_bytes)
        throw std::invalid_argument("nexmark: an average size (avg_*_bytes) must be in [0, " +
                                    std::to_string(max_avg_bytes) + "], not " +
                                    std::to_string(size));
    }
  }
};

inline constexpr std::int64_t first_person_id = 1000, first_auction_id = 1000,
                              first_category_id = 10;

namespace detail {

// SplitMix64 (Steele, Lea and Flood, 2014): small state, fast, and any seed is a good one, so
// one can be made per event from its id.
class event_random {
 public:
  explicit event_random(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound) (Lemire's multiply-shift; bound < 2^32 here).
  std::int64_t below(std::int64_t bound) noexcept {
    return std::int64_t(((next() >> 32) * std::uint64_t(bound)) >> 32);
  }
  /// Uniform in [0, bound) for any bound > 0.
  std::int64_t below_long(std::int64_t bound) noexcept {
    return bound < (std::int64_t(1) << 31) ? below(bound)
                                           : std::int64_t(next() % std::uint64_t(bound));
  }
  double unit() noexcept { return double(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

inline std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t id) noexcept {
  event_random r(seed * 0x9E3779B97F4A7C15ull ^ id);
  return r.next();
}

}  // namespace detail

/// Makes event n of the stream, for any n, in any order (a pure function of the config and
/// n). Building one makes the channels' urls and the padding text (about 1 MiB); copies share
/// them.
class generator {
 public:
  explicit generator(generator_config config = {}) : config_(config) {
    config_.check();
    inter_event_delay_us_ = 1e6 / config_.first_event_rate;
    auto shared = std::make_shared<tables>();
    detail::event_random r(detail::mix_seed(config_.seed, ~0ull));
    // The padding text: `extra` fields are slices of it (the suite's REUSABLE_EXTRA_STRING,
    // made by its nextExactString: six characters per random int, 'a' + rnd % 26 with rnd
    // signed, so 'H' to 'z').
    shared->padding.resize(1 << 20);
    std::int32_t rnd = 0;
    for (std::size_t i = 0; i < shared->padding.size(); ++i) {
      if (i % 6 == 0) rnd = std::int32_t(std::uint32_t(r.next()));
      shared->padding[i] = char('a' + rnd % 26);
      rnd /= 26;
    }
    for (auto& url : shared->hot_urls) url = base_url(r);
    shared->channels.resize(channel_count);
    for (std::int64_t i = 0; i < channel_count; ++i) {
      channel& c = shared->channels[std::size_t(i)];
      c.name = "channel-" + std::to_string(i);
      c.url = base_url(r);
      if (r.below(10) > 0) c.url += "&channel_id=" + std::to_string(channel_id_of(i));
    }
    tables_ = std::move(shared);
  }

  const generator_config& config() const noexcept { return config_; }

  /// Event number n (from 0) of the stream; seq = n.
  event at(std::uint64_t n) const {
    const std::int64_t number = adjusted_number(std::int64_t(n));
    const std::int64_t id = number;  // the suite's firstEventId, here 0
    const std::int64_t time = timestamp_of(number);
    detail::event_random r(detail::mix_seed(config_.seed, std::uint64_t(id)));
    event e;
    e.seq = n;
    const std::int64_t rem = id % config_.total_proportion();
    if (rem < config_.person_proportion) {
      e.data = make_person(id, r, time);
    } else if (rem < config_.person_proportion + config_.auction_proportion) {
      e.data = make_auction(number, id, r, time);
    } else {
      e.data = make_bid(id, r, time);
    }
    return e;
  }

  /// The event time of event n, ms.
  std::int64_t timestamp_of(std::int64_t number) const noexcept {
    return config_.base_time_ms + std::int64_t(double(number) * inter_event_delay_us_) / 1000;
  }

  /// The channel id a non-hot channel's url carries: the suite's |Integer.reverse(i)|.
  static std::int64_t channel_id_of(std::int64_t i) {
    std::uint32_t v = std::uint32_t(i), reversed = 0;
    for (int b = 0; b < 32; ++b, v >>= 1) reversed = (reversed << 1) | (v & 1);
    const std::int64_t s = std::int32_t(reversed);
    return s == INT32_MIN ? s : (s < 0 ? -s : s);  // Math.abs leaves INT_MIN negative
  }
  static constexpr std::int64_t channel_count = 10'000;
  static constexpr std::array<std::string_view, 4> hot_channels{"Google", "Facebook", "Baidu",
                                                                "Apple"};

 private:
  struct channel {
    std::string name, url;
  };
  struct tables {
    std::string padding;
    std::array<std::string, 4> hot_urls;
    std::vector<channel> channels;
  };

  std::int64_t adjusted_number(std::int64_t n) const noexcept {
    const std::int64_t g = config_.out_of_order_group_size;
    return (n / g) * g + (n * 953) % g;
  }

  // ---- ids (the suite's GeneratorConfig / *Generator helpers)
  std::int64_t last_base0_person_id(std::int64_t id) const noexcept {
    const std::int64_t epoch = id / config_.total_proportion();
    std::int64_t offset = id % config_.total_proportion();
    if (offset >= config_.person_proportion) offset = config_.person_proportion - 1;
    return epoch * config_.person_proportion + offset;
  }
  std::int64_t next_base0_person_id(std::int64_t id, detail::event_random& r) const noexcept {
    const std::int64_t people = last_base0_person_id(id) + 1;
    const std::int64_t active = std::min(people, config_.active_people);
    return people - active + r.below_long(active + person_id_lead);
  }
  std::int64_t last_base0_auction_id(std::int64_t id) const noexcept {
    std::int64_t epoch = id / config_.total_proportion();
    std::int64_t offset = id % config_.total_proportion();
    if (offset < config_.person_proportion) {
      --epoch;
      offset = config_.auction_proportion - 1;
    } else if (offset >= config_.person_proportion + config_.auction_proportion) {
      offset = config_.auction_proportion - 1;
    } else {
      offset -= config_.person_proportion;
    }
    return epoch * config_.auction_proportion + offset;
  }
  std::int64_t next_base0_auction_id(std::int64_t id, detail::event_random& r) const noexcept {
    const std::int64_t last = last_base0_auction_id(id);
    const std::int64_t min = std::max<std::int64_t>(last - config_.in_flight_auctions, 0);
    return min + r.below_long(last - min + 1 + auction_id_lead);
  }

  // ---- values
  static std::int64_t next_price(detail::event_random& r) {
    return std::llround(std::pow(10.0, r.unit() * 6.0) * 100.0);
  }
  // 3 to max_length - 1 letters, one in 13 of them `special`, trimmed of spaces at both ends.
  static std::string next_string(detail::event_random& r, std::int64_t max_length,
                                 char special = ' ') {
    const std::int64_t length = 3 + r.below(max_length - 3);
    std::string s;
    s.reserve(std::size_t(length));
    for (std::int64_t i = 0; i < length; ++i)
      s += r.below(13) == 0 ? special : char('a' + r.below(26));
    const auto first = s.find_first_not_of(' ');
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(' ') - first + 1);
  }
  // The draws one after the other: in one expression, their order would be the compiler's
  // (GCC's went right to left, Clang's left to right, so the events differed between the two).
  // This is the order GCC took, in which the events files and the tests' digests were made.
  static std::string base_url(detail::event_random& r) {
    const std::string third = next_string(r, 5, '_');
    const std::string second = next_string(r, 5, '_');
    const std::string first = next_string(r, 5, '_');
    return "https://www.nexmark.com/" + first + '/' + second + '/' + third + "/item.htm?query=1";
  }
  // Padding that brings an event of `current` bytes to about `average` (within ±20%).
  std::string next_extra(detail::event_random& r, std::int64_t current,
                         std::int64_t average) const {
    if (current > average) return {};
    average -= current;
    const std::int64_t delta = std::llround(double(average) * 0.2);
    const std::int64_t size = average - delta + (delta == 0 ? 0 : r.below(2 * delta));
    const std::string& text = tables_->padding;
    const std::int64_t offset = r.below(std::int64_t(text.size()) - size);
    return text.substr(std::size_t(offset), std::size_t(size));
  }

  person make_person(std::int64_t id, detail::event_random& r, std::int64_t time) const {
    static constexpr std::array<std::string_view, 6> states{"AZ", "CA", "ID", "OR", "WA", "WY"};
    static constexpr std::array<std::string_view, 10> cities{
        "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland",
        "Bend",    "Redmond",     "Seattle",       "Kent",  "Cheyenne"};
    static constexpr std::array<std::string_view, 11> first_names{
        "Peter", "Paul",  "Luke",  "John",   "Saul",  "Vicky",
        "Kate",  "Julie", "Sarah", "Deiter", "Walter"};
    static constexpr std::array<std::string_view, 9> last_names{
        "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"};
    person p;
    p.id = last_base0_person_id(id) + first_person_id;
    p.name = std::string(first_names[std::size_t(r.below(11))]) + ' ' +
             std::string(last_names[std::size_t(r.below(9))]);
    const std::string domain = next_string(r, 5);  // first, as GCC drew it (see base_url)
    const std::string user = next_string(r, 7);
    p.email_address = user + '@' + domain + ".com";
    for (int group = 0; group < 4; ++group) {
      char digits[8];
      std::snprintf(digits, sizeof digits, "%04d", int(r.below(10'000)));
      if (group > 0) p.credit_card += ' ';
      p.credit_card += digits;
    }
    p.city = cities[std::size_t(r.below(10))];
    p.state = states[std::size_t(r.below(6))];
    const auto size = std::int64_t(8 + p.name.size() + p.email_address.size() +
                                   p.credit_card.size() + p.city.size() + p.state.size());
    p.extra = next_extra(r, size, config_.avg_person_bytes);
    p.date_time = time;
    return p;
  }

  auction make_auction(std::int64_t number, std::int64_t id, detail::event_random& r,
                       std::int64_t time) const {
    auction a;
    a.id = last_base0_auction_id(id) + first_auction_id;
    if (r.below(config_.hot_sellers_ratio) > 0) {
      a.seller = (last_base0_person_id(id) / hot_seller_ratio) * hot_seller_ratio;
    } else {
      a.seller = next_base0_person_id(id, r);
    }
    a.seller += first_person_id;
    a.category = first_category_id + r.below(category_count);
    a.initial_bid = next_price(r);
    // Open until a random time within twice the span of the next in_flight_auctions auctions.
    const std::int64_t events_for_auctions =
        (config_.in_flight_auctions * config_.total_proportion()) / config_.auction_proportion;
    const std::int64_t horizon = timestamp_of(number + events_for_auctions) - time;
    a.expires = time + 1 + r.below_long(std::max<std::int64_t>(horizon * 2, 1));
    a.item_name = next_string(r, 20);
    a.description = next_string(r, 100);
    a.reserve = a.initial_bid + next_price(r);
    const auto size = std::int64_t(8 + a.item_name.size() + a.description.size() + 40);
    a.extra = next_extra(r, size, config_.avg_auction_bytes);
    a.date_time = time;
    return a;
  }

  bid make_bid(std::int64_t id, detail::event_random& r, std::int64_t time) const {
    bid b;
    if (r.below(config_.hot_auction_ratio) > 0) {
      b.auction = (last_base0_auction_id(id) / hot_auction_ratio) * hot_auction_ratio;
    } else {
      b.auction = next_base0_auction_id(id, r);
    }
    b.auction += first_auction_id;
    // Hot bidders are the second person of each hundred, so they are not the hot sellers.
    if (r.below(config_.hot_bidders_ratio) > 0) {
      b.bidder = (last_base0_person_id(id) / hot_bidder_ratio) * hot_bidder_ratio + 1;
    } else {
      b.bidder = next_base0_person_id(id, r);
    }
    b.bidder += first_person_id;
    b.price = next_price(r);
    if (r.below(2) > 0) {
      const auto i = std::size_t(r.below(4));
      b.channel = hot_channels[i];
      b.url = tables_->hot_urls[i];
    } else {
      const channel& c = tables_->channels[std::size_t(r.below(channel_count))];
      b.channel = c.name;
      b.url = c.url;
    }
    b.extra = next_extra(r, 32, config_.avg_bid_bytes);
    b.date_time = time;
    return b;
  }

  static constexpr std::int64_t person_id_lead = 10, auction_id_lead = 10;
  static constexpr std::int64_t hot_seller_ratio = 100, hot_auction_ratio = 100,
                                hot_bidder_ratio = 100, category_count = 5;

  generator_config config_;
  double inter_event_delay_us_ = 0;
  std::shared_ptr<const tables> tables_;
};

/// The first `count` events of the stream.
inline std::vector<event> generate(const generator& g, std::uint64_t count) {
  std::vector<event> events;
  events.reserve(count);
  for (std::uint64_t n = 0; n < count; ++n) events.push_back(g.at(n));
  return events;
}

/// A flow source of events [0, count) made as it sends them (so the stream may be larger than
/// memory), stamped with their send time. At rate 0 it sends as fast as the graph takes them;
/// at rate r events a second, what is due every millisecond (a flow::wake_timer tick).
class generator_source : public spate::flow::source<event> {
 public:
  generator_source(generator g, std::uint64_t count, double rate = 0)
      : generator_(std::move(g)), count_(count), rate_(rate) {}

  void on_start() {
    start_ns_ = steady_ns();
    if (rate_ > 0) timer_.start(*this, std::chrono::milliseconds(1));
  }
  bool has_news() const { return rate_ <= 0 || timer_.due(); }
  spate::flow::produce_status produce() {
    using spate::flow::produce_status;
    std::uint64_t due = count_;
    if (rate_ > 0) {
      timer_.take();
      due = std::min<std::uint64_t>(
          count_, resumed_at_ + std::uint64_t(rate_ * double(steady_ns() - start_ns_) / 1e9) + 1);
    }
    for (int k = 0; k < 256 && sent_ < due; ++k, ++sent_) {
      event e = generator_.at(sent_);
      e.stamp_ns = steady_ns();
      this->send_next(std::move(e));
    }
    if (sent_ == count_) {
      timer_.stop();
      return produce_status::ended;
    }
    return sent_ < due ? produce_status::more : produce_status::wait;
  }
  /// Checkpoints: the events sent; a restore makes the rest.
  std::uint64_t checkpoint_position() const { return sent_; }
  void seek(std::uint64_t position) { sent_ = resumed_at_ = std::min(position, count_); }

 private:
  generator generator_;
  std::uint64_t count_, sent_ = 0, resumed_at_ = 0;
  double rate_;
  std::int64_t start_ns_ = 0;
  spate::flow::wake_timer timer_;
};

}  // namespace apps::nexmark
