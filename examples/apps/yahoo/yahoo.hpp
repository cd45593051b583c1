#pragma once
// The Yahoo Streaming Benchmark (Chintapalli et al., 2016), as StreamBenchmarks' YSB: ad
// events → filter (views only) → join with the campaign table (ad → campaign) → a count per
// campaign over 10-second tumbling windows of event time (the window layer's Key
// Partitioning) → sink.
//
// Records follow the original's JSON lines:
//   {"user_id":"…","page_id":"…","ad_id":"…","ad_type":"banner","event_type":"view",
//    "event_time":"1520000000000","ip_address":"1.2.3.4"}
// and the campaign table maps each ad id to its campaign id (100 campaigns × 10 ads, as the
// original's Redis table). A line that is not JSON, lacks a field, or names an ad the table
// does not know is malformed.
//
// Event time: the original stamps an event with its generation time. A replay must give the
// same times to the same positions to be checked, so an event's time is its position in the
// replay at a nominal `events_per_second` (default 100,000: a 10 s window holds 1 M events).
// The filter and join farms deal events round-robin, so events reach the windows slightly out
// of time order; an allowed lateness of 2 s of event time (200,000 events, far more than the
// rings between the stages hold) keeps every one on time, and the pattern's report counts any
// that is not.
#include <nlohmann/json.hpp>
#include <spate/flow.hpp>
#include <spate/window.hpp>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace apps::yahoo {

enum class event_type : std::uint8_t { view, click, purchase };

struct event {
  std::uint32_t ad = 0;  // index into the campaign table
  event_type type = event_type::view;
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
};

struct joined {
  std::uint32_t campaign;
  std::uint64_t time_ms;
  std::int64_t stamp_ns;
};

// A campaign's count in one window; `seq` orders outputs as the reference does.
struct campaign_count {
  std::uint32_t campaign;
  std::uint64_t window;
  std::uint64_t count;
  bool complete;
  std::uint64_t seq;
  std::int64_t stamp_ns;  // the newest event's stamp (latency: from it to the sink)
  friend bool operator==(const campaign_count& a, const campaign_count& b) {
    return a.campaign == b.campaign && a.window == b.window && a.count == b.count &&
           a.complete == b.complete;
  }
};

struct parameters {
  std::uint64_t window_ms = 10'000;
  std::uint64_t events_per_second = 100'000;  // nominal, for event time
  std::uint32_t campaigns = 100;
  std::uint64_t lateness_ms = 2'000;
};

inline std::uint64_t output_order(std::uint64_t window, std::uint32_t campaign,
                                  const parameters& p) {
  return window * p.campaigns + campaign;
}

// The ad → campaign table and the ids as strings.
struct campaign_table {
  std::vector<std::string> ad_ids;
  std::vector<std::uint32_t> campaign_of;  // by ad index
  std::unordered_map<std::string, std::uint32_t> ad_index;

  static campaign_table generate(const parameters& p, std::uint64_t seed) {
    campaign_table t;
    std::mt19937_64 random(seed);
    char id[40];
    for (std::uint32_t c = 0; c < p.campaigns; ++c)
      for (int a = 0; a < 10; ++a) {
        std::snprintf(id, sizeof id, "%08llx-%04llx-4%03llx-a%03llx-%012llx",
                      static_cast<unsigned long long>(random() & 0xffffffff),
                      static_cast<unsigned long long>(random() & 0xffff),
                      static_cast<unsigned long long>(random() & 0xfff),
                      static_cast<unsigned long long>(random() & 0xfff),
                      static_cast<unsigned long long>(random() & 0xffffffffffff));
        t.ad_index.emplace(id, std::uint32_t(t.ad_ids.size()));
        t.ad_ids.emplace_back(id);
        t.campaign_of.push_back(c);
      }
    return t;
  }
};

// A seeded generator of event lines: ads uniform, event types uniform over view, click and
// purchase (as the original), other fields random.
inline std::vector<std::string> generate_lines(const campaign_table& table, std::size_t n,
                                               std::uint64_t seed) {
  static const char* types[] = {"view", "click", "purchase"};
  static const char* ad_types[] = {"banner", "modal", "sponsored-search", "mail", "mobile"};
  std::mt19937_64 random(seed);
  std::vector<std::string> lines;
  lines.reserve(n);
  char buffer[320];
  for (std::size_t i = 0; i < n; ++i) {
    const auto& ad = table.ad_ids[random() % table.ad_ids.size()];
    std::snprintf(buffer, sizeof buffer,
                  R"({"user_id":"u-%08llx","page_id":"p-%08llx","ad_id":"%s","ad_type":"%s",)"
                  R"("event_type":"%s","event_time":"%llu","ip_address":"10.%u.%u.%u"})",
                  static_cast<unsigned long long>(random() & 0xffffffff),
                  static_cast<unsigned long long>(random() & 0xffffffff), ad.c_str(),
                  ad_types[random() % 5], types[random() % 3],
                  static_cast<unsigned long long>(1'520'000'000'000ull + i / 100),
                  unsigned(random() % 256), unsigned(random() % 256), unsigned(random() % 256));
    lines.emplace_back(buffer);
  }
  return lines;
}

