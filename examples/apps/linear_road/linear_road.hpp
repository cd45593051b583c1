#pragma once
// Linear Road (Arasu et al., VLDB 2004; the CAF-PP paper's LR, Sect. 5): variable tolls and
// accident alerts on expressways, from vehicles' position reports.
//
// The operator graph follows StreamBenchmarks' version — a dispatcher, then average speed →
// last average speed, count vehicles and toll notification — with the benchmark's accident
// detection and notification, and daily-expenditure queries, which that version leaves out:
//
//   source → dispatcher → average_speed → last_average_speed → count_vehicles
//          → accident_detection → toll_notification → daily_expenditure → sink
//
// Everything a toll depends on is per expressway and direction (a "road"), so every stage is
// a farm routed by road (queries, by vehicle): each road's reports reach each stage in input
// order, through one replica, and each stage's state is per road. That keeps the outputs
// those of the sequential run for any replication, where StreamBenchmarks broadcasts every
// report to three branches instead. Statistics travel down the pipeline as events among the
// reports (a stage forwards what it does not consume), in the order they were made.
//
// The rules (the benchmark's Sect. 3, with minutes m = time / 60 + 1):
// - A vehicle's average speed in a segment and minute (average_speed); a segment's average
//   speed in a minute is the mean of its vehicles' averages; its LAV announced in minute m is
//   the mean of those over minutes m−6 … m−2 (last_average_speed: one minute later than the
//   benchmark's m−5 … m−1, so that every vehicle's average for a minute, made at its next
//   report, is in before the minute is used).
// - A segment's vehicle count for minute m is the number of vehicles that reported in it
//   during m (count_vehicles); a toll in minute m uses the count of m − 1.
// - A vehicle is stopped after 4 reports from the same lane and position; two stopped
//   vehicles at one place are an accident until one of them moves (accident_detection).
// - When a vehicle enters a new segment (not on the exit lane): if an accident is active in
//   that segment or the 4 downstream, it gets an accident alert and no toll; otherwise the
//   toll is 2·(count − 50)² when LAV < 40 and count > 50, else 0. Either way it gets a toll
//   notification (toll_notification).
// - A daily-expenditure query is answered from the historical tolls (daily_expenditure).
// - A report whose minute is earlier than its road's current minute starts a new run of the
//   input (a replayed pass): each stage forgets that road's state.
#include <spate/flow.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../common/operator_node.hpp"
#include "linear_road_input.hpp"

namespace apps::linear_road {

enum class event_kind : std::uint8_t {
  position,        // a position report
  query,           // a daily-expenditure query
  vehicle_speed,   // a vehicle's average speed in a segment and minute
  segment_lav,     // a segment's latest average speed (LAV) for a minute
  segment_count,   // a segment's vehicle count in a minute
  accident,        // an accident appeared (value 1) or cleared (value 0) in a segment
  toll,            // output: toll notification (value: toll; detail: LAV)
  accident_alert,  // output: accident alert (segment: where the accident is)
  expenditure,     // output: a query's answer (value: tolls; detail: query id)
};

// What flows between the stages: the report that caused it and the statistic it carries.
struct event {
  event_kind kind = event_kind::position;
  record r;
  std::int32_t segment = 0, minute = 0, value = 0, detail = 0;
};

// What reaches the sink: tolls, accident alerts and query answers. `seq` orders the outputs
// (the causing record's position in the replay, then the kind).
struct notification {
  event_kind kind;
  std::int32_t vid, time, segment, value, detail;
  std::uint64_t seq;
  std::int64_t stamp_ns;
  friend bool operator==(const notification& a, const notification& b) {
    return a.kind == b.kind && a.vid == b.vid && a.time == b.time && a.segment == b.segment &&
           a.value == b.value && a.detail == b.detail && a.seq == b.seq;
  }
};

inline std::int32_t minute_of(std::int32_t time) {
  return time / 60 + 1;
}

// The routing key of every stage: the road for reports and the statistics they cause, the
// vehicle for queries (whose answer depends on nothing else).
inline std::int64_t road_key(const record& r) {
  return r.type == 3 ? (std::int64_t(1) << 32) + r.vid : std::int64_t(r.xway) * 2 + r.direction;
}
inline auto record_partition = [](const record& r) { return road_key(r); };
inline auto event_partition = [](const event& e) { return road_key(e.r); };

namespace detail {
// Per-road state with the replay rule: a minute before the road's current one restarts it.
template <class State>
class per_road {
 public:
  // The road's state, and the minute it was at before this report (0: none yet).
  std::pair<State&, std::int32_t> enter(const record& r) {
    State& s = roads_[road_key(r)];
    const std::int32_t minute = minute_of(r.time);
    if (minute < s.minute) s = State{};
    const std::int32_t previous = s.minute;
    s.minute = std::max(s.minute, minute);
    return {s, previous};
  }
  State& of(const record& r) { return roads_[road_key(r)]; }

