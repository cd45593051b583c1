// Nexmark q4, q9, q15, q16, q17, q18 and q19 for FlinkNexmark (bench/flink/FlinkNexmark.java):
// the unwindowed GROUP BY, join and ranking queries whose results Flink SQL updates as events come,
// as the Flink suite's SQL (github.com/nexmark/nexmark) written as DataStream functions, each
// with the one-thread loop whose rows the job must give. Spate's versions compute the same rows
// and digests over the same events file.
//
//   q15 SELECT DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day`, count(*) AS total_bids,
//              count(*) FILTER (WHERE price < 10000) AS rank1_bids, ... rank2, rank3,
//              count(DISTINCT bidder) AS total_bidders, ... FILTER per rank,
//              count(DISTINCT auction) AS total_auctions, ... FILTER per rank
//       FROM bid GROUP BY DATE_FORMAT(dateTime, 'yyyy-MM-dd')
//   q16 SELECT channel, `day`, max(DATE_FORMAT(dateTime, 'HH:mm')) AS `minute`, the same counts
//       FROM bid GROUP BY channel, DATE_FORMAT(dateTime, 'yyyy-MM-dd')
//   q17 SELECT auction, `day`, count(*) AS total_bids, rank1..3_bids, min(price), max(price),
//              avg(price), sum(price)
//       FROM bid GROUP BY auction, DATE_FORMAT(dateTime, 'yyyy-MM-dd')
//   q18 SELECT auction, bidder, price, channel, url, dateTime, extra FROM (SELECT *, ROW_NUMBER()
//       OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC) AS rank_number FROM bid)
//       WHERE rank_number <= 1
//   q19 SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC)
//       AS rank_number FROM bid) WHERE rank_number <= 10
//   q9  SELECT id, itemName, description, initialBid, reserve, dateTime, expires, seller, category,
//              extra, auction, bidder, price, bid_dateTime, bid_extra
//       FROM (SELECT A.*, B.auction, B.bidder, B.price, B.dateTime AS bid_dateTime,
//                    B.extra AS bid_extra, ROW_NUMBER() OVER (PARTITION BY A.id
//                    ORDER BY B.price DESC, B.dateTime ASC) AS rownum
//             FROM auction A, bid B
//             WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires)
//       WHERE rownum <= 1
//   q4  SELECT Q.category, AVG(Q.final) FROM (
//         SELECT MAX(B.price) AS final, A.category FROM auction A, bid B
//         WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
//         GROUP BY A.id, A.category) Q
//       GROUP BY Q.category
//
// day = floorDiv(dateTime, 1 day) and minute = floorMod(dateTime, 1 day) / 1 minute, as numbers;
// a price's rank: 1 below 10,000, 2 below 1,000,000, else 3.
//
// Each result is emitted as its changelog in upsert form: for each bid, the rows it changes,
// each as its new value (no retractions). Plan (q15 to q19): bids projected to a Bid (chained to
// the source, which runs with parallelism 1 for these queries: FlinkNexmark.main) -> keyBy(the
// query's key) -> a KeyedProcessFunction with keyed ValueState, parallel by the key, chained to
// the sink. The one source sends the events in file order and a keyBy keeps each sender's order
// per receiver, so each key sees its bids in file order and the rows are the same for any
// parallelism (and the one-thread loop's). q9 the same, with auctions and bids on the one stream
// (each auction id sees both in file order). Per query:
//   q15, q16: a Distinct (the key's 12 counts; bidders and auctions seen, each with a bit per
//             rank it was seen at: one hash lookup per value gives COUNT(DISTINCT) and its
//             FILTERed variants, as Flink SQL's shared distinct MapState); q16 the max minute.
//   q17: a long[] (count, count per rank, min, max, sum).
//   q18: the kept bid's dateTime; a bid at or after it replaces it and is emitted.
//   q19: the kept top 10 (bidder, price, dateTime) in rank order; a bid goes after every kept
//        bid of its price; the ranks from its own to the list's end are emitted.
//   q9:  auctions (the event) and bids (projected to an Event of auction, bidder, price,
//        dateTime, extra), keyed by the auction id; keyed state: the auction once it has come
//        (ValueState), the bids that came before it in arrival order (ListState, emptied when it
//        comes), the winner's price and dateTime (ValueState). A bid matches when
//        A.dateTime <= B.dateTime <= A.expires; the matching bids are considered in arrival
//        order (the early ones when the auction comes, before any later bid), and one that beats
//        the winner (none yet, a higher price, or the same price at an earlier dateTime) becomes
//        it and is emitted: the top-1 ranking's upsert changelog.
//   q4:  two keyed stages, each with parallelism P. Auctions (projected to id, category,
//        dateTime, expires) and bids (projected to auction, price, dateTime) on the one stream
//        (a Q4In, chained to the source), keyed by the auction id; keyed state: the auction's
//        category, dateTime and expires once it has come (ValueState; a later auction of the id
//        is ignored), the bids that came before it as (price, dateTime) in arrival order
//        (ListState, emptied when it comes), the max price (ValueState). The matching bids are
//        considered as q9's, and one priced above the max (or the first) becomes it and sends
//        its category a Q4Change (the new max, and the one it replaces if any). Then keyed by
//        the category; keyed state: the sum of the auctions' maxes, their count and the last
//        avg emitted (ValueState): a change without a previous max counts its auction and adds
//        its price, one with a previous max adds the difference; avg = sum / count (AVG of a
//        BIGINT: integer division), emitted when the category has no row yet or it differs from
//        the last one. The category stage's rows depend on how the P auction workers' changes
//        interleave, so the check is on the final table (FlinkNexmark's sink and main keep the
//        last row per category, checksTable), which does not: the sum and count are those of
//        the auctions' final maxes.
// A row's stampNs is its bid's (latency); q9's, the later of its auction's and its bid's; q4's,
// the event's whose change it follows (for early bids, their auction's).
//
// Rows use FlinkNexmark.Row's fields:
//   q15: day and the 12 counts (in counts, in the digest's order)
//   q16: channel; day, minute and the 12 counts (in counts)
//   q17: auction, day, the 4 bid counts, min, max, avg, sum (in counts)
//   q18: auction, bidder, price, channel, url, dateTime, extra (as the bid)
//   q19: auction, bidder, price, dateTime; rank_number (in cCounts)
//   q9:  the bid's auction, bidder, price, dateTime, extra (as the bid); the auction (in joined)
//   q4:  category (in auction), avg (in price)
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

