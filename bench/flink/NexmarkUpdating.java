// Nexmark q4, q6, q9, q15, q16, q17, q18 and q19 for FlinkNexmark (bench/flink/FlinkNexmark.java):
// the unwindowed GROUP BY, join and ranking queries whose results Flink SQL updates as events come,
// as the Flink suite's SQL (github.com/nexmark/nexmark) written as DataStream functions (q6
// restated: below), each with the one-thread loop whose rows the job must give. Spate's versions
// compute the same rows and digests over the same events file.
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
//   q6  SELECT Q.seller, AVG(Q.final) OVER (PARTITION BY Q.seller ORDER BY Q.dateTime
//                                          ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)
//       FROM (SELECT MAX(B.price) AS final, A.seller, B.dateTime
//             FROM auction AS A, bid AS B
//             WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
//             GROUP BY A.id, A.seller) AS Q
//       does not run as written (Flink SQL's OVER window takes no retractions, which the inner
//       GROUP BY makes: the suite's q6.sql is not run; and B.dateTime is not grouped). Restated
//       as spate's (examples/apps/nexmark/q6.hpp), with the auction's dateTime as the order and
//       each auction's closing price so far as its price: for each seller, the average (sum /
//       count, rounded toward zero, the sum wrapping) of the closing prices of its 11 latest
//       auctions (by dateTime, then id) among those with a closing price, updated as bids come,
//       an update equal to the seller's last row not sent.
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
//   q4:  two keyed stages, each with parallelism P. Auctions (projected to id, category, seller,
//        dateTime, expires) and bids (projected to auction, price, dateTime) on the one stream
//        (an AuctionOrBid, chained to the source), keyed by the auction id; keyed state: the
//        auction's category, seller, dateTime and expires once it has come (ValueState; a later
//        auction of the id is ignored), the bids that came before it as (price, dateTime) in
//        arrival order (ListState, emptied when it comes), the max price, its closing price so
//        far (ValueState). The matching bids are considered as q9's, and one priced above the
//        max (or the first) becomes it and sends a PriceChange (the auction's id, category,
//        seller and dateTime, the new max, and the one it replaces if any): ClosingPrice. Then
//        keyed by the category; keyed state: the sum of the auctions' maxes, their count and the
//        last avg emitted (ValueState): a change without a previous max counts its auction and
//        adds its price, one with a previous max adds the difference; avg = sum / count (AVG of
//        a BIGINT: integer division), emitted when the category has no row yet or it differs
//        from the last one. The category stage's rows depend on how the P auction workers'
//        changes interleave, so the check is on the final table (FlinkNexmark's sink and main
//        keep the last row per category, checksTable), which does not: the sum and count are
//        those of the auctions' final maxes.
//   q6:  q4's first stage (ClosingPrice), then keyed by the seller; keyed state (ValueState):
//        the seller's latest priced auctions, at most 11, as (dateTime, id, price) in
//        (dateTime, id) order, and the last avg emitted. A change of a kept auction sets its
//        price; an auction's first change enters when fewer than 11 are kept or it is not older
//        than all 11 (the oldest then leaves); any other change is dropped. avg = the kept
//        prices' sum / their count, emitted when the seller has no row yet or it differs from
//        the last one. An auction that is not among the 11 when it gets its first price, or is
//        pushed out, never comes back, so each seller's final row does not depend on how the P
//        auction workers' changes interleave (its rows before it do): checked on the final
//        table, the last row per seller, as q4.
// A row's stampNs is its bid's (latency); q9's, the later of its auction's and its bid's; q4's
// and q6's, the event's whose change it follows (for early bids, their auction's).
//
// Rows use FlinkNexmark.Row's fields:
//   q15: day and the 12 counts (in counts, in the digest's order)
//   q16: channel; day, minute and the 12 counts (in counts)
//   q17: auction, day, the 4 bid counts, min, max, avg, sum (in counts)
//   q18: auction, bidder, price, channel, url, dateTime, extra (as the bid)
//   q19: auction, bidder, price, dateTime; rank_number (in cCounts)
//   q9:  the bid's auction, bidder, price, dateTime, extra (as the bid); the auction (in joined)
//   q4:  category (in auction), avg (in price)
//   q6:  seller (in auction), avg (in price)
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
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
  static final int Q6_AUCTIONS = 11;  // q6's: ROWS BETWEEN 10 PRECEDING AND CURRENT ROW
  static final TypeInformation<FlinkNexmark.Row> ROW = TypeInformation.of(FlinkNexmark.Row.class);
  static final TypeInformation<Bid> BID = TypeInformation.of(Bid.class);
  static final TypeInformation<FlinkNexmark.Event> EVENT =
      TypeInformation.of(FlinkNexmark.Event.class);
  static final TypeInformation<Tuple2<String, Long>> STRING_LONG =
      Types.TUPLE(Types.STRING, Types.LONG);
  static final TypeInformation<Tuple2<Long, Long>> LONG_LONG = Types.TUPLE(Types.LONG, Types.LONG);
  static final TypeInformation<AuctionOrBid> AUCTION_OR_BID =
      TypeInformation.of(AuctionOrBid.class);
  static final TypeInformation<PriceChange> PRICE_CHANGE = TypeInformation.of(PriceChange.class);

  static boolean handles(String query) {
    switch (query) {
      case "q4": case "q6": case "q9": case "q15": case "q16": case "q17": case "q18": case "q19":
        return true;
      default: return false;
    }
  }

  // Whether the query is checked on its final table (the last row per tableKey), not on every
  // row it sends: q4 and q6, whose rows depend on how their stages' workers interleave.
  static boolean checksTable(String query) { return query.equals("q4") || query.equals("q6"); }
  static long tableKey(String query, FlinkNexmark.Row r) {
    if (query.equals("q4")) return r.auction;  // the category
    if (query.equals("q6")) return r.auction;  // the seller
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
      case "q4": case "q6": return fold(fold(0, r.auction), r.price);  // category / seller, avg
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
    if (query.equals("q6")) return q6(events);
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
      case "q6": return q6Sequential(events);
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
    HashMap<Long, FlinkNexmark.Event> winners = new HashMap<>();
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    forEachMatchingBid(events, (a, b) -> {
      FlinkNexmark.Event w = winners.get(a.id);
      boolean beats = w == null || b.price > w.price
          || (b.price == w.price && b.dateTime < w.dateTime);
      if (!beats) return;
      winners.put(a.id, b);
      rows.add(q9Row(a, b, 0));
    });
    return rows;
  }

  // The walk q9's and the closing prices' plain loops share, in file order: per auction id the
  // first auction keeps the id; bids that came before it wait and are taken when it comes,
  // before any later bid; each bid within its auction's [dateTime, expires] is passed to onBid
  // with the auction.
  static void forEachMatchingBid(FlinkNexmark.Event[] events,
      BiConsumer<FlinkNexmark.Event, FlinkNexmark.Event> onBid) {
    HashMap<Long, FlinkNexmark.Event> auctions = new HashMap<>();
    HashMap<Long, List<FlinkNexmark.Event>> waiting = new HashMap<>();
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
      for (FlinkNexmark.Event b : bids)
        if (a.dateTime <= b.dateTime && b.dateTime <= a.expires) onBid.accept(a, b);
    }
  }

  // ---- q4 and q6: each auction's closing price so far -----------------------------------------
  // An auction (id, category, seller, dateTime, expires) or a bid (its auction in id, price,
  // dateTime).
  public static final class AuctionOrBid {
    public boolean isAuction;
    public long id, category, seller, price, dateTime, expires, stampNs;
    public AuctionOrBid() {}
  }
  // Auction id's closing price went from previous (none when first) to price; the auction's
  // category, seller and dateTime.
  public static final class PriceChange {
    public long id, category, seller, dateTime, previous, price, stampNs;
    public boolean first;
    public PriceChange() {}
  }

  // Stage 1 of q4 and q6: the projection (chained to the source) and ClosingPrice, keyed by the
  // auction id.
  static SingleOutputStreamOperator<PriceChange> closingPrices(String query,
      DataStream<FlinkNexmark.Event> events) {
    return events
        .flatMap((FlinkNexmark.Event e, Collector<AuctionOrBid> out) -> {
              if (e.kind != 'A' && e.kind != 'B') return;
              AuctionOrBid i = new AuctionOrBid();
              i.isAuction = e.kind == 'A';
              if (i.isAuction) {
                i.id = e.id; i.category = e.category; i.seller = e.seller; i.expires = e.expires;
              } else {
                i.id = e.auction; i.price = e.price;
              }
              i.dateTime = e.dateTime;
              i.stampNs = e.stampNs;
              out.collect(i);
            }, AUCTION_OR_BID).name(query + "_events").setParallelism(1)
        .keyBy(i -> i.id, Types.LONG)
        .process(new ClosingPrice(), PRICE_CHANGE).name(query + "_closing_price");
  }

  // Per auction id: the join and MAX(B.price).
  static final class ClosingPrice extends KeyedProcessFunction<Long, AuctionOrBid, PriceChange> {
    transient ValueState<long[]> auction;  // its id, category, seller, dateTime, expires
    transient ListState<Tuple2<Long, Long>> early;  // the bids before it: price, dateTime
    transient ValueState<Long> max;
    @Override public void open(OpenContext c) {
      auction = getRuntimeContext().getState(new ValueStateDescriptor<>("auction", long[].class));
      early = getRuntimeContext().getListState(new ListStateDescriptor<>("early", LONG_LONG));
      max = getRuntimeContext().getState(new ValueStateDescriptor<>("max", Types.LONG));
    }
    @Override public void processElement(AuctionOrBid e, Context c, Collector<PriceChange> out)
        throws Exception {
      long[] a = auction.value();
      if (e.isAuction) {
        if (a != null) return;  // a second auction of the id
        a = new long[] {e.id, e.category, e.seller, e.dateTime, e.expires};
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
        Collector<PriceChange> out) {
      if (dateTime < a[3] || dateTime > a[4]) return m;
      if (m != null && price <= m) return m;
      out.collect(priceChange(a[0], a[1], a[2], a[3], m, price, stampNs));
      return price;
    }
  }

  static PriceChange priceChange(long id, long category, long seller, long dateTime, Long previous,
      long price, long stampNs) {
    PriceChange ch = new PriceChange();
    ch.id = id; ch.category = category; ch.seller = seller; ch.dateTime = dateTime;
    ch.first = previous == null;
    ch.previous = previous == null ? 0 : previous;
    ch.price = price;
    ch.stampNs = stampNs;
    return ch;
  }

  // Plainly: per auction id the auction, the bids before it and the max, in file order; each
  // change passed to onChange as it happens (stampNs 0).
  static void closingPricesSequential(FlinkNexmark.Event[] events, Consumer<PriceChange> onChange) {
    HashMap<Long, Long> maxes = new HashMap<>();
    forEachMatchingBid(events, (a, b) -> {
      Long max = maxes.get(a.id);
      if (max != null && b.price <= max) return;
      maxes.put(a.id, b.price);
      onChange.accept(priceChange(a.id, a.category, a.seller, a.dateTime, max, b.price, 0));
    });
  }

  // ---- q4, average winning price per category -------------------------------------------------
  static DataStream<FlinkNexmark.Row> q4(DataStream<FlinkNexmark.Event> events) {
    return closingPrices("q4", events)
        .keyBy(c -> c.category, Types.LONG)
        .process(new Q4Avg(), ROW).name("q4");
  }

  static FlinkNexmark.Row q4Row(long category, long avg, long stampNs) {
    return new FlinkNexmark.Row(category, 0, avg, 0, null, stampNs);
  }

  // Stage 2, per category: AVG(final) over its auctions' maxes, emitted when it changes.
  static final class Q4Avg extends KeyedProcessFunction<Long, PriceChange, FlinkNexmark.Row> {
    transient ValueState<long[]> state;  // sum, count, the last avg emitted (once there is one)
    @Override public void open(OpenContext c) {
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("avg", long[].class));
    }
    @Override public void processElement(PriceChange ch, Context c,
        Collector<FlinkNexmark.Row> out) throws Exception {
      long[] s = state.value();
      boolean hadRow = s != null;
      if (!hadRow) s = new long[3];
      boolean emit = q4Take(s, hadRow, ch);
      state.update(s);
      if (emit) out.collect(q4Row(ch.category, s[2], ch.stampNs));
    }
  }

  // Takes change ch into a category's {sum, count, the last avg emitted} (hadRow: a change came
  // before, so an avg was emitted): whether the new avg is to be emitted, the category's first
  // or one that differs from the last. Q4Avg and q4Sequential's one rule.
  static boolean q4Take(long[] s, boolean hadRow, PriceChange ch) {
    if (ch.first) {
      s[0] += ch.price;
      ++s[1];
    } else {
      s[0] += ch.price - ch.previous;
    }
    long avg = s[0] / s[1];
    boolean emit = !hadRow || avg != s[2];
    s[2] = avg;
    return emit;
  }

  // Plainly: the closing prices' changes in file order; per category the sum of its auctions'
  // maxes, their count and the last avg emitted, taken as Q4Avg takes them.
  static List<FlinkNexmark.Row> q4Sequential(FlinkNexmark.Event[] events) {
    HashMap<Long, long[]> sums = new HashMap<>();  // by category: sum, count, last avg
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    closingPricesSequential(events, c -> {
      long[] s = sums.get(c.category);
      boolean hadRow = s != null;
      if (!hadRow) sums.put(c.category, s = new long[3]);
      if (q4Take(s, hadRow, c)) rows.add(q4Row(c.category, s[2], 0));
    });
    return rows;
  }

  // ---- q6, average selling price per seller (restated) ----------------------------------------
  static DataStream<FlinkNexmark.Row> q6(DataStream<FlinkNexmark.Event> events) {
    return closingPrices("q6", events)
        .keyBy(c -> c.seller, Types.LONG)
        .process(new Q6Avg(), ROW).name("q6");
  }

  static FlinkNexmark.Row q6Row(long seller, long avg, long stampNs) {
    return new FlinkNexmark.Row(seller, 0, avg, 0, null, stampNs);
  }

  // Stage 2, per seller: the average closing price of its 11 latest priced auctions, emitted
  // when it changes. An auction's changes all come from one worker of stage 1, in order, so its
  // first change comes before its others.
  static final class Q6Avg extends KeyedProcessFunction<Long, PriceChange, FlinkNexmark.Row> {
    // The last avg emitted, the count n of kept auctions, then (dateTime, id, price) of each,
    // in (dateTime, id) order, oldest first.
    transient ValueState<long[]> state;
    @Override public void open(OpenContext c) {
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("latest", long[].class));
    }
    @Override public void processElement(PriceChange ch, Context c,
        Collector<FlinkNexmark.Row> out) throws Exception {
      long[] s = state.value();
      if (s == null) s = new long[2 + 3 * Q6_AUCTIONS];
      int n = (int) s[1], at = 0;  // at: the first kept auction not before ch's
      while (at < n && (s[2 + 3 * at] < ch.dateTime
          || (s[2 + 3 * at] == ch.dateTime && s[3 + 3 * at] < ch.id))) ++at;
      final boolean hadRow = n > 0;
      if (at < n && s[3 + 3 * at] == ch.id) {
        s[4 + 3 * at] = ch.price;
      } else if (!ch.first) {
        return;  // not among the latest: pushed out, or never in
      } else if (n < Q6_AUCTIONS) {
        System.arraycopy(s, 2 + 3 * at, s, 2 + 3 * (at + 1), 3 * (n - at));
        put(s, at, ch);
        s[1] = ++n;
      } else if (at == 0) {
        return;  // older than all 11: never among them
      } else {  // in at at - 1 once the oldest leaves
        System.arraycopy(s, 2 + 3, s, 2, 3 * (at - 1));
        put(s, at - 1, ch);
      }
      long sum = 0;  // wraps
      for (int i = 0; i < n; ++i) sum += s[4 + 3 * i];
      long avg = sum / n;
      boolean emit = !hadRow || avg != s[0];
      s[0] = avg;
      state.update(s);
      if (emit) out.collect(q6Row(ch.seller, avg, ch.stampNs));
    }
    static void put(long[] s, int i, PriceChange ch) {
      s[2 + 3 * i] = ch.dateTime;
      s[3 + 3 * i] = ch.id;
      s[4 + 3 * i] = ch.price;
    }
  }

  // Plainly: the closing prices' changes in file order; per seller a list of its kept auctions
  // (dateTime, id, price), sorted after each first change, the oldest dropped past 11, and the
  // last avg emitted.
  static List<FlinkNexmark.Row> q6Sequential(FlinkNexmark.Event[] events) {
    HashMap<Long, List<long[]>> latest = new HashMap<>();
    HashMap<Long, Long> lastAvg = new HashMap<>();
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    closingPricesSequential(events, c -> {
      List<long[]> kept = latest.computeIfAbsent(c.seller, k -> new ArrayList<>());
      long[] found = null;
      for (long[] k : kept) if (k[1] == c.id) found = k;
      if (found != null) {
        found[2] = c.price;
      } else {
        if (!c.first) return;
        long[] entry = {c.dateTime, c.id, c.price};
        kept.add(entry);
        kept.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
        if (kept.size() > Q6_AUCTIONS && kept.remove(0) == entry) return;  // older than all
      }
      long sum = 0;
      for (long[] k : kept) sum += k[2];
      long avg = sum / kept.size();
      Long last = lastAvg.get(c.seller);
      if (last != null && last == avg) return;
      lastAvg.put(c.seller, avg);
      rows.add(q6Row(c.seller, avg, 0));
    });
    return rows;
  }
}
