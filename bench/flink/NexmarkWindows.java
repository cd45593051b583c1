// Nexmark q5, q7, q8 and q12 for FlinkNexmark (bench/flink/FlinkNexmark.java): windowed queries
// over the events file, as the Flink suite's SQL (github.com/nexmark/nexmark) written as
// DataStream functions, each with the one-thread loop whose rows the job must give. Spate's
// versions, whose rows and digests these match: examples/apps/nexmark/q5.hpp, q7.hpp, q8.hpp and
// windowed_queries.hpp (q12). q5, q7 and q8: event time is dateTime (epoch ms) with 4 s of
// bounded out-of-orderness, as q11. q12: processing time, checked on each bidder's total
// (checksTotals), not on its rows.
//
// Rows use FlinkNexmark.Row's fields:
//   q5: auction, num (in price), window start (in dateTime)
//   q7: auction, bidder, price, dateTime, extra (as the bid)
//   q8: id (in auction), name (in text), window start (in dateTime)
//   q12: bidder, bid_count (in price), window start (in dateTime), window end (in auction), as
//        q11's; times in epoch ms of processing time
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.Collector;

final class NexmarkWindows {
  private NexmarkWindows() {}

  static final long LENGTH_MS = 10_000, Q5_SLIDE_MS = 2_000, LATENESS_MS = 4_000;
  static final TypeInformation<FlinkNexmark.Row> ROW = TypeInformation.of(FlinkNexmark.Row.class);

  static boolean handles(String query) {
    return query.equals("q5") || query.equals("q7") || query.equals("q8") || query.equals("q12");
  }

  // Whether the query is checked on each key's total (the sum of its rows' counts), not on its
  // rows: q12, whose windows, and so its rows, depend on the machine's timing. The sink adds up
  // totalCount per totalKey and digests each key's total with totalDigest, as spate's
  // totalled_row (bench/apps/nexmark_run.hpp); sequential gives each key's total as one row.
  static boolean checksTotals(String query) { return query.equals("q12"); }
  static long totalKey(String query, FlinkNexmark.Row r) {
    if (query.equals("q12")) return r.bidder;
    throw new IllegalArgumentException("not checked on its totals: " + query);
  }
  static long totalCount(String query, FlinkNexmark.Row r) {
    if (query.equals("q12")) return r.price;  // bid_count
    throw new IllegalArgumentException("not checked on its totals: " + query);
  }
  static long totalDigest(long key, long total) { return fold(fold(0, key), total); }

  // spate's q5_row, q7_row and q8_row digest().
  static long digest(String query, FlinkNexmark.Row r) {
    switch (query) {
      case "q5": return fold(fold(fold(0, r.auction), r.price), r.dateTime);
      case "q7":
        return fold(fold(fold(fold(fold(0, r.auction), r.price), r.bidder), r.dateTime),
            FlinkNexmark.Row.text(r.extra));
      case "q8": return fold(fold(fold(0, r.auction), FlinkNexmark.Row.text(r.text)), r.dateTime);
      default: throw new IllegalArgumentException("not a windowed query: " + query);
    }
  }
  static long fold(long h, long v) { return FlinkNexmark.Row.fold(h, v); }

  static WatermarkStrategy<FlinkNexmark.Row> watermarks() {
    return WatermarkStrategy.<FlinkNexmark.Row>forBoundedOutOfOrderness(Duration.ofSeconds(4))
        .withTimestampAssigner((r, previous) -> r.dateTime);
  }

  // The query's graph from the source to its rows (the caller adds the sink).
  static DataStream<FlinkNexmark.Row> build(String query, DataStream<FlinkNexmark.Event> events) {
    switch (query) {
      case "q5": return q5(events);
      case "q7": return q7(events);
      case "q8": return q8(events);
      case "q12": return q12(events);
      default: throw new IllegalArgumentException("not a windowed query: " + query);
    }
  }