final class NexmarkUpdating {
  private NexmarkUpdating() {}

  static final long DAY_MS = 86_400_000, MINUTE_MS = 60_000;
  static final int TOP = 10;  // q19's kept bids per auction
  static final TypeInformation<FlinkNexmark.Row> ROW = TypeInformation.of(FlinkNexmark.Row.class);
  static final TypeInformation<Bid> BID = TypeInformation.of(Bid.class);
  static final TypeInformation<FlinkNexmark.Event> EVENT =
      TypeInformation.of(FlinkNexmark.Event.class);
  static final TypeInformation<Tuple2<String, Long>> STRING_LONG =
      Types.TUPLE(Types.STRING, Types.LONG);
  static final TypeInformation<Tuple2<Long, Long>> LONG_LONG = Types.TUPLE(Types.LONG, Types.LONG);
  static final TypeInformation<Q4In> Q4_IN = TypeInformation.of(Q4In.class);
  static final TypeInformation<Q4Change> Q4_CHANGE = TypeInformation.of(Q4Change.class);

  static boolean handles(String query) {
    switch (query) {
      case "q4": case "q9": case "q15": case "q16": case "q17": case "q18": case "q19":
        return true;
      default: return false;
    }
  }

  // Whether the query is checked on its final table (the last row per tableKey), not on every
  // row it sends: q4, whose rows depend on how its stages' workers interleave.
  static boolean checksTable(String query) { return query.equals("q4"); }
  static long tableKey(String query, FlinkNexmark.Row r) {
    if (query.equals("q4")) return r.auction;  // the category
    throw new IllegalArgumentException("not checked on its table: " + query);
  }