class parser {
 public:
  explicit parser(const campaign_table& table) : table_(&table) {}
  std::optional<event> operator()(std::string_view line) const {
    const auto json = nlohmann::json::parse(line, nullptr, false);
    if (json.is_discarded() || !json.is_object()) return std::nullopt;
    const auto ad = json.find("ad_id"), type = json.find("event_type");
    if (ad == json.end() || type == json.end() || !ad->is_string() || !type->is_string())
      return std::nullopt;
    const auto index = table_->ad_index.find(ad->get_ref<const std::string&>());
    if (index == table_->ad_index.end()) return std::nullopt;
    const auto& t = type->get_ref<const std::string&>();
    event e;
    e.ad = index->second;
    if (t == "view")
      e.type = event_type::view;
    else if (t == "click")
      e.type = event_type::click;
    else if (t == "purchase")
      e.type = event_type::purchase;
    else
      return std::nullopt;
    return e;
  }

 private:
  const campaign_table* table_;
};

// The operators, shared by the flow graph, the CAF version and the reference.
inline bool is_view(const event& e) {
  return e.type == event_type::view;
}
inline joined join(const event& e, const campaign_table& table, const parameters& p) {
  return joined{table.campaign_of[e.ad], e.seq * 1000 / p.events_per_second, e.stamp_ns};
}

struct window_count {  // the incremental window function's accumulator
  std::uint64_t count = 0;
  std::int64_t newest_stamp_ns = 0;
};

template <class Source, class Sink>
auto pipeline(Source source, Sink sink, std::shared_ptr<const campaign_table> table,
              std::size_t replicas, parameters p = {},
              std::shared_ptr<spate::window::window_report> report = nullptr) {
  namespace flow = spate::flow;
  namespace window = spate::window;
  auto count = window::incremental<window_count>(
      [](window_count& a, const joined& j) {
        ++a.count;
        a.newest_stamp_ns = std::max(a.newest_stamp_ns, j.stamp_ns);
      },
      [](const std::uint32_t&, const window_count& a) { return a; });
  return flow::pipeline(
      std::move(source),
      flow::farm(flow::filter([](const event& e) { return is_view(e); }).named("filter"), replicas),
      flow::farm(flow::map([table, p](event& e) { return join(e, *table, p); }).named("join"),
                 replicas),
      window::key_partitioning<joined>(
          window::time_window{p.window_ms, p.window_ms, p.lateness_ms},
          [](const joined& j) { return j.campaign; }, [](const joined& j) { return j.time_ms; },
          count, replicas, {.report = std::move(report)}),
      flow::map([p](window::window_result<std::uint32_t, window_count>& r) {
        return campaign_count{r.key,
                              r.window,
                              r.value.count,
                              r.complete,
                              output_order(r.window, r.key, p),
                              r.value.newest_stamp_ns};
      }).named("format"),
      std::move(sink));
}

// The reference: the first `total` events of the replay on one thread, in order. A window is
// complete when the watermark (newest event time − lateness) reached its end.
inline std::vector<campaign_count> sequential(const std::vector<event>& records,
                                              std::uint64_t total, const campaign_table& table,
                                              const parameters& p) {
  std::map<std::uint64_t, std::uint64_t> counts;  // output order → count
  std::uint64_t newest = 0;
  for (std::uint64_t seq = 0; seq < total && !records.empty(); ++seq) {
    event e = records[seq % records.size()];
    e.seq = seq;
    if (!is_view(e)) continue;
    const joined j = join(e, table, p);
    ++counts[output_order(j.time_ms / p.window_ms, j.campaign, p)];
    newest = std::max(newest, j.time_ms);
  }
  std::vector<campaign_count> out;
  for (const auto& [order, n] : counts) {
    const std::uint64_t window = order / p.campaigns;
    out.push_back(campaign_count{std::uint32_t(order % p.campaigns), window, n,
                                 newest >= (window + 1) * p.window_ms + p.lateness_ms, order, 0});
  }
  return out;
}

}  // namespace apps::yahoo