  // The rows the graph must give, by one loop on one thread (q12: each bidder's total, as
  // checksTotals says).
  static List<FlinkNexmark.Row> sequential(String query, FlinkNexmark.Event[] events) {
    switch (query) {
      case "q5": return q5Sequential(events);
      case "q7": return q7Sequential(events);
      case "q8": return q8Sequential(events);
      case "q12": return q12Sequential(events);
      default: throw new IllegalArgumentException("not a windowed query: " + query);
    }
  }

  static void checkLateness(String query, long t, long newest) {
    // Strictly within the lateness, as spate's *_sequential.
    if (t <= newest - LATENESS_MS)
      throw new IllegalArgumentException(query + ": an event at " + t
          + " is 4 s or more behind the newest, " + newest);
  }

  // ---- q5, hot items --------------------------------------------------------------------------
  // Plan: bids -> watermarks -> keyBy(auction) -> sliding event-time windows of 10 s every 2 s
  // counting each auction's bids (and their newest stamp) -> (auction, count, window start) with
  // the window's maxTimestamp -> keyBy(window start) -> a KeyedProcessFunction that keeps the
  // window's highest count and the auctions at it, and emits them at an event-time timer at the
  // window's maxTimestamp (start + 10 s - 1): the counts windows fire before the watermark that
  // passes their end goes downstream, so when the timer fires every auction's count of that
  // window has come, from every parallel counter. Both steps are parallel: by auction, and
  // consecutive windows on different keys.
  static DataStream<FlinkNexmark.Row> q5(DataStream<FlinkNexmark.Event> events) {
    return events
        .flatMap((FlinkNexmark.Event e, Collector<FlinkNexmark.Row> out) -> {
              if (e.kind == 'B')
                out.collect(new FlinkNexmark.Row(e.auction, 0, 0, e.dateTime, null, e.stampNs));
            }, ROW).name("q5_bids")
        .assignTimestampsAndWatermarks(watermarks())
        .keyBy(r -> r.auction, Types.LONG)
        .window(SlidingEventTimeWindows.of(Duration.ofMillis(LENGTH_MS), Duration.ofMillis(Q5_SLIDE_MS)))
        .aggregate(new FlinkNexmark.SessionCount(), new Q5Count(), TypeInformation.of(long[].class),
            TypeInformation.of(long[].class), ROW).name("q5_counts")
        .keyBy(r -> r.dateTime, Types.LONG)
        .process(new Q5Top(), ROW).name("q5_top");
  }

  // An auction's count in a window: auction, count (in price), start (in dateTime), newest stamp.
  static final class Q5Count extends ProcessWindowFunction<long[], FlinkNexmark.Row, Long, TimeWindow> {
    @Override public void process(Long auction, Context c, Iterable<long[]> counts,
        Collector<FlinkNexmark.Row> out) {
      long[] a = counts.iterator().next();
      out.collect(new FlinkNexmark.Row(auction, 0, a[0], c.window().getStart(), null, a[1]));
    }
  }

  // Keyed by window start: the highest count, the auctions at it, the newest stamp.
  static final class Q5Top extends KeyedProcessFunction<Long, FlinkNexmark.Row, FlinkNexmark.Row> {
    transient ValueState<long[]> best;  // count, newest stamp
    transient ListState<Long> auctions;
    @Override public void open(OpenContext c) {
      best = getRuntimeContext().getState(new ValueStateDescriptor<>("best", long[].class));
      auctions = getRuntimeContext().getListState(new ListStateDescriptor<>("auctions", Types.LONG));
    }
    @Override public void processElement(FlinkNexmark.Row r, Context c,
        Collector<FlinkNexmark.Row> out) throws Exception {
      long[] b = best.value();
      if (b == null) {
        b = new long[2];
        c.timerService().registerEventTimeTimer(r.dateTime + LENGTH_MS - 1);
      }
      if (r.price > b[0]) {
        b[0] = r.price;
        auctions.clear();
      }
      if (r.price == b[0]) auctions.add(r.auction);
      b[1] = Math.max(b[1], r.stampNs);
      best.update(b);
    }
    @Override public void onTimer(long time, OnTimerContext c, Collector<FlinkNexmark.Row> out)
        throws Exception {
      long[] b = best.value();
      long start = c.getCurrentKey();
      for (long auction : auctions.get())
        out.collect(new FlinkNexmark.Row(auction, 0, b[0], start, null, b[1]));
      best.clear();
      auctions.clear();
    }
  }