 private:
  std::unordered_map<std::int64_t, State> roads_;
};

template <class Operator, class In, class Out = event>
using operator_node = apps::operator_node<Operator, In, Out>;
}  // namespace detail

class dispatcher : public detail::operator_node<dispatcher, record> {
 public:
  // Types 2 and 4 are not answered; the CLI counts and reports them when it loads the input.
  template <class Emit>
  void process(const record& r, Emit&& emit) {
    if (r.type == 0) emit(event{event_kind::position, r});
    if (r.type == 3) emit(event{event_kind::query, r});
  }
};

class average_speed : public detail::operator_node<average_speed, event> {
 public:
  template <class Emit>
  void process(const event& e, Emit&& emit) {
    if (e.kind == event_kind::position) {
      road_state& road = roads_.enter(e.r).first;
      const std::int32_t minute = minute_of(e.r.time);
      auto [it, fresh] = road.vehicles.try_emplace(e.r.vid, vehicle{minute, e.r.segment});
      vehicle& v = it->second;
      if (!fresh && (v.minute != minute || v.segment != e.r.segment)) {
        flush(e, v, emit);
        v = vehicle{minute, e.r.segment};
      }
      v.speed_sum += e.r.speed;
      ++v.reports;
      if (e.r.lane == 4) {
        flush(e, v, emit);
        road.vehicles.erase(it);
      }
    }
    emit(event(e));
  }

 private:
  struct vehicle {
    std::int32_t minute, segment, speed_sum = 0, reports = 0;
  };
  struct road_state {
    std::int32_t minute = 0;
    std::unordered_map<std::int32_t, vehicle> vehicles;
  };
  template <class Emit>
  static void flush(const event& e, const vehicle& v, Emit& emit) {
    if (v.reports == 0) return;
    event speed{event_kind::vehicle_speed, e.r, v.segment, v.minute};
    speed.value = (v.speed_sum + v.reports / 2) / v.reports;
    emit(std::move(speed));
  }
  detail::per_road<road_state> roads_;
};

class last_average_speed : public detail::operator_node<last_average_speed, event> {
 public:
  template <class Emit>
  void process(const event& e, Emit&& emit) {
    if (e.kind == event_kind::vehicle_speed) {
      auto& minute = roads_.of(e.r).segments[e.segment][e.minute];
      minute.sum += e.value;
      ++minute.vehicles;
      return;
    }
    if (e.kind == event_kind::position) {
      auto [road, previous] = roads_.enter(e.r);
      if (previous != 0 && road.minute > previous) announce(e, road, emit);
    }
    emit(event(e));
  }

 private:
  struct minute_speeds {
    std::int64_t sum = 0;
    std::int32_t vehicles = 0;
  };
  struct road_state {
    std::int32_t minute = 0;
    std::map<std::int32_t, std::map<std::int32_t, minute_speeds>> segments;  // segment, minute
  };
  // The LAV of each segment for the road's new minute m: minutes m−6 … m−2.
  template <class Emit>
  static void announce(const event& cause, road_state& road, Emit& emit) {
    const std::int32_t m = road.minute;
    for (auto& [segment, minutes] : road.segments) {
      minutes.erase(minutes.begin(), minutes.lower_bound(m - 6));
      double sum = 0;
      int counted = 0;
      for (auto it = minutes.begin(); it != minutes.end() && it->first <= m - 2; ++it, ++counted)
        sum += double(it->second.sum) / it->second.vehicles;
      if (counted == 0) continue;
      event lav{event_kind::segment_lav, cause.r, segment, m};
      lav.value = std::int32_t(std::lround(sum / counted));
      emit(std::move(lav));
    }
  }
  detail::per_road<road_state> roads_;
};

class count_vehicles : public detail::operator_node<count_vehicles, event> {
 public:
  template <class Emit>
  void process(const event& e, Emit&& emit) {
    if (e.kind == event_kind::position) {
      // A new minute closes the previous one's counts (a new or restarted road has none).
      auto [road, previous] = roads_.enter(e.r);
      if (road.minute != previous) {
        for (auto& [segment, vehicles] : road.segments) {
          if (vehicles.empty()) continue;
          event count{event_kind::segment_count, e.r, segment, previous};
          count.value = std::int32_t(vehicles.size());
          emit(std::move(count));
          vehicles.clear();
        }
      }
      road.segments[e.r.segment].insert(e.r.vid);
    }
    emit(event(e));
  }

