#pragma once
// Linear Road's input (Arasu et al., "Linear Road: A Stream Data Management Benchmark",
// VLDB 2004): the record format, its parser, a seeded traffic generator and the table of
// historical tolls that daily-expenditure queries read.
//
// One record per line, 15 comma-separated integers:
//     Type,Time,VID,Spd,XWay,Lane,Dir,Seg,Pos,QID,S_init,S_end,DOW,TOD,Day
// Type 0 is a position report (a vehicle reports every 30 s: speed in mph, expressway,
// lane 0 = entrance ... 4 = exit, direction 0 = east / 1 = west, segment, position in
// feet); type 3 a daily-expenditure query (VID, XWay, QID, Day); types 2 (account balance)
// and 4 (travel time) are queries this version does not answer (the dispatcher counts them).
// A line with another field count, a non-number or a value out of the ranges the benchmark
// defines is malformed.
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace apps::linear_road {

inline constexpr int feet_per_segment = 5280;
inline constexpr int max_segments = 100;  // the benchmark's expressways are 100 miles long

struct record {
  std::int32_t type = 0, time = 0, vid = 0, speed = 0, xway = 0, lane = 0, direction = 0,
               segment = 0, position = 0, qid = 0, day = 0;
  std::uint64_t seq = 0;
  std::int64_t stamp_ns = 0;
};

inline std::optional<record> parse(std::string_view line) {
  std::array<std::int32_t, 15> f{};
  std::size_t i = 0;
  for (std::size_t start = 0; start <= line.size(); ++i) {
    auto end = line.find(',', start);
    if (end == std::string_view::npos) end = line.size();
    if (i == f.size()) return std::nullopt;
    const auto [stop, error] = std::from_chars(line.data() + start, line.data() + end, f[i]);
    if (error != std::errc{} || stop != line.data() + end) return std::nullopt;
    start = end + 1;
  }
  if (i != f.size()) return std::nullopt;
  record r{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[14]};
  if (r.time < 0 || r.vid < 0) return std::nullopt;
  switch (r.type) {
    case 0:
      if (r.speed < 0 || r.speed > 100 || r.xway < 0 || r.lane < 0 || r.lane > 4 ||
          r.direction < 0 || r.direction > 1 || r.segment < 0 || r.segment >= max_segments ||
          r.position < 0 || r.position / feet_per_segment != r.segment)
        return std::nullopt;
      return r;
    case 3:
      if (r.xway < 0 || r.day < 1 || r.day > 69) return std::nullopt;
      return r;
    case 2:
    case 4:
      return r;
    default:
      return std::nullopt;
  }
}

// Tolls a vehicle paid on an expressway on each of the 69 previous days: what a type-3
// query asks for. The original reads it from a file of "VID,Day,XWay,Tolls" lines; here it
// is generated (seeded) for the vehicles the generator queries.
class historical_tolls {
 public:
  static historical_tolls generate(std::int32_t vehicles, std::int32_t xways, std::uint64_t seed) {
    historical_tolls h;
    std::mt19937_64 random(seed);
    for (std::int32_t v = 0; v < vehicles; ++v)
      for (std::int32_t day = 1; day <= 69; ++day)
        for (std::int32_t x = 0; x < xways; ++x)
          h.tolls_[key(v, day, x)] = std::int32_t(random() % 100);
    return h;
  }
  std::int32_t tolls(std::int32_t vid, std::int32_t day, std::int32_t xway) const {
    const auto it = tolls_.find(key(vid, day, xway));
    return it == tolls_.end() ? 0 : it->second;
  }

 private:
  static std::uint64_t key(std::int32_t vid, std::int32_t day, std::int32_t xway) {
    return (std::uint64_t(std::uint32_t(vid)) << 24) | (std::uint64_t(day) << 16) |
           std::uint64_t(std::uint16_t(xway));
  }
  std::unordered_map<std::uint64_t, std::int32_t> tolls_;
};

// The generator's traffic: `xways` expressways of `segments` segments, both directions,
// about `vehicles_per_direction` vehicles on each, reporting every 30 s in time order.
// Vehicles enter (lane 0) at a random segment, drive 1–3 lanes, leave by the exit lane after
// a random number of segments and are replaced by new vehicles. Segments in the middle third
// are congested (15–35 mph, so crowded and slow enough to be tolled); the others run at
// 45–70 mph. Every few minutes two vehicles of a direction stop at the same place for 2–4
// minutes: an accident. About one record in 100 is a daily-expenditure query for one of the
// first `queried_vehicles` vehicles.
struct traffic_shape {
  std::int32_t xways = 4;
  std::int32_t segments = 20;
  std::int32_t vehicles_per_direction = 1200;
  std::int32_t queried_vehicles = 1000;
};

namespace detail {
struct vehicle {
  std::int32_t vid, along, lane, exit_along, phase;
  std::int32_t stopped_reports = 0;  // > 0: stopped (an accident) for this many more reports
  bool entered = false;
};
}  // namespace detail

inline std::vector<std::string> generate_lines(std::size_t n, std::uint64_t seed,
                                               traffic_shape shape = {}) {
  std::mt19937_64 random(seed);
  const std::int32_t length = shape.segments * feet_per_segment;
  auto uniform = [&](std::int32_t lo, std::int32_t hi) {
    return lo + std::int32_t(random() % std::uint64_t(hi - lo + 1));
  };
  std::int32_t next_vid = 0;
  auto new_vehicle = [&](std::int32_t along) {
    const std::int32_t trip = uniform(2, shape.segments) * feet_per_segment;
    return detail::vehicle{next_vid++, along, 0, std::min(length - 1, along + trip),
                           uniform(0, 29)};
  };
  const std::int32_t directions = shape.xways * 2;
  std::vector<std::vector<detail::vehicle>> roads(static_cast<std::size_t>(directions));
  for (auto& road : roads)
    for (std::int32_t k = 0; k < shape.vehicles_per_direction; ++k)
      road.push_back(new_vehicle(uniform(0, length - 1)));
  auto speed_at = [&](std::int32_t segment) {
    const bool congested = segment >= shape.segments / 3 && segment < 2 * shape.segments / 3;
    return congested ? uniform(15, 35) : uniform(45, 70);
  };
  std::vector<std::string> lines;
  lines.reserve(n);
  char buffer[128];
  auto emit = [&](std::int32_t type, std::int32_t time, std::int32_t vid, std::int32_t speed,
                  std::int32_t xway, std::int32_t lane, std::int32_t dir, std::int32_t segment,
                  std::int32_t position, std::int32_t qid, std::int32_t day) {
    std::snprintf(buffer, sizeof buffer, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,-1,-1,-1,-1,%d", type, time,
                  vid, speed, xway, lane, dir, segment, position, qid, day);
    lines.emplace_back(buffer);
  };
  std::int32_t qid = 0;
  for (std::int32_t time = 0; lines.size() < n; ++time) {
    for (std::int32_t road = 0; road < directions && lines.size() < n; ++road) {
      const std::int32_t xway = road / 2, dir = road % 2;
      auto& vehicles = roads[std::size_t(road)];
      // An accident now and then: two moving vehicles stop where the first one is.
      if (time % 60 == 0 && random() % 3 == 0 && vehicles.size() > 2) {
        auto& a = vehicles[random() % vehicles.size()];
        auto& b = vehicles[random() % vehicles.size()];
        if (&a != &b && a.entered && b.entered && a.stopped_reports == 0 &&
            b.stopped_reports == 0 && a.exit_along - a.along > feet_per_segment) {
          a.stopped_reports = b.stopped_reports = uniform(4, 8) + 4;
          b.along = a.along;
          b.lane = a.lane;
          b.exit_along = std::max(b.exit_along, a.exit_along);
        }
      }
      for (std::size_t k = 0; k < vehicles.size() && lines.size() < n; ++k) {
        auto& v = vehicles[k];
        if (time % 30 != v.phase) continue;
        const std::int32_t segment_along = v.along / feet_per_segment;
        const std::int32_t segment = dir == 0 ? segment_along : shape.segments - 1 - segment_along;
        const std::int32_t position = dir == 0 ? v.along : length - 1 - v.along;
        const bool leaving = v.along >= v.exit_along && v.stopped_reports == 0;
        const std::int32_t speed = v.stopped_reports > 0 ? 0 : speed_at(segment_along);
        emit(0, time, v.vid, speed, xway, leaving ? 4 : v.lane, dir, segment, position, -1, -1);
        if (leaving) {
          v = new_vehicle(uniform(0, length - 2 * feet_per_segment));
          continue;
        }
        v.entered = true;
        if (v.lane == 0) v.lane = uniform(1, 3);
        if (v.stopped_reports > 0) {
          --v.stopped_reports;
        } else {
          v.along = std::min(v.exit_along, v.along + speed * feet_per_segment * 30 / 3600);
        }
      }
      if (random() % 100 < std::uint64_t(shape.vehicles_per_direction / 30) && lines.size() < n)
        emit(3, time, std::int32_t(random() % std::uint64_t(shape.queried_vehicles)), -1,
             uniform(0, shape.xways - 1), -1, -1, -1, -1, qid++, uniform(1, 69));
    }
  }
  return lines;
}

}  // namespace apps::linear_road