  static List<FlinkNexmark.Row> q5Sequential(FlinkNexmark.Event[] events) {
    TreeMap<Long, HashMap<Long, long[]>> windows = new TreeMap<>();  // by start
    long newest = 0;
    for (FlinkNexmark.Event e : events) {
      if (e.kind != 'B') continue;
      checkLateness("q5", e.dateTime, newest);
      newest = Math.max(newest, e.dateTime);
      for (long start = e.dateTime - e.dateTime % Q5_SLIDE_MS;
           start > e.dateTime - LENGTH_MS && start >= 0; start -= Q5_SLIDE_MS)
        ++windows.computeIfAbsent(start, k -> new HashMap<>())
            .computeIfAbsent(e.auction, k -> new long[1])[0];
    }
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    for (Map.Entry<Long, HashMap<Long, long[]>> w : windows.entrySet()) {
      long max = 0;
      for (long[] n : w.getValue().values()) max = Math.max(max, n[0]);
      for (Map.Entry<Long, long[]> a : w.getValue().entrySet())
        if (a.getValue()[0] == max)
          rows.add(new FlinkNexmark.Row(a.getKey(), 0, max, w.getKey(), null, 0));
    }
    return rows;
  }

  // ---- q7, highest bid ------------------------------------------------------------------------
  // Plan: two-phase max, as Flink SQL's local/global aggregation, with BETWEEN's inclusive end
  // made a window of its own: bids -> watermarks -> keyBy(auction) -> sliding event-time windows
  // 10 s + 1 ms long every 10 s, so [start, start + 10 s] holds both ends and a bid at exactly
  // start + 10 s lies in two windows. Each auction's window keeps the highest price of its bids
  // before start + 10 s and the bids at it, and its bids at start + 10 s; it emits the bids at
  // its highest price and those at start + 10 s priced at least that, tagged with the window's
  // start (in cCounts), at its maxTimestamp (start + 10 s) -> keyBy(window start) -> a
  // KeyedProcessFunction that merges them into the window's maximum M and, at an event-time
  // timer at start + 10 s (every auction's window has fired by then), emits the bids at M before
  // start + 10 s and those at start + 10 s priced M. Only bids at a local maximum are shuffled a
  // second time.
  static final long Q7_WINDOW_MS = LENGTH_MS + 1;

  static DataStream<FlinkNexmark.Row> q7(DataStream<FlinkNexmark.Event> events) {
    return events
        .flatMap((FlinkNexmark.Event e, Collector<FlinkNexmark.Row> out) -> {
              if (e.kind == 'B')
                out.collect(new FlinkNexmark.Row(e.auction, e.bidder, e.price, e.dateTime, e.extra,
                    e.stampNs));
            }, ROW).name("q7_bids")
        .assignTimestampsAndWatermarks(watermarks())
        .keyBy(r -> r.auction, Types.LONG)
        .window(SlidingEventTimeWindows.of(Duration.ofMillis(Q7_WINDOW_MS), Duration.ofMillis(LENGTH_MS)))
        .aggregate(new Q7Local(), new Q7LocalRows(), TypeInformation.of(Q7Acc.class),
            TypeInformation.of(Q7Acc.class), ROW).name("q7_local_max")
        .keyBy(r -> r.cCounts, Types.LONG)
        .process(new Q7Global(), ROW).name("q7_global_max");
  }

  // A window's highest price among bids not at a multiple of 10 s and the bids at it; its bids
  // at multiples of 10 s (the window's start or its end: which, only the window knows).
  public static final class Q7Acc {
    public long max = -1;
    public ArrayList<FlinkNexmark.Row> atMax = new ArrayList<>(), edges = new ArrayList<>();
    public Q7Acc() {}
    void add(FlinkNexmark.Row b) {
      if (b.price > max) {
        max = b.price;
        atMax.clear();
      }
      if (b.price == max) atMax.add(b);
    }
  }

