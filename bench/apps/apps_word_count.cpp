// `apps --app=wc`: Word Count, in spate and in CAF 0.17 (the options are in
// apps_bench.cpp). One application per file: they are the benchmark's slowest translation
// units, and apart they build side by side.
#include "apps_common.hpp"

#include "../../examples/apps/word_count/word_count.hpp"

namespace wc = apps::word_count;

#ifdef SPATE_BENCH_HAVE_CAF
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(wc::line)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(wc::word)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(wc::word_count)
#endif

namespace spate_bench::apps_impl {

// Word Count's check: every word's running counts 1, 2, 3, … ending at the sequential count.
class word_count_outputs {
 public:
  using output_type = wc::word_count;
  word_count_outputs() = default;
  explicit word_count_outputs(std::shared_ptr<const wc::word_counts> expected)
      : expected_(std::move(expected)) {}
  void add(const wc::word_count& c) { check_.add(c); }
  std::size_t verify() const {
    if (!check_.matches(*expected_))
      throw std::runtime_error("apps: word counts differ from the sequential count (" +
                               std::to_string(check_.out_of_sequence()) + " out of sequence)");
    return check_.outputs();
  }

 private:
  std::shared_ptr<const wc::word_counts> expected_;
  wc::running_counts_check check_;
};

const std::vector<wc::line>& book_lines(const std::string& path) {
  static const auto lines = [&] {
    try {
      return apps::parse_file<wc::line>(path, wc::parse).records;
    } catch (const std::runtime_error& e) {
      throw usage_error(std::string("apps: ") + e.what() + " (run from the repository root)");
    }
  }();
  return lines;
}

json word_count(const bench_params& p, bool caf) {
  const run_shape s = apps_run::shape_of(p);
  const auto& records = book_lines(p.text("book"));
  const word_count_outputs check(shared(wc::sequential(records, s.total)));
  if (caf && p.flag("keyed_state")) throw usage_error("apps: keyed_state is spate's, not CAF's");
  if (!caf && p.flag("keyed_state"))
    return apps_run::run_spate(
        p, records, s,
        [&](auto source, auto sink) {
          return wc::pipeline<wc::keyed_counter>(std::move(source), std::move(sink), s.replicas,
                                                 s.replicas);
        },
        check);
  if (!caf)
    return apps_run::run_spate(
        p, records, s,
        [&](auto source, auto sink) {
          return wc::pipeline(std::move(source), std::move(sink), s.replicas, s.replicas);
        },
        check);
  SPATE_APPS_CAF(return caf_apps::run(
      p, records, s, s.replicas,
      [&](caf_apps::topology& t, caf::actor sink, caf_apps::queue_length* queued) {
        auto counters = caf_apps::farm<wc::word, wc::counter>(
            t, s.replicas, s.replicas, wc::text_of, sink, [] { return wc::counter(); });
        return caf_apps::farm<wc::line, wc::splitter>(
            t, s.replicas, 1, caf_apps::round_robin{}, counters, [] { return wc::splitter(); },
            queued);
      },
      check));
}

}  // namespace spate_bench::apps_impl