  static long digest(String query, FlinkNexmark.Row r) {
    switch (query) {
      case "q15": case "q17": return foldAll(0, r.counts);
      case "q16": return foldAll(fold(0, text(r.channel)), r.counts);
      case "q18": {
        long h = fold(fold(fold(0, r.auction), r.bidder), r.price);
        return fold(fold(fold(fold(h, text(r.channel)), text(r.url)), r.dateTime), text(r.extra));
      }
      case "q19":
        return fold(fold(fold(fold(fold(0, r.auction), r.bidder), r.price), r.dateTime), r.cCounts);
      case "q9": {
        FlinkNexmark.Event a = r.joined;
        long h = fold(fold(fold(0, a.id), text(a.itemName)), text(a.description));
        h = fold(fold(fold(fold(h, a.initialBid), a.reserve), a.dateTime), a.expires);
        h = fold(fold(fold(h, a.seller), a.category), text(a.extra));
        return fold(fold(fold(fold(h, r.bidder), r.price), r.dateTime), text(r.extra));
      }
      case "q4": return fold(fold(0, r.auction), r.price);
      default: throw new IllegalArgumentException("not an updating query: " + query);
    }
  }
  static long fold(long h, long v) { return FlinkNexmark.Row.fold(h, v); }
  static long foldAll(long h, long[] vs) {
    for (long v : vs) h = fold(h, v);
    return h;
  }
  static long text(String s) { return FlinkNexmark.Row.text(s); }

  static long day(long dateTime) { return Math.floorDiv(dateTime, DAY_MS); }
  static long minute(long dateTime) { return Math.floorMod(dateTime, DAY_MS) / MINUTE_MS; }
  static int rank(long price) { return price < 10_000 ? 1 : price < 1_000_000 ? 2 : 3; }

  // A bid as the queries read it (channel, url and extra only where the query needs them).
  public static final class Bid {
    public long auction, bidder, price, dateTime, stampNs;
    public String channel, url, extra;
    public Bid() {}
  }

  // The query's graph from the source to its rows (the caller adds the sink). The projection
  // runs with the source's parallelism, 1, chained to it.
  static DataStream<FlinkNexmark.Row> build(String query, DataStream<FlinkNexmark.Event> events) {
    if (query.equals("q9")) return q9(events);
    if (query.equals("q4")) return q4(events);
    final boolean channel = query.equals("q16") || query.equals("q18");
    final boolean all = query.equals("q18");
    SingleOutputStreamOperator<Bid> bids = events
        .flatMap((FlinkNexmark.Event e, Collector<Bid> out) -> {
              if (e.kind != 'B') return;
              Bid b = new Bid();
              b.auction = e.auction; b.bidder = e.bidder; b.price = e.price;
              b.dateTime = e.dateTime; b.stampNs = e.stampNs;
              if (channel) b.channel = e.channel;
              if (all) { b.url = e.url; b.extra = e.extra; }
              out.collect(b);
            }, BID).name(query + "_bids").setParallelism(1);
    switch (query) {
      case "q15":
        return bids.keyBy(b -> day(b.dateTime), Types.LONG)
            .process(new DayStats<Long>(false), ROW).name("q15");
      case "q16":
        return bids.keyBy(b -> Tuple2.of(b.channel, day(b.dateTime)), STRING_LONG)
            .process(new DayStats<Tuple2<String, Long>>(true), ROW).name("q16");
      case "q17":
        return bids.keyBy(b -> Tuple2.of(b.auction, day(b.dateTime)), LONG_LONG)
            .process(new Q17(), ROW).name("q17");
      case "q18":
        return bids.keyBy(b -> Tuple2.of(b.bidder, b.auction), LONG_LONG)
            .process(new Q18(), ROW).name("q18");
      case "q19":
        return bids.keyBy(b -> b.auction, Types.LONG).process(new Q19(), ROW).name("q19");
      default: throw new IllegalArgumentException("not an updating query: " + query);
    }
  }

  // The rows the graph must give, by one loop on one thread.
  static List<FlinkNexmark.Row> sequential(String query, FlinkNexmark.Event[] events) {
    switch (query) {
      case "q15": case "q16": return dayStatsSequential(query.equals("q16"), events);
      case "q17": return q17Sequential(events);
      case "q18": return q18Sequential(events);
      case "q19": return q19Sequential(events);
      case "q9": return q9Sequential(events);
      case "q4": return q4Sequential(events);
      default: throw new IllegalArgumentException("not an updating query: " + query);
    }
  }

  // ---- q15, q16: bidding and channel statistics per day ---------------------------------------
  // A key's state: its 12 counts (bids: total, rank 1, 2, 3; bidders: the same; auctions: the
  // same), each bidder and auction seen with bit 1 << rank set for each rank it was seen at, and
  // (q16) the largest minute. Kept in a ValueState as it is (the heap backend keeps the object).
  public static final class Distinct {
    public long minute = -1;
    public long[] counts = new long[12];
    public HashMap<Long, Byte> bidders = new HashMap<>(), auctions = new HashMap<>();
    public Distinct() {}
    void add(Bid b) {
      int rank = rank(b.price);
      ++counts[0];
      ++counts[rank];
      seen(bidders, b.bidder, rank, 4);
      seen(auctions, b.auction, rank, 8);
      minute = Math.max(minute, minute(b.dateTime));
    }
    void seen(HashMap<Long, Byte> values, long v, int rank, int at) {
      Byte old = values.get(v);
      int bits = old == null ? 0 : old;
      if (old == null) ++counts[at];
      if ((bits & 1 << rank) != 0) return;
      values.put(v, (byte) (bits | 1 << rank));
      ++counts[at + rank];
    }
  }