  static FlinkNexmark.Row copy(FlinkNexmark.Row b) {  // no reference kept to an input
    return new FlinkNexmark.Row(b.auction, b.bidder, b.price, b.dateTime, b.extra, b.stampNs);
  }

  static final class Q7Local implements AggregateFunction<FlinkNexmark.Row, Q7Acc, Q7Acc> {
    @Override public Q7Acc createAccumulator() { return new Q7Acc(); }
    @Override public Q7Acc add(FlinkNexmark.Row b, Q7Acc a) {
      if (b.dateTime % LENGTH_MS == 0) a.edges.add(copy(b));
      else if (b.price >= a.max) a.add(copy(b));
      return a;
    }
    @Override public Q7Acc getResult(Q7Acc a) { return a; }
    @Override public Q7Acc merge(Q7Acc a, Q7Acc b) {
      for (FlinkNexmark.Row r : b.atMax) a.add(r);
      a.edges.addAll(b.edges);
      return a;
    }
  }

  static final class Q7LocalRows extends ProcessWindowFunction<Q7Acc, FlinkNexmark.Row, Long, TimeWindow> {
    @Override public void process(Long auction, Context c, Iterable<Q7Acc> accs,
        Collector<FlinkNexmark.Row> out) {
      Q7Acc a = accs.iterator().next();
      long start = c.window().getStart(), end = start + LENGTH_MS;
      Q7Acc inner = new Q7Acc();  // the window's own bids: a.atMax and its edge bids at start
      inner.max = a.max;
      inner.atMax.addAll(a.atMax);
      for (FlinkNexmark.Row b : a.edges) if (b.dateTime == start) inner.add(b);
      for (FlinkNexmark.Row b : inner.atMax) { b.cCounts = start; out.collect(b); }
      for (FlinkNexmark.Row b : a.edges) {
        if (b.dateTime == end && b.price >= inner.max) { b.cCounts = start; out.collect(b); }
      }
    }
  }

  // Keyed by window start: the window's maximum and its bids at it; the bids at its end.
  static final class Q7Global extends KeyedProcessFunction<Long, FlinkNexmark.Row, FlinkNexmark.Row> {
    transient ValueState<Long> max;
    transient ListState<FlinkNexmark.Row> atMax, atEnd;
    @Override public void open(OpenContext c) {
      max = getRuntimeContext().getState(new ValueStateDescriptor<>("max", Types.LONG));
      atMax = getRuntimeContext().getListState(new ListStateDescriptor<>("atMax", ROW));
      atEnd = getRuntimeContext().getListState(new ListStateDescriptor<>("atEnd", ROW));
    }
    @Override public void processElement(FlinkNexmark.Row b, Context c,
        Collector<FlinkNexmark.Row> out) throws Exception {
      long start = c.getCurrentKey();
      Long m = max.value();
      if (m == null) {
        m = -1L;
        max.update(m);
        c.timerService().registerEventTimeTimer(start + LENGTH_MS);
      }
      if (b.dateTime == start + LENGTH_MS) {
        atEnd.add(b);
        return;
      }
      if (b.price > m) {
        max.update(b.price);
        atMax.clear();
        m = b.price;
      }
      if (b.price == m) atMax.add(b);
    }
    @Override public void onTimer(long time, OnTimerContext c, Collector<FlinkNexmark.Row> out)
        throws Exception {
      long m = max.value();
      for (FlinkNexmark.Row b : atMax.get()) out.collect(b);
      for (FlinkNexmark.Row b : atEnd.get()) if (b.price == m) out.collect(b);
      max.clear();
      atMax.clear();
      atEnd.clear();
    }
  }

