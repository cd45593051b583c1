// The compact storage behind a reactor program's memory per reactor: pointer lists (in place
// up to one pointer), element names (16 bytes; channels named by their multiport and index),
// the 24-byte erased value (in place or shared, never both), and startup/shutdown triggers
// made only when a reaction declares them.
#include <spate/exec/runtime.hpp>
#include <spate/reactor.hpp>
#include <spate/reactor/detail/element_name.hpp>
#include <spate/reactor/detail/erased_value.hpp>
#include <spate/reactor/detail/pointer_list.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace spate::reactor {
namespace {

using detail::pointer_list;

std::vector<int*> items(const pointer_list<int*>& list) {
  return {list.begin(), list.end()};
}

TEST(PointerList, HoldsNoneOneAndManyInOrder) {
  int a = 1, b = 2, c = 3, d = 4, e = 5;
  pointer_list<int*> list;
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.begin(), list.end());
  list.push_back(&a);
  EXPECT_EQ(list.size(), 1u);
  EXPECT_EQ(list.front(), &a);
  EXPECT_EQ(list.back(), &a);
  for (int* p : {&b, &c, &d, &e}) list.push_back(p);
  EXPECT_EQ(items(list), (std::vector<int*>{&a, &b, &c, &d, &e}));
  EXPECT_EQ(list[3], &d);
  EXPECT_TRUE(list.contains(&c));
  list.pop_back();
  EXPECT_EQ(items(list), (std::vector<int*>{&a, &b, &c, &d}));
}

TEST(PointerList, ErasesByValueAndByRangeAndClearsForRefill) {
  int a = 1, b = 2, c = 3;
  pointer_list<int*> list;
  for (int* p : {&a, &b, &a, &c}) list.push_back(p);
  EXPECT_TRUE(list.erase_value(&a));
  EXPECT_EQ(items(list), (std::vector<int*>{&b, &c}));
  EXPECT_FALSE(list.erase_value(&a));
  list.erase(list.begin(), list.begin() + 1);
  EXPECT_EQ(items(list), (std::vector<int*>{&c}));
  // Cleared, a list that had a block keeps it: refilling it each tag allocates nothing.
  list.clear();
  EXPECT_TRUE(list.empty());
  int* const* block = list.begin();
  list.push_back(&a);
  list.push_back(&b);
  EXPECT_EQ(list.begin(), block);
  EXPECT_EQ(items(list), (std::vector<int*>{&a, &b}));

  pointer_list<int*> single;
  single.push_back(&a);
  EXPECT_TRUE(single.erase_value(&a));
  EXPECT_TRUE(single.empty());
}

TEST(PointerList, MovesLeaveTheSourceEmpty) {
  int a = 1, b = 2, c = 3;
  pointer_list<int*> many;
  for (int* p : {&a, &b, &c}) many.push_back(p);
  pointer_list<int*> moved(std::move(many));
  EXPECT_TRUE(many.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is part of
                              // the contract
  EXPECT_EQ(items(moved), (std::vector<int*>{&a, &b, &c}));
  pointer_list<int*> one;
  one.push_back(&a);
  moved = std::move(one);
  EXPECT_EQ(items(moved), (std::vector<int*>{&a}));
}

TEST(ElementName, SpellsShortLongAndChannelNames) {
  EXPECT_EQ(detail::element_name("").str(), "");
  EXPECT_EQ(detail::element_name("fourteen chars").str(), "fourteen chars");
  EXPECT_EQ(detail::element_name("fifteen chars!!").str(), "fifteen chars!!");
  const std::string long_name(300, 'x');
  EXPECT_EQ(detail::element_name(long_name).str(), long_name);
  const std::string base = "from_children";
  EXPECT_EQ(detail::element_name(detail::channel_name{&base, 7}).str(), "from_children[7]");
}

// The layout the memory figures of docs/benchmarks/reactor-memory rest on (LP64): a port's
// small fields sit in its event_target base's tail padding, its delayed connections apart.
TEST(CompactStorage, APortIsTwoCacheLines) {
  if constexpr (sizeof(void*) == 8) {
    EXPECT_EQ(sizeof(input<int>), 128u);
    EXPECT_EQ(sizeof(output<std::string>), 128u);
  }
}

TEST(ErasedValue, KeepsInPlaceAndSharedValuesThroughCopiesAndMoves) {
  static_assert(sizeof(detail::erased_value) == 24);
  auto small = detail::erased_value::of(42);
  detail::erased_value small_copy = small;
  EXPECT_EQ(small_copy.get<int>(), 42);

  auto text = std::make_shared<const std::string>("shared, never copied");
  auto shared = detail::erased_value::of_shared(text);
  EXPECT_EQ(text.use_count(), 2);
  {
    detail::erased_value copy = shared;
    EXPECT_EQ(text.use_count(), 3);
    EXPECT_EQ(&copy.get<std::string>(), text.get());
    detail::erased_value moved = std::move(copy);
    EXPECT_EQ(text.use_count(), 3);
    moved = small;  // the shared value is released, the small one copied in
    EXPECT_EQ(text.use_count(), 2);
    EXPECT_EQ(moved.get<int>(), 42);
    moved = shared;
    EXPECT_EQ(text.use_count(), 3);
  }
  EXPECT_EQ(text.use_count(), 2);
  shared.reset();
  EXPECT_FALSE(shared.has_value());
  EXPECT_EQ(text.use_count(), 1);
}

struct quiet : reactor {
  multiport_input<int> in;
  explicit quiet(context ctx) : reactor(ctx), in{this, "a_long_multiport_name", 3} {}
};

struct announcer : reactor {
  quiet child{{this, "child"}};
  std::vector<std::string>* log;
  announcer(context ctx, std::vector<std::string>* log) : reactor(ctx), log(log) {
    reaction("on_shutdown").triggers(shutdown).body([this] {
      this->log->push_back("shutdown at microstep " + std::to_string(get_microstep()));
    });
  }
};

TEST(LifecycleTriggers, AreMadeOnlyWhenDeclaredAndTheStartupTagStillHappens) {
  spate::runtime rt{spate::runtime_config{.scheduler = {.threads = 1}}};
  environment env{rt};
  std::vector<std::string> log;
  auto& top = env.make_top<announcer>("main", &log);
  env.assemble();
  // The child declared neither trigger: no action behind them. The top's startup always
  // exists (every program has its startup tag); its shutdown exists because it is declared.
  EXPECT_EQ(top.child.startup.action(), nullptr);
  EXPECT_EQ(top.child.shutdown.action(), nullptr);
  ASSERT_NE(top.startup.action(), nullptr);
  ASSERT_NE(top.shutdown.action(), nullptr);
  EXPECT_EQ(top.shutdown.action()->fully_qualified_name(), "main.shutdown");
  env.run();
  // Nothing happens at the startup tag, and shutdown follows it one microstep later: the
  // startup tag took place although no reaction declared a startup trigger.
  EXPECT_EQ(log, (std::vector<std::string>{"shutdown at microstep 1"}));
  // Channel names are spelled from their multiport's name on demand.
  EXPECT_EQ(top.child.in[2].fully_qualified_name(), "main.child.a_long_multiport_name[2]");
  EXPECT_EQ(top.child.in[0].name(), "a_long_multiport_name[0]");
}

}  // namespace
}  // namespace spate::reactor