  // q15: day, the 12 counts; q16: channel; day, minute, the 12 counts.
  static FlinkNexmark.Row dayRow(String channel, long day, long minute, long[] counts, long stampNs) {
    FlinkNexmark.Row r = new FlinkNexmark.Row(0, 0, 0, 0, null, stampNs);
    int head = channel == null ? 1 : 2;
    r.channel = channel;
    r.counts = new long[head + counts.length];
    r.counts[0] = day;
    if (channel != null) r.counts[1] = minute;
    System.arraycopy(counts, 0, r.counts, head, counts.length);
    return r;
  }

  static final class DayStats<K> extends KeyedProcessFunction<K, Bid, FlinkNexmark.Row> {
    final boolean channel;  // q16
    transient ValueState<Distinct> state;
    DayStats(boolean channel) { this.channel = channel; }
    @Override public void open(OpenContext c) {
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("distinct", Distinct.class));
    }
    @Override public void processElement(Bid b, Context c, Collector<FlinkNexmark.Row> out)
        throws Exception {
      Distinct d = state.value();
      if (d == null) d = new Distinct();
      d.add(b);
      state.update(d);
      out.collect(dayRow(channel ? b.channel : null, day(b.dateTime), d.minute, d.counts,
          b.stampNs));
    }
  }

  // Plainly: per key a set of bidders and of auctions for all bids and for each rank.
  static List<FlinkNexmark.Row> dayStatsSequential(boolean channel, FlinkNexmark.Event[] events) {
    final class Stats {
      long minute = -1;
      long[] bids = new long[4];
      List<HashSet<Long>> bidders = new ArrayList<>(), auctions = new ArrayList<>();
      Stats() {
        for (int i = 0; i < 4; ++i) { bidders.add(new HashSet<>()); auctions.add(new HashSet<>()); }
      }
    }
    HashMap<List<Object>, Stats> keys = new HashMap<>();  // by (channel or null, day)
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    for (FlinkNexmark.Event e : events) {
      if (e.kind != 'B') continue;
      long day = day(e.dateTime);
      Stats s = keys.computeIfAbsent(List.of(channel ? e.channel : "", day), k -> new Stats());
      int rank = rank(e.price);
      for (int i : new int[] {0, rank}) {
        ++s.bids[i];
        s.bidders.get(i).add(e.bidder);
        s.auctions.get(i).add(e.auction);
      }
      s.minute = Math.max(s.minute, minute(e.dateTime));
      long[] counts = new long[12];
      for (int i = 0; i < 4; ++i) {
        counts[i] = s.bids[i];
        counts[4 + i] = s.bidders.get(i).size();
        counts[8 + i] = s.auctions.get(i).size();
      }
      rows.add(dayRow(channel ? e.channel : null, day, s.minute, counts, 0));
    }
    return rows;
  }

  // ---- q17, auction statistics per day --------------------------------------------------------
  // State: count, count per rank, min, max, sum. Row: auction, day, the 4 counts, min, max,
  // sum / count (AVG of a BIGINT: integer division), sum.
  static FlinkNexmark.Row q17Row(long auction, long day, long[] s, long stampNs) {
    FlinkNexmark.Row r = new FlinkNexmark.Row(0, 0, 0, 0, null, stampNs);
    r.counts = new long[] {auction, day, s[0], s[1], s[2], s[3], s[4], s[5], s[6] / s[0], s[6]};
    return r;
  }

  static final class Q17 extends KeyedProcessFunction<Tuple2<Long, Long>, Bid, FlinkNexmark.Row> {
    transient ValueState<long[]> state;
    @Override public void open(OpenContext c) {
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("stats", long[].class));
    }
    @Override public void processElement(Bid b, Context c, Collector<FlinkNexmark.Row> out)
        throws Exception {
      long[] s = state.value();
      if (s == null) s = new long[] {0, 0, 0, 0, Long.MAX_VALUE, Long.MIN_VALUE, 0};
      ++s[0];
      ++s[rank(b.price)];
      s[4] = Math.min(s[4], b.price);
      s[5] = Math.max(s[5], b.price);
      s[6] += b.price;
      state.update(s);
      out.collect(q17Row(b.auction, day(b.dateTime), s, b.stampNs));
    }
  }

  static List<FlinkNexmark.Row> q17Sequential(FlinkNexmark.Event[] events) {
    HashMap<List<Long>, long[]> keys = new HashMap<>();  // by (auction, day)
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    for (FlinkNexmark.Event e : events) {
      if (e.kind != 'B') continue;
      long day = day(e.dateTime);
      long[] s = keys.get(List.of(e.auction, day));
      if (s == null) {
        s = new long[] {0, 0, 0, 0, e.price, e.price, 0};
        keys.put(List.of(e.auction, day), s);
      }
      ++s[0];
      ++s[rank(e.price)];
      s[4] = Math.min(s[4], e.price);
      s[5] = Math.max(s[5], e.price);
      s[6] += e.price;
      rows.add(q17Row(e.auction, day, s, 0));
    }
    return rows;
  }

  // ---- q18, last bid per (bidder, auction) ----------------------------------------------------
  // Flink's keep-last-row deduplication on event time: a bid whose dateTime is at or after the
  // kept one's replaces it and is emitted. Only the kept dateTime is needed.
  static FlinkNexmark.Row q18Row(long auction, long bidder, long price, String channel, String url,
      long dateTime, String extra, long stampNs) {
    FlinkNexmark.Row r = new FlinkNexmark.Row(auction, bidder, price, dateTime, extra, stampNs);
    r.channel = channel;
    r.url = url;
    return r;
  }

  static final class Q18 extends KeyedProcessFunction<Tuple2<Long, Long>, Bid, FlinkNexmark.Row> {
    transient ValueState<Long> kept;
    @Override public void open(OpenContext c) {
      kept = getRuntimeContext().getState(new ValueStateDescriptor<>("kept", Types.LONG));
    }
    @Override public void processElement(Bid b, Context c, Collector<FlinkNexmark.Row> out)
        throws Exception {
      Long t = kept.value();
      if (t != null && b.dateTime < t) return;
      kept.update(b.dateTime);
      out.collect(q18Row(b.auction, b.bidder, b.price, b.channel, b.url, b.dateTime, b.extra,
          b.stampNs));
    }
  }

  static List<FlinkNexmark.Row> q18Sequential(FlinkNexmark.Event[] events) {
    HashMap<List<Long>, FlinkNexmark.Event> kept = new HashMap<>();  // by (bidder, auction)
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    for (FlinkNexmark.Event e : events) {
      if (e.kind != 'B') continue;
      List<Long> key = List.of(e.bidder, e.auction);
      FlinkNexmark.Event k = kept.get(key);
      if (k != null && e.dateTime < k.dateTime) continue;
      kept.put(key, e);
      rows.add(q18Row(e.auction, e.bidder, e.price, e.channel, e.url, e.dateTime, e.extra, 0));
    }
    return rows;
  }

  // ---- q19, top 10 bids per auction by price --------------------------------------------------
  // State: the kept bids' count, then (bidder, price, dateTime) for each, by rank. A bid goes
  // after every kept bid priced at least its price, at rank r; it enters when r <= 10, the 11th
  // drops out, and ranks r to the list's new size are emitted (their occupants changed).
  static FlinkNexmark.Row q19Row(long auction, long bidder, long price, long dateTime, long rank,
      long stampNs) {
    FlinkNexmark.Row r = new FlinkNexmark.Row(auction, bidder, price, dateTime, null, stampNs);
    r.cCounts = rank;
    return r;
  }

  static final class Q19 extends KeyedProcessFunction<Long, Bid, FlinkNexmark.Row> {
    transient ValueState<long[]> kept;
    @Override public void open(OpenContext c) {
      kept = getRuntimeContext().getState(new ValueStateDescriptor<>("kept", long[].class));
    }
    @Override public void processElement(Bid b, Context c, Collector<FlinkNexmark.Row> out)
        throws Exception {
      long[] s = kept.value();
      if (s == null) s = new long[1 + 3 * TOP];
      int n = (int) s[0], at = 0;  // at: the new bid's 0-based rank
      while (at < n && s[1 + 3 * at + 1] >= b.price) ++at;
      if (at == TOP) return;
      int size = Math.min(n + 1, TOP);
      System.arraycopy(s, 1 + 3 * at, s, 1 + 3 * (at + 1), 3 * (size - 1 - at));
      s[1 + 3 * at] = b.bidder;
      s[2 + 3 * at] = b.price;
      s[3 + 3 * at] = b.dateTime;
      s[0] = size;
      kept.update(s);
      for (int i = at; i < size; ++i)
        out.collect(q19Row(b.auction, s[1 + 3 * i], s[2 + 3 * i], s[3 + 3 * i], i + 1, b.stampNs));
    }
  }

  static List<FlinkNexmark.Row> q19Sequential(FlinkNexmark.Event[] events) {
    HashMap<Long, List<FlinkNexmark.Event>> kept = new HashMap<>();  // by auction, by rank
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    for (FlinkNexmark.Event e : events) {
      if (e.kind != 'B') continue;
      List<FlinkNexmark.Event> top = kept.computeIfAbsent(e.auction, k -> new ArrayList<>());
      int r = 0;
      for (FlinkNexmark.Event k : top) if (k.price >= e.price) ++r;
      if (r >= TOP) continue;
      top.add(r, e);
      if (top.size() > TOP) top.remove(TOP);
      for (int i = r; i < top.size(); ++i) {
        FlinkNexmark.Event k = top.get(i);
        rows.add(q19Row(e.auction, k.bidder, k.price, k.dateTime, i + 1, 0));
      }
    }
    return rows;
  }

  // ---- q9, winning bids -----------------------------------------------------------------------
  // One stream of auctions (the event itself: the keyBy's network copy is what the state keeps)
  // and bids (an Event of kind 'B' holding auction, bidder, price, dateTime, extra), in file
  // order, keyed by the auction id. A second auction of an id (the generator writes none) is
  // ignored: the first one joins every bid of the id.
  static DataStream<FlinkNexmark.Row> q9(DataStream<FlinkNexmark.Event> events) {
    return events
        .flatMap((FlinkNexmark.Event e, Collector<FlinkNexmark.Event> out) -> {
              if (e.kind == 'A') {
                out.collect(e);
              } else if (e.kind == 'B') {
                FlinkNexmark.Event b = new FlinkNexmark.Event();
                b.kind = 'B';
                b.auction = e.auction; b.bidder = e.bidder; b.price = e.price;
                b.dateTime = e.dateTime; b.extra = e.extra; b.stampNs = e.stampNs;
                out.collect(b);
              }
            }, EVENT).name("q9_events").setParallelism(1)
        .keyBy(e -> e.kind == 'A' ? e.id : e.auction, Types.LONG)
        .process(new Q9(), ROW).name("q9");
  }

  // The auction's fields, then the bid's (bidder, price, dateTime, extra).
  static FlinkNexmark.Row q9Row(FlinkNexmark.Event auction, FlinkNexmark.Event bid, long stampNs) {
    FlinkNexmark.Row r =
        new FlinkNexmark.Row(bid.auction, bid.bidder, bid.price, bid.dateTime, bid.extra, stampNs);
    r.joined = auction;
    return r;
  }

  static final class Q9 extends KeyedProcessFunction<Long, FlinkNexmark.Event, FlinkNexmark.Row> {
    transient ValueState<FlinkNexmark.Event> auction;
    transient ListState<FlinkNexmark.Event> early;  // the bids before the auction, in order
    transient ValueState<long[]> winner;  // its price and dateTime
    @Override public void open(OpenContext c) {
      auction = getRuntimeContext().getState(new ValueStateDescriptor<>("auction", EVENT));
      early = getRuntimeContext().getListState(new ListStateDescriptor<>("early", EVENT));
      winner = getRuntimeContext().getState(new ValueStateDescriptor<>("winner", long[].class));
    }
    @Override public void processElement(FlinkNexmark.Event e, Context c,
        Collector<FlinkNexmark.Row> out) throws Exception {
      FlinkNexmark.Event a = auction.value();
      if (e.kind == 'A') {
        if (a != null) return;  // a second auction of the id
        auction.update(e);
        long[] w = winner.value();
        for (FlinkNexmark.Event b : early.get()) w = consider(e, b, w, e.stampNs, out);
        early.clear();
        if (w != null) winner.update(w);
      } else if (a == null) {
        early.add(e);
      } else {
        long[] w = winner.value(), next = consider(a, e, w, e.stampNs, out);
        if (next != w) winner.update(next);
      }
    }
    // The winner after bid b: b's price and dateTime, and its row emitted, when b matches the
    // auction and beats the winner w; else w.
    static long[] consider(FlinkNexmark.Event a, FlinkNexmark.Event b, long[] w, long stampNs,
        Collector<FlinkNexmark.Row> out) {
      if (b.dateTime < a.dateTime || b.dateTime > a.expires) return w;
      if (w != null && !(b.price > w[0] || (b.price == w[0] && b.dateTime < w[1]))) return w;
      out.collect(q9Row(a, b, stampNs));
      return new long[] {b.price, b.dateTime};
    }
  }

  // Plainly: per auction id the auction, the bids before it and the winning bid, in file order.
  static List<FlinkNexmark.Row> q9Sequential(FlinkNexmark.Event[] events) {
    HashMap<Long, FlinkNexmark.Event> auctions = new HashMap<>(), winners = new HashMap<>();
    HashMap<Long, List<FlinkNexmark.Event>> waiting = new HashMap<>();
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    for (FlinkNexmark.Event e : events) {
      List<FlinkNexmark.Event> bids;
      FlinkNexmark.Event a;
      if (e.kind == 'A') {
        if (auctions.containsKey(e.id)) continue;
        auctions.put(e.id, e);
        a = e;
        bids = waiting.remove(e.id);
        if (bids == null) continue;
      } else if (e.kind == 'B') {
        a = auctions.get(e.auction);
        if (a == null) {
          waiting.computeIfAbsent(e.auction, k -> new ArrayList<>()).add(e);
          continue;
        }
        bids = List.of(e);
      } else {
        continue;
      }
      for (FlinkNexmark.Event b : bids) {
        if (!(a.dateTime <= b.dateTime && b.dateTime <= a.expires)) continue;
        FlinkNexmark.Event w = winners.get(a.id);
        boolean beats = w == null || b.price > w.price
            || (b.price == w.price && b.dateTime < w.dateTime);
        if (!beats) continue;
        winners.put(a.id, b);
        rows.add(q9Row(a, b, 0));
      }
    }
    return rows;
  }

  // ---- q4, average winning price per category -------------------------------------------------
  // An auction (id, category, dateTime, expires) or a bid (its auction in id, price, dateTime).
  public static final class Q4In {
    public boolean isAuction;
    public long id, category, price, dateTime, expires, stampNs;
    public Q4In() {}
  }
  // An auction's new max price, for its category, and the max it replaces (hadPrevious).
  public static final class Q4Change {
    public long category, previous, price, stampNs;
    public boolean hadPrevious;
    public Q4Change() {}
  }

  static DataStream<FlinkNexmark.Row> q4(DataStream<FlinkNexmark.Event> events) {
    return events
        .flatMap((FlinkNexmark.Event e, Collector<Q4In> out) -> {
              if (e.kind != 'A' && e.kind != 'B') return;
              Q4In i = new Q4In();
              i.isAuction = e.kind == 'A';
              if (i.isAuction) {
                i.id = e.id; i.category = e.category; i.expires = e.expires;
              } else {
                i.id = e.auction; i.price = e.price;
              }
              i.dateTime = e.dateTime;
              i.stampNs = e.stampNs;
              out.collect(i);
            }, Q4_IN).name("q4_events").setParallelism(1)
        .keyBy(i -> i.id, Types.LONG)
        .process(new Q4Max(), Q4_CHANGE).name("q4_max")
        .keyBy(c -> c.category, Types.LONG)
        .process(new Q4Avg(), ROW).name("q4");
  }

  static FlinkNexmark.Row q4Row(long category, long avg, long stampNs) {
    return new FlinkNexmark.Row(category, 0, avg, 0, null, stampNs);
  }

  // Stage 1, per auction id: the join and MAX(B.price).
  static final class Q4Max extends KeyedProcessFunction<Long, Q4In, Q4Change> {
    transient ValueState<long[]> auction;  // its category, dateTime, expires
    transient ListState<Tuple2<Long, Long>> early;  // the bids before it: price, dateTime
    transient ValueState<Long> max;
    @Override public void open(OpenContext c) {
      auction = getRuntimeContext().getState(new ValueStateDescriptor<>("auction", long[].class));
      early = getRuntimeContext().getListState(new ListStateDescriptor<>("early", LONG_LONG));
      max = getRuntimeContext().getState(new ValueStateDescriptor<>("max", Types.LONG));
    }
    @Override public void processElement(Q4In e, Context c, Collector<Q4Change> out)
        throws Exception {
      long[] a = auction.value();
      if (e.isAuction) {
        if (a != null) return;  // a second auction of the id
        a = new long[] {e.category, e.dateTime, e.expires};
        auction.update(a);
        Long m = max.value();
        for (Tuple2<Long, Long> b : early.get()) m = consider(a, b.f0, b.f1, m, e.stampNs, out);
        early.clear();
        if (m != null) max.update(m);
      } else if (a == null) {
        early.add(Tuple2.of(e.price, e.dateTime));
      } else {
        Long m = max.value(), next = consider(a, e.price, e.dateTime, m, e.stampNs, out);
        if (next != m) max.update(next);  // consider returns m itself when it keeps it
      }
    }
    // The max after a bid (price, dateTime): its price, and its change sent, when it matches
    // auction a and is the first or priced above the max m; else m.
    static Long consider(long[] a, long price, long dateTime, Long m, long stampNs,
        Collector<Q4Change> out) {
      if (dateTime < a[1] || dateTime > a[2]) return m;
      if (m != null && price <= m) return m;
      Q4Change ch = new Q4Change();
      ch.category = a[0];
      ch.hadPrevious = m != null;
      ch.previous = m == null ? 0 : m;
      ch.price = price;
      ch.stampNs = stampNs;
      out.collect(ch);
      return price;
    }
  }

  // Stage 2, per category: AVG(final) over its auctions' maxes, emitted when it changes.
  static final class Q4Avg extends KeyedProcessFunction<Long, Q4Change, FlinkNexmark.Row> {
    transient ValueState<long[]> state;  // sum, count, the last avg emitted (once there is one)
    @Override public void open(OpenContext c) {
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("avg", long[].class));
    }
    @Override public void processElement(Q4Change ch, Context c, Collector<FlinkNexmark.Row> out)
        throws Exception {
      long[] s = state.value();
      boolean first = s == null;  // no row emitted yet: every change leaves one
      if (first) s = new long[3];
      if (ch.hadPrevious) {
        s[0] += ch.price - ch.previous;
      } else {
        s[0] += ch.price;
        ++s[1];
      }
      long avg = s[0] / s[1];
      boolean emit = first || avg != s[2];
      s[2] = avg;
      state.update(s);
      if (emit) out.collect(q4Row(ch.category, avg, ch.stampNs));
    }
  }

  // Plainly: per auction id the auction, the bids before it and the max; per category the sum
  // of its auctions' maxes, their count and the last avg emitted; in file order.
  static List<FlinkNexmark.Row> q4Sequential(FlinkNexmark.Event[] events) {
    HashMap<Long, FlinkNexmark.Event> auctions = new HashMap<>();
    HashMap<Long, List<FlinkNexmark.Event>> waiting = new HashMap<>();
    HashMap<Long, Long> maxes = new HashMap<>(), lastAvg = new HashMap<>();
    HashMap<Long, long[]> sums = new HashMap<>();  // by category: sum, count
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    for (FlinkNexmark.Event e : events) {
      List<FlinkNexmark.Event> bids;
      FlinkNexmark.Event a;
      if (e.kind == 'A') {
        if (auctions.containsKey(e.id)) continue;
        auctions.put(e.id, e);
        a = e;
        bids = waiting.remove(e.id);
        if (bids == null) continue;
      } else if (e.kind == 'B') {
        a = auctions.get(e.auction);
        if (a == null) {
          waiting.computeIfAbsent(e.auction, k -> new ArrayList<>()).add(e);
          continue;
        }
        bids = List.of(e);
      } else {
        continue;
      }
      for (FlinkNexmark.Event b : bids) {
        if (!(a.dateTime <= b.dateTime && b.dateTime <= a.expires)) continue;
        Long max = maxes.get(a.id);
        if (max != null && b.price <= max) continue;
        maxes.put(a.id, b.price);
        long[] s = sums.computeIfAbsent(a.category, k -> new long[2]);
        if (max == null) {
          s[0] += b.price;
          ++s[1];
        } else {
          s[0] += b.price - max;
        }
        long avg = s[0] / s[1];
        Long last = lastAvg.get(a.category);
        if (last != null && last == avg) continue;
        lastAvg.put(a.category, avg);
        rows.add(q4Row(a.category, avg, 0));
      }
    }
    return rows;
  }
}