  // As spate's q7_sequential: per window its maximum, the bids at it and the bids at its
  // earliest time; in window order, a window's bids at its start also match the previous
  // (adjacent) window's maximum.
  static List<FlinkNexmark.Row> q7Sequential(FlinkNexmark.Event[] events) {
    final class Window {
      long max = -1, earliest = Long.MAX_VALUE;
      List<FlinkNexmark.Event> atMax = new ArrayList<>(), atEarliest = new ArrayList<>();
    }
    TreeMap<Long, Window> windows = new TreeMap<>();  // by start
    long newest = 0;
    for (FlinkNexmark.Event e : events) {
      if (e.kind != 'B') continue;
      checkLateness("q7", e.dateTime, newest);
      newest = Math.max(newest, e.dateTime);
      Window w = windows.computeIfAbsent(e.dateTime - e.dateTime % LENGTH_MS, k -> new Window());
      if (e.price > w.max) { w.max = e.price; w.atMax.clear(); }
      if (e.price == w.max) w.atMax.add(e);
      if (e.dateTime < w.earliest) { w.earliest = e.dateTime; w.atEarliest.clear(); }
      if (e.dateTime == w.earliest) w.atEarliest.add(e);
    }
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    boolean hasPrevious = false;
    long previousEnd = 0, previousMax = 0;
    for (Map.Entry<Long, Window> kv : windows.entrySet()) {
      long start = kv.getKey();
      Window w = kv.getValue();
      if (hasPrevious && previousEnd == start && w.earliest == start) {
        for (FlinkNexmark.Event b : w.atEarliest) if (b.price == previousMax) rows.add(q7Row(b));
      }
      for (FlinkNexmark.Event b : w.atMax) rows.add(q7Row(b));
      hasPrevious = true;
      previousEnd = start + LENGTH_MS;
      previousMax = w.max;
    }
    return rows;
  }
  static FlinkNexmark.Row q7Row(FlinkNexmark.Event b) {
    return new FlinkNexmark.Row(b.auction, b.bidder, b.price, b.dateTime, b.extra, 0);
  }

  // ---- q8, monitor new users ------------------------------------------------------------------
  // Plan: persons (id, name) and auctions (seller) as one stream keyed by person id ->
  // watermarks -> keyBy(person id) -> tumbling event-time windows of 10 s, each keeping its
  // distinct names, whether an auction came, and its newest stamp -> a row (id, name, start) per
  // name when an auction came. Parallel by person id.
  static DataStream<FlinkNexmark.Row> q8(DataStream<FlinkNexmark.Event> events) {
    return events
        .flatMap((FlinkNexmark.Event e, Collector<FlinkNexmark.Row> out) -> {
              if (e.kind == 'P') {
                FlinkNexmark.Row r = new FlinkNexmark.Row(e.id, 0, 0, e.dateTime, null, e.stampNs);
                r.text = e.name;  // non-null: a person
                out.collect(r);
              } else if (e.kind == 'A') {
                out.collect(new FlinkNexmark.Row(e.seller, 0, 0, e.dateTime, null, e.stampNs));
              }
            }, ROW).name("q8_items")
        .assignTimestampsAndWatermarks(watermarks())
        .keyBy(r -> r.auction, Types.LONG)
        .window(TumblingEventTimeWindows.of(Duration.ofMillis(LENGTH_MS)))
        .aggregate(new Q8Seen(), new Q8Rows(), TypeInformation.of(Q8Acc.class),
            TypeInformation.of(Q8Acc.class), ROW).name("q8");
  }

  public static final class Q8Acc {
    public ArrayList<String> names = new ArrayList<>();
    public boolean hasAuction;
    public long newestStampNs;
    public Q8Acc() {}
  }

  static final class Q8Seen implements AggregateFunction<FlinkNexmark.Row, Q8Acc, Q8Acc> {
    @Override public Q8Acc createAccumulator() { return new Q8Acc(); }
    @Override public Q8Acc add(FlinkNexmark.Row r, Q8Acc a) {
      a.newestStampNs = Math.max(a.newestStampNs, r.stampNs);
      if (r.text == null) a.hasAuction = true;
      else if (!a.names.contains(r.text)) a.names.add(r.text);
      return a;
    }
    @Override public Q8Acc getResult(Q8Acc a) { return a; }
    @Override public Q8Acc merge(Q8Acc a, Q8Acc b) {
      a.newestStampNs = Math.max(a.newestStampNs, b.newestStampNs);
      a.hasAuction |= b.hasAuction;
      for (String name : b.names) if (!a.names.contains(name)) a.names.add(name);
      return a;
    }
  }

