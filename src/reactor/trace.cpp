#include "spate/reactor/trace.hpp"

#include <atomic>
#include <sstream>

namespace spate::reactor {

namespace {
std::uint32_t thread_number() {
  static std::atomic<std::uint32_t> next{1};
  thread_local std::uint32_t mine = next.fetch_add(1, std::memory_order_relaxed);
  return mine;
}
double micros(time_point t, time_point origin) {
  return std::chrono::duration<double, std::micro>(t - origin).count();
}
void escape(std::ostream& out, const std::string& s) {
  for (char c : s) {
    if (c == '"' || c == '\\') out << '\\';
    out << c;
  }
}
}  // namespace

void trace_recorder::reaction_ran(const std::string* name, time_point begin, time_point end) {
  std::lock_guard lock(mutex_);
  records_.push_back(record{name, tag{}, begin, end, thread_number()});
}

void trace_recorder::tag_started(const tag& t, time_point start_of_program) {
  const time_point now = clock::now();
  std::lock_guard lock(mutex_);
  records_.push_back(record{nullptr, tag{time_point{} + (t.time - start_of_program), t.step}, now,
                            now, thread_number()});
}

std::size_t trace_recorder::size() const {
  std::lock_guard lock(mutex_);
  return records_.size();
}

std::string trace_recorder::to_json() const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  out << "{\"traceEvents\":[";
  bool first = true;
  for (const record& r : records_) {
    if (!first) out << ',';
    first = false;
    if (r.name == nullptr) {
      out << "{\"name\":\"tag " << r.at.time.time_since_epoch().count() << " ns + " << r.at.step
          << "\",\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":" << r.thread
          << ",\"ts\":" << micros(r.begin, origin_) << '}';
    } else {
      out << "{\"name\":\"";
      escape(out, *r.name);
      out << "\",\"ph\":\"X\",\"pid\":1,\"tid\":" << r.thread
          << ",\"ts\":" << micros(r.begin, origin_) << ",\"dur\":" << micros(r.end, r.begin) << '}';
    }
  }
  out << "],\"displayTimeUnit\":\"ns\"}";
  return out.str();
}

}  // namespace spate::reactor