 private:
  struct road_state {
    std::int32_t minute = 0;
    std::map<std::int32_t, std::unordered_set<std::int32_t>> segments;
  };
  detail::per_road<road_state> roads_;
};

class accident_detection : public detail::operator_node<accident_detection, event> {
 public:
  template <class Emit>
  void process(const event& e, Emit&& emit) {
    if (e.kind == event_kind::position) {
      road_state& road = roads_.enter(e.r).first;
      const std::int64_t place = std::int64_t(e.r.position) * 8 + e.r.lane;
      auto [it, fresh] = road.vehicles.try_emplace(e.r.vid, vehicle{place});
      vehicle& v = it->second;
      if (!fresh && v.place == place && e.r.lane != 4) {
        if (++v.same_reports == 4) stop(e, road, place, emit);
      } else if (!fresh) {
        if (v.same_reports >= 4) move_on(e, road, v.place, emit);
        v = vehicle{place};
      }
      if (e.r.lane == 4) road.vehicles.erase(e.r.vid);
    }
    emit(event(e));
  }

 private:
  struct vehicle {
    std::int64_t place;
    std::int32_t same_reports = 1;
  };
  struct road_state {
    std::int32_t minute = 0;
    std::unordered_map<std::int32_t, vehicle> vehicles;
    std::unordered_map<std::int64_t, std::int32_t> stopped;  // place → vehicles stopped there
  };
  template <class Emit>
  static void stop(const event& e, road_state& road, std::int64_t place, Emit& emit) {
    if (++road.stopped[place] == 2) emit(event{event_kind::accident, e.r, e.r.segment, 0, 1});
  }
  template <class Emit>
  static void move_on(const event& e, road_state& road, std::int64_t place, Emit& emit) {
    const auto it = road.stopped.find(place);
    if (it == road.stopped.end()) return;
    if (it->second-- == 2) {
      const auto segment = std::int32_t(place / 8 / feet_per_segment);
      emit(event{event_kind::accident, e.r, segment, 0, 0});
    }
    if (it->second == 0) road.stopped.erase(it);
  }
  detail::per_road<road_state> roads_;
};

class toll_notification : public detail::operator_node<toll_notification, event> {
 public:
  template <class Emit>
  void process(const event& e, Emit&& emit) {
    switch (e.kind) {
      case event_kind::segment_lav:
        roads_.of(e.r).lav[e.segment] = e.value;
        return;
      case event_kind::segment_count:
        roads_.of(e.r).count[e.segment] = {e.minute, e.value};
        return;
      case event_kind::accident:
        roads_.of(e.r).accidents[e.segment] += e.value == 1 ? 1 : -1;
        return;
      case event_kind::position:
        notify(e, emit);
        return;
      default:
        emit(event(e));
    }
  }