  static final class Q8Rows extends ProcessWindowFunction<Q8Acc, FlinkNexmark.Row, Long, TimeWindow> {
    @Override public void process(Long id, Context c, Iterable<Q8Acc> accs,
        Collector<FlinkNexmark.Row> out) {
      Q8Acc a = accs.iterator().next();
      if (!a.hasAuction) return;
      for (String name : a.names) {
        FlinkNexmark.Row r =
            new FlinkNexmark.Row(id, 0, 0, c.window().getStart(), null, a.newestStampNs);
        r.text = name;
        out.collect(r);
      }
    }
  }

  static List<FlinkNexmark.Row> q8Sequential(FlinkNexmark.Event[] events) {
    final class KeyWindow {
      TreeSet<String> names = new TreeSet<>();
      boolean hasAuction;
    }
    HashMap<List<Long>, KeyWindow> windows = new HashMap<>();  // by (start, id)
    long newest = 0;
    for (FlinkNexmark.Event e : events) {
      if (e.kind == 'B') continue;
      checkLateness("q8", e.dateTime, newest);
      newest = Math.max(newest, e.dateTime);
      long start = e.dateTime - e.dateTime % LENGTH_MS;
      long id = e.kind == 'P' ? e.id : e.seller;
      KeyWindow w = windows.computeIfAbsent(List.of(start, id), k -> new KeyWindow());
      if (e.kind == 'P') w.names.add(e.name);
      else w.hasAuction = true;
    }
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    for (Map.Entry<List<Long>, KeyWindow> kv : windows.entrySet()) {
      if (!kv.getValue().hasAuction) continue;
      for (String name : kv.getValue().names) {
        FlinkNexmark.Row r =
            new FlinkNexmark.Row(kv.getKey().get(1), 0, 0, kv.getKey().get(0), null, 0);
        r.text = name;
        rows.add(r);
      }
    }
    return rows;
  }

  // ---- q12, processing-time windows -----------------------------------------------------------
  // The Flink suite's q12.sql:
  //   CREATE VIEW B AS SELECT *, PROCTIME() as p_time FROM bid;
  //   SELECT bidder, count(*) as bid_count, window_start AS starttime, window_end AS endtime
  //   FROM TABLE(TUMBLE(TABLE B, DESCRIPTOR(p_time), INTERVAL '10' SECOND))
  //   GROUP BY bidder, window_start, window_end;
  // Plan: bids (bidder, stamp) -> keyBy(bidder) -> Q12Windows, tumbling processing-time windows
  // of 10 s (epoch-aligned, as TUMBLE over PROCTIME()) counting each bidder's bids and their
  // newest stamp -> (bidder, count, start, end) when the window's timer fires, at start + 10 s -
  // 1 ms. Parallel by bidder; the sink is chained to the windows, so each bidder's rows all come
  // to one sink. Q12Windows is an operator of its own, not Flink's window(...) with
  // TumblingProcessingTimeWindows, because Flink 2.3 does not fire processing-time windows that
  // are still open when a bounded input ends (its final watermark fires event-time timers only;
  // pending processing-time timers are dropped): with that window, 50,000 events sent in under
  // 1 s gave no row at all, and sent at 2,500 a second (20 s) lost the bids of the windows open
  // at the end. Q12Windows also implements BoundedOneInput and emits every open window at
  // endInput.
  static DataStream<FlinkNexmark.Row> q12(DataStream<FlinkNexmark.Event> events) {
    return events
        .flatMap((FlinkNexmark.Event e, Collector<FlinkNexmark.Row> out) -> {
              if (e.kind == 'B')
                out.collect(new FlinkNexmark.Row(0, e.bidder, 0, 0, null, e.stampNs));
            }, ROW).name("q12_bids")
        .keyBy(r -> r.bidder, Types.LONG)
        .transform("q12", ROW, new Q12Windows());
  }

