#pragma once
// The word-count demos' command line: `--NAME VALUE` or `--NAME=VALUE` for each declared
// option, and `--help`. Hand-written rather than CLI11 so that the demo builds without it
// (CLI11 2.1 is header-only and took half of the demo's compile time); the applications
// and benchmarks use CLI11.
#include <charconv>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wordcount {

class demo_options {
 public:
  explicit demo_options(std::string description) : description_(std::move(description)) {}

  void add(std::string name, std::string& target, std::string help) {
    options_.push_back({std::move(name), std::move(help), [&target](std::string_view v) {
                          target = std::string(v);
                          return std::string();
                        }});
  }
  // A whole number in [min, max].
  template <class Number>
  void add(std::string name, Number& target, std::string help, Number min, Number max) {
    options_.push_back(
        {name, std::move(help), [&target, min, max](std::string_view v) {
           Number n{};
           const auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), n);
           if (error != std::errc{} || end != v.data() + v.size() || n < min || n > max)
             return "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
           target = n;
           return std::string();
         }});
  }

  // Parses `args` (the program name excluded). Returns an exit code when the program should
  // stop: 0 after --help, 2 after a message naming a bad option or value.
  std::optional<int> parse(const std::vector<std::string>& args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string_view arg = args[i];
      if (arg == "--help" || arg == "-h") {
        print_help();
        return 0;
      }
      std::optional<std::string_view> value;
      if (const auto equals = arg.find('='); equals != std::string_view::npos) {
        value = arg.substr(equals + 1);
        arg = arg.substr(0, equals);
      }
      const option* o = find(arg);
      if (o == nullptr) return fail("unknown option '" + std::string(arg) + "' (see --help)");
      if (!value) {
        if (i + 1 == args.size()) return fail("option " + o->name + " needs a value");
        value = args[++i];
      }
      if (const std::string expected = o->set(*value); !expected.empty())
        return fail("option " + o->name + ": '" + std::string(*value) + "' is not " + expected);
    }
    return std::nullopt;
  }

 private:
  struct option {
    std::string name, help;
    std::function<std::string(std::string_view)> set;  // empty result: accepted
  };
  const option* find(std::string_view name) const {
    for (const auto& o : options_)
      if (o.name == name) return &o;
    return nullptr;
  }
  static std::optional<int> fail(const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    return 2;
  }
  void print_help() const {
    std::printf("%s\n\noptions:\n", description_.c_str());
    for (const auto& o : options_) std::printf("  %-16s %s\n", o.name.c_str(), o.help.c_str());
    std::printf("  %-16s %s\n", "--spate.KEY=V", "scheduler settings (docs/scheduler.md)");
  }
  std::string description_;
  std::vector<option> options_;
};

}  // namespace wordcount