 private:
  struct road_state {
    std::int32_t minute = 0;
    std::unordered_map<std::int32_t, std::int32_t> lav;                             // by segment
    std::unordered_map<std::int32_t, std::pair<std::int32_t, std::int32_t>> count;  // minute, n
    std::map<std::int32_t, std::int32_t> accidents;  // segment → accidents active there
    std::unordered_map<std::int32_t, std::int32_t> vehicle_segment;
  };
  template <class Emit>
  void notify(const event& e, Emit& emit) {
    road_state& road = roads_.enter(e.r).first;
    if (e.r.lane == 4) {
      road.vehicle_segment.erase(e.r.vid);
      return;
    }
    auto [it, fresh] = road.vehicle_segment.try_emplace(e.r.vid, e.r.segment);
    if (!fresh && it->second == e.r.segment) return;
    it->second = e.r.segment;
    const std::int32_t downstream = e.r.direction == 0 ? 1 : -1;
    for (std::int32_t k = 0; k <= 4; ++k) {
      const auto a = road.accidents.find(e.r.segment + downstream * k);
      if (a != road.accidents.end() && a->second > 0) {
        emit(event{event_kind::accident_alert, e.r, a->first, 0, 0});
        emit(event{event_kind::toll, e.r, e.r.segment, 0, 0, lav_of(road, e.r.segment)});
        return;
      }
    }
    const std::int32_t lav = lav_of(road, e.r.segment);
    const auto c = road.count.find(e.r.segment);
    const std::int32_t cars =
        c != road.count.end() && c->second.first == minute_of(e.r.time) - 1 ? c->second.second : 0;
    const std::int32_t toll = lav >= 0 && lav < 40 && cars > 50 ? 2 * (cars - 50) * (cars - 50) : 0;
    emit(event{event_kind::toll, e.r, e.r.segment, 0, toll, lav});
  }
  static std::int32_t lav_of(const road_state& road, std::int32_t segment) {
    const auto it = road.lav.find(segment);
    return it == road.lav.end() ? -1 : it->second;  // -1: no LAV yet, no toll
  }
  detail::per_road<road_state> roads_;
};

class daily_expenditure : public detail::operator_node<daily_expenditure, event, notification> {
 public:
  explicit daily_expenditure(std::shared_ptr<const historical_tolls> history)
      : history_(std::move(history)) {}
  template <class Emit>
  void process(const event& e, Emit&& emit) {
    notification n{e.kind,
                   e.r.vid,
                   e.r.time,
                   e.segment,
                   e.value,
                   e.detail,
                   e.r.seq * 4 + order_of(e.kind),
                   e.r.stamp_ns};
    if (e.kind == event_kind::query) {
      n.kind = event_kind::expenditure;
      n.value = history_->tolls(e.r.vid, e.r.day, e.r.xway);
      n.detail = e.r.qid;
      n.segment = e.r.xway;
    }
    emit(std::move(n));
  }

 private:
  static std::uint64_t order_of(event_kind k) {
    return k == event_kind::accident_alert ? 0 : k == event_kind::toll ? 1 : 2;
  }
  std::shared_ptr<const historical_tolls> history_;
};

// The operator graph, every stage with `replicas` replicas routed by road.
template <class Source, class Sink>
auto pipeline(Source source, Sink sink, std::shared_ptr<const historical_tolls> history,
              std::size_t replicas) {
  namespace flow = spate::flow;
  const flow::by_key by_road{event_partition};
  return flow::pipeline(
      std::move(source),
      flow::farm(flow::make_stage<dispatcher>().named("dispatcher"), replicas,
                 flow::by_key{record_partition}),
      flow::farm(flow::make_stage<average_speed>().named("average_speed"), replicas, by_road),
      flow::farm(flow::make_stage<last_average_speed>().named("last_average_speed"), replicas,
                 by_road),
      flow::farm(flow::make_stage<count_vehicles>().named("count_vehicles"), replicas, by_road),
      flow::farm(flow::make_stage<accident_detection>().named("accident_detection"), replicas,
                 by_road),
      flow::farm(flow::make_stage<toll_notification>().named("toll_notification"), replicas,
                 by_road),
      flow::farm(flow::make_stage<daily_expenditure>(std::move(history)).named("daily_expenditure"),
                 replicas, by_road),
      std::move(sink));
}

// The same operators one after the other on one thread, over the first `total` records of
// the replay (cycling through `records`, numbered as the replay source numbers them).
inline std::vector<notification> sequential(const std::vector<record>& records, std::uint64_t total,
                                            std::shared_ptr<const historical_tolls> history) {
  dispatcher d;
  average_speed speeds;
  last_average_speed lav;
  count_vehicles counts;
  accident_detection accidents;
  toll_notification tolls;
  daily_expenditure answers(std::move(history));
  std::vector<notification> out;
  auto to_sink = [&](notification&& n) { out.push_back(n); };
  auto to_answers = [&](event&& e) { answers.process(e, to_sink); };
  auto to_tolls = [&](event&& e) { tolls.process(e, to_answers); };
  auto to_accidents = [&](event&& e) { accidents.process(e, to_tolls); };
  auto to_counts = [&](event&& e) { counts.process(e, to_accidents); };
  auto to_lav = [&](event&& e) { lav.process(e, to_counts); };
  auto to_speeds = [&](event&& e) { speeds.process(e, to_lav); };
  for (std::uint64_t seq = 0; seq < total && !records.empty(); ++seq) {
    record r = records[seq % records.size()];
    r.seq = seq;
    d.process(r, to_speeds);
  }
  return out;
}

}  // namespace apps::linear_road