  // Keyed by bidder: its open window (start, count, newest stamp), one at a time, as tumbling
  // windows have; a processing-time timer at the window's last ms, and endInput, emit it.
  static final class Q12Windows extends AbstractStreamOperator<FlinkNexmark.Row>
      implements OneInputStreamOperator<FlinkNexmark.Row, FlinkNexmark.Row>,
          Triggerable<Long, VoidNamespace>, BoundedOneInput {
    static final String STATE = "q12_window";
    transient ValueState<long[]> window;  // start (epoch ms), count, newest stamp
    transient InternalTimerService<VoidNamespace> timers;
    transient StreamRecord<FlinkNexmark.Row> record;

    @Override public void open() throws Exception {
      super.open();
      window = getPartitionedState(new ValueStateDescriptor<>(STATE, long[].class));
      timers = getInternalTimerService("q12_timers", VoidNamespaceSerializer.INSTANCE, this);
      record = new StreamRecord<>(null);
    }
    @Override public void processElement(StreamRecord<FlinkNexmark.Row> element) throws Exception {
      FlinkNexmark.Row r = element.getValue();
      long now = timers.currentProcessingTime();
      long start = TimeWindow.getWindowStartWithOffset(now, 0, LENGTH_MS);
      long[] w = window.value();
      if (w != null && w[0] != start) {  // its window has ended and its timer not fired yet
        timers.deleteProcessingTimeTimer(VoidNamespace.INSTANCE, w[0] + LENGTH_MS - 1);
        emit((Long) getCurrentKey(), w);
        w = null;
      }
      if (w == null) {
        w = new long[] {start, 0, 0};
        timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, start + LENGTH_MS - 1);
      }
      ++w[1];
      w[2] = Math.max(w[2], r.stampNs);
      window.update(w);
    }
    @Override public void onProcessingTime(InternalTimer<Long, VoidNamespace> timer)
        throws Exception {
      long[] w = window.value();  // the timer's key is the current key
      if (w == null || w[0] + LENGTH_MS - 1 != timer.getTimestamp()) return;
      emit(timer.getKey(), w);
      window.clear();
    }
    @Override public void onEventTime(InternalTimer<Long, VoidNamespace> timer) {}
    // The end of the input: every bidder's open window (their timers are dropped).
    @Override public void endInput() throws Exception {
      List<Long> bidders;
      try (Stream<Long> keys =
               this.<Long>getKeyedStateBackend().getKeys(STATE, VoidNamespace.INSTANCE)) {
        bidders = keys.collect(Collectors.toList());
      }
      for (long bidder : bidders) {
        setCurrentKey(bidder);
        long[] w = window.value();
        if (w == null) continue;
        timers.deleteProcessingTimeTimer(VoidNamespace.INSTANCE, w[0] + LENGTH_MS - 1);
        emit(bidder, w);
        window.clear();
      }
    }
    void emit(long bidder, long[] w) {
      output.collect(record.replace(
          new FlinkNexmark.Row(w[0] + LENGTH_MS, bidder, w[1], w[0], null, w[2])));
    }
  }

  // What q12's rows add up to, whatever the windows: one row per bidder with the count of its
  // bids (as spate's q12_sequential), as if one window held them all.
  static List<FlinkNexmark.Row> q12Sequential(FlinkNexmark.Event[] events) {
    TreeMap<Long, long[]> counts = new TreeMap<>();
    for (FlinkNexmark.Event e : events)
      if (e.kind == 'B') ++counts.computeIfAbsent(e.bidder, k -> new long[1])[0];
    List<FlinkNexmark.Row> rows = new ArrayList<>(counts.size());
    for (Map.Entry<Long, long[]> kv : counts.entrySet())
      rows.add(new FlinkNexmark.Row(0, kv.getKey(), kv.getValue()[0], 0, null, 0));
    return rows;
  }
}
