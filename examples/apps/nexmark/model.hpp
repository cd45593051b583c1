#pragma once
// Nexmark's data model (Tucker et al., "NEXMark – A Benchmark for Queries over Data Streams",
// and the Flink suite's generator, github.com/nexmark/nexmark): an online auction's Person,
// Auction and Bid events, in one stream, and their one-line text form (the events file that
// spate and Flink both read, so that both do the same work on the same events).
//
// Times (date_time, expires) are epoch milliseconds, as the Flink suite's TIMESTAMP(3) in UTC.
// Prices are in cents.
#include <charconv>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace apps::nexmark {

struct person {
  std::int64_t id = 0;
  std::string name, email_address, credit_card, city, state;
  std::int64_t date_time = 0;
  std::string extra;
  friend bool operator==(const person&, const person&) = default;
};

struct auction {
  std::int64_t id = 0;
  std::string item_name, description;
  std::int64_t initial_bid = 0, reserve = 0, date_time = 0, expires = 0, seller = 0, category = 0;
  std::string extra;
  friend bool operator==(const auction&, const auction&) = default;
};

struct bid {
  std::int64_t auction = 0, bidder = 0, price = 0;
  std::string channel, url;
  std::int64_t date_time = 0;
  std::string extra;
  friend bool operator==(const bid&, const bid&) = default;
};

/// One event of the stream: a person, an auction or a bid. `seq` is its position in the
/// stream and `stamp_ns` when the source sent it (steady clock; for latency), both set by the
/// source, not part of the event.
struct event {
  std::variant<person, auction, bid> data;
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;

  const bid* as_bid() const noexcept { return std::get_if<nexmark::bid>(&data); }
  bid* as_bid() noexcept { return std::get_if<nexmark::bid>(&data); }
  const auction* as_auction() const noexcept { return std::get_if<nexmark::auction>(&data); }
  auction* as_auction() noexcept { return std::get_if<nexmark::auction>(&data); }
  const person* as_person() const noexcept { return std::get_if<nexmark::person>(&data); }
  std::int64_t date_time() const noexcept {
    return std::visit([](const auto& e) { return e.date_time; }, data);
  }
};

// ---------------------------------------------------------------- the events file
//
// One event per line, comma-separated, its kind first:
//   P,id,name,email_address,credit_card,city,state,date_time,extra
//   A,id,item_name,description,initial_bid,reserve,date_time,expires,seller,category,extra
//   B,auction,bidder,price,channel,url,date_time,extra
// The generator's strings hold no ',' and no line break; to_line refuses one that does.

/// The largest price (cents) an events file may hold.
inline constexpr std::int64_t max_price = 1'000'000'000'000'000;

namespace detail {

inline void append_text(std::string& line, std::string_view field, const char* name) {
  if (field.find_first_of(",\n\r") != std::string_view::npos) {
    throw std::invalid_argument(std::string("nexmark event file: the ") + name +
                                " field holds a ',' or a line break: " + std::string(field));
  }
  line += ',';
  line += field;
}
inline void append_number(std::string& line, std::int64_t v) {
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  line += ',';
  line.append(buffer, end);
}

// Splits `line` at commas into exactly `N` fields; false when the count differs.
template <std::size_t N>
bool split_fields(std::string_view line, std::string_view (&fields)[N]) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const std::size_t comma = line.find(',', at);
    if ((comma == std::string_view::npos) != (i == N - 1)) return false;
    fields[i] = line.substr(at, comma == std::string_view::npos ? line.npos : comma - at);
    at = comma + 1;
  }
  return true;
}
inline bool parse_number(std::string_view text, std::int64_t& v) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  return error == std::errc{} && end == text.data() + text.size() && !text.empty();
}

}  // namespace detail

/// The event's line in the events file (without the line break).
inline std::string to_line(const event& e) {
  using detail::append_number, detail::append_text;
  std::string line;
  if (const person* p = e.as_person()) {
    line = "P";
    append_number(line, p->id);
    append_text(line, p->name, "person.name");
    append_text(line, p->email_address, "person.email_address");
    append_text(line, p->credit_card, "person.credit_card");
    append_text(line, p->city, "person.city");
    append_text(line, p->state, "person.state");
    append_number(line, p->date_time);
    append_text(line, p->extra, "person.extra");
  } else if (const auction* a = e.as_auction()) {
    line = "A";
    append_number(line, a->id);
    append_text(line, a->item_name, "auction.item_name");
    append_text(line, a->description, "auction.description");
    for (std::int64_t v :
         {a->initial_bid, a->reserve, a->date_time, a->expires, a->seller, a->category}) {
      append_number(line, v);
    }
    append_text(line, a->extra, "auction.extra");
  } else {
    const bid& b = *e.as_bid();
    line = "B";
    append_number(line, b.auction);
    append_number(line, b.bidder);
    append_number(line, b.price);
    append_text(line, b.channel, "bid.channel");
    append_text(line, b.url, "bid.url");
    append_number(line, b.date_time);
    append_text(line, b.extra, "bid.extra");
  }
  return line;
}

/// The event a line of the events file holds; nullopt when the line is not one (unknown kind,
/// a field missing or too many, a number that does not parse, a price outside [0, 10^15]
/// cents, so that 0.908 × price stays exact in 64 bits). The caller counts those. A line may
/// end in "\r\n".
inline std::optional<event> parse_line(std::string_view line) {
  using detail::parse_number, detail::split_fields;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() < 2 || line[1] != ',') return std::nullopt;
  const std::string_view rest = line.substr(2);
  event e;
  switch (line[0]) {
    case 'P': {
      std::string_view f[8];
      person p;
      if (!split_fields(rest, f) || !parse_number(f[0], p.id) || !parse_number(f[6], p.date_time))
        return std::nullopt;
      p.name = f[1], p.email_address = f[2], p.credit_card = f[3], p.city = f[4], p.state = f[5];
      p.extra = f[7];
      e.data = std::move(p);
      return e;
    }
    case 'A': {
      std::string_view f[10];
      auction a;
      if (!split_fields(rest, f) || !parse_number(f[0], a.id) ||
          !parse_number(f[3], a.initial_bid) || !parse_number(f[4], a.reserve) ||
          !parse_number(f[5], a.date_time) || !parse_number(f[6], a.expires) ||
          !parse_number(f[7], a.seller) || !parse_number(f[8], a.category) || a.initial_bid < 0 ||
          a.initial_bid > max_price || a.reserve < 0 || a.reserve > max_price)
        return std::nullopt;
      a.item_name = f[1], a.description = f[2], a.extra = f[9];
      e.data = std::move(a);
      return e;
    }
    case 'B': {
      std::string_view f[7];
      bid b;
      if (!split_fields(rest, f) || !parse_number(f[0], b.auction) ||
          !parse_number(f[1], b.bidder) || !parse_number(f[2], b.price) ||
          !parse_number(f[5], b.date_time) || b.price < 0 || b.price > max_price)
        return std::nullopt;
      b.channel = f[3], b.url = f[4], b.extra = f[6];
      e.data = std::move(b);
      return e;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace apps::nexmark
