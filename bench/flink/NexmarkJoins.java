// Nexmark q3 and q20 for FlinkNexmark (bench/flink/FlinkNexmark.java): regular (unwindowed)
// inner joins over the events file, as the Flink suite's SQL (github.com/nexmark/nexmark) written
// as DataStream functions, each with the one-thread loop whose rows the job must give. Spate's
// versions, whose rows and digests these match: examples/apps/nexmark/join_queries.hpp.
//
//   q3  SELECT P.name, P.city, P.state, A.id FROM auction A JOIN person P ON A.seller = P.id
//       WHERE A.category = 10 AND P.state IN ('OR', 'ID', 'CA')
//   q20 SELECT auction, bidder, price, channel, url, B.dateTime, B.extra, itemName, description,
//              initialBid, reserve, A.dateTime, expires, seller, category, A.extra
//       FROM bid B JOIN auction A ON B.auction = A.id WHERE A.category = 10
//
// Plan (both): each side filtered and projected (chained to the source) -> keyBy(join key) on
// both -> connect -> a KeyedCoProcessFunction that keeps both sides in keyed ListState for ever
// and, as each element comes, adds it to its side and emits it with every element of the other
// side kept under its key: each pair once, when the second of the two arrives (spate's interval
// join with unbounded bounds does the same work). Parallel by the join key. A row's stampNs is
// the later of its two events' stamps (latency), as spate's.
//
// Rows use FlinkNexmark.Row's fields (the join's row goes to the sink chained, not copied):
//   q3:  A.id (in auction); the person, projected to id, name, city, state (in joined)
//   q20: the bid's auction, bidder, price, channel, url, dateTime, extra; the auction (in joined)
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

final class NexmarkJoins {
  private NexmarkJoins() {}

  static final TypeInformation<FlinkNexmark.Row> ROW = TypeInformation.of(FlinkNexmark.Row.class);
  static final TypeInformation<FlinkNexmark.Event> EVENT =
      TypeInformation.of(FlinkNexmark.Event.class);

  static boolean handles(String query) {
    return query.equals("q3") || query.equals("q20");
  }

  // spate's q3_row and q20_row digest().
  static long digest(String query, FlinkNexmark.Row r) {
    switch (query) {
      case "q3": {
        FlinkNexmark.Event p = r.joined;
        return fold(fold(fold(fold(0, text(p.name)), text(p.city)), text(p.state)), r.auction);
      }
      case "q20": {
        FlinkNexmark.Event a = r.joined;
        long h = fold(fold(fold(0, r.auction), r.bidder), r.price);
        h = fold(fold(fold(fold(h, text(r.channel)), text(r.url)), r.dateTime), text(r.extra));
        h = fold(fold(fold(fold(h, text(a.itemName)), text(a.description)), a.initialBid),
            a.reserve);
        h = fold(fold(fold(fold(h, a.dateTime), a.expires), a.seller), a.category);
        return fold(h, text(a.extra));
      }
      default: throw new IllegalArgumentException("not a join query: " + query);
    }
  }
  static long fold(long h, long v) { return FlinkNexmark.Row.fold(h, v); }
  static long text(String s) { return FlinkNexmark.Row.text(s); }

  // The query's graph from the source to its rows (the caller adds the sink).
  static DataStream<FlinkNexmark.Row> build(String query, DataStream<FlinkNexmark.Event> events) {
    switch (query) {
      case "q3": return q3(events);
      case "q20": return q20(events);
      default: throw new IllegalArgumentException("not a join query: " + query);
    }
  }

  // The rows the graph must give, by one loop on one thread.
  static List<FlinkNexmark.Row> sequential(String query, FlinkNexmark.Event[] events) {
    switch (query) {
      case "q3": return q3Sequential(events);
      case "q20": return q20Sequential(events);
      default: throw new IllegalArgumentException("not a join query: " + query);
    }
  }

  // A regular inner join of L and R on a Long key: both sides kept for ever in keyed ListState
  // (the state backend's, on the heap by default); each pair emitted once, as its second
  // element arrives. The inputs are the network's own copies (each record deserialized into a
  // new object), so they are kept as they come.
  abstract static class RegularJoin<L, R>
      extends KeyedCoProcessFunction<Long, L, R, FlinkNexmark.Row> {
    final TypeInformation<L> leftType;
    final TypeInformation<R> rightType;
    transient ListState<L> lefts;
    transient ListState<R> rights;
    RegularJoin(TypeInformation<L> leftType, TypeInformation<R> rightType) {
      this.leftType = leftType;
      this.rightType = rightType;
    }
    abstract FlinkNexmark.Row row(L l, R r);
    @Override public void open(OpenContext c) {
      lefts = getRuntimeContext().getListState(new ListStateDescriptor<>("lefts", leftType));
      rights = getRuntimeContext().getListState(new ListStateDescriptor<>("rights", rightType));
    }
    @Override public void processElement1(L l, Context c, Collector<FlinkNexmark.Row> out)
        throws Exception {
      lefts.add(l);
      for (R r : rights.get()) out.collect(row(l, r));
    }
    @Override public void processElement2(R r, Context c, Collector<FlinkNexmark.Row> out)
        throws Exception {
      rights.add(r);
      for (L l : lefts.get()) out.collect(row(l, r));
    }
  }

  // ---- q3, local item suggestion --------------------------------------------------------------
  // Persons in OR, ID or CA, projected to what the row needs (spate's q3_person), keyed by id;
  // auctions of category 10, projected to id and seller (q3_auction), keyed by seller.
  static boolean q3State(String state) {
    return state.equals("OR") || state.equals("ID") || state.equals("CA");
  }

  static DataStream<FlinkNexmark.Row> q3(DataStream<FlinkNexmark.Event> events) {
    DataStream<FlinkNexmark.Event> persons = events
        .flatMap((FlinkNexmark.Event e, Collector<FlinkNexmark.Event> out) -> {
              if (e.kind == 'P' && q3State(e.state)) {
                FlinkNexmark.Event p = new FlinkNexmark.Event();
                p.kind = 'P';
                p.id = e.id; p.dateTime = e.dateTime; p.stampNs = e.stampNs;
                p.name = e.name; p.city = e.city; p.state = e.state;
                out.collect(p);
              }
            }, EVENT).name("q3_persons");
    DataStream<FlinkNexmark.Event> auctions = events
        .flatMap((FlinkNexmark.Event e, Collector<FlinkNexmark.Event> out) -> {
              if (e.kind == 'A' && e.category == 10) {
                FlinkNexmark.Event a = new FlinkNexmark.Event();
                a.kind = 'A';
                a.id = e.id; a.seller = e.seller; a.dateTime = e.dateTime; a.stampNs = e.stampNs;
                out.collect(a);
              }
            }, EVENT).name("q3_auctions");
    return persons.keyBy(p -> p.id, Types.LONG)
        .connect(auctions.keyBy(a -> a.seller, Types.LONG))
        .process(new Q3Join(), ROW).name("q3_join");
  }

  static final class Q3Join extends RegularJoin<FlinkNexmark.Event, FlinkNexmark.Event> {
    Q3Join() { super(EVENT, EVENT); }
    @Override FlinkNexmark.Row row(FlinkNexmark.Event p, FlinkNexmark.Event a) {
      return q3Row(p, a, Math.max(p.stampNs, a.stampNs));
    }
  }

  static FlinkNexmark.Row q3Row(FlinkNexmark.Event person, FlinkNexmark.Event auction, long stampNs) {
    FlinkNexmark.Row r = new FlinkNexmark.Row(auction.id, 0, 0, 0, null, stampNs);
    r.joined = person;
    return r;
  }

  // As spate's q3_sequential: persons by id, auctions by seller; each pair when its second
  // element comes.
  static List<FlinkNexmark.Row> q3Sequential(FlinkNexmark.Event[] events) {
    HashMap<Long, List<FlinkNexmark.Event>> persons = new HashMap<>(), auctions = new HashMap<>();
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    for (FlinkNexmark.Event e : events) {
      if (e.kind == 'P' && q3State(e.state)) {
        persons.computeIfAbsent(e.id, k -> new ArrayList<>()).add(e);
        for (FlinkNexmark.Event a : auctions.getOrDefault(e.id, List.of())) rows.add(q3Row(e, a, 0));
      } else if (e.kind == 'A' && e.category == 10) {
        auctions.computeIfAbsent(e.seller, k -> new ArrayList<>()).add(e);
        for (FlinkNexmark.Event p : persons.getOrDefault(e.seller, List.of())) rows.add(q3Row(p, e, 0));
      }
    }
    return rows;
  }

  // ---- q20, expand bid with auction -----------------------------------------------------------
  // Every bid, all of it (as a Row: auction, bidder, price, channel, url, dateTime, extra), keyed
  // by auction; auctions of category 10, all of them (the event), keyed by id.
  static DataStream<FlinkNexmark.Row> q20(DataStream<FlinkNexmark.Event> events) {
    DataStream<FlinkNexmark.Row> bids = events
        .flatMap((FlinkNexmark.Event e, Collector<FlinkNexmark.Row> out) -> {
              if (e.kind == 'B') out.collect(q20Bid(e));
            }, ROW).name("q20_bids");
    DataStream<FlinkNexmark.Event> auctions = events
        .flatMap((FlinkNexmark.Event e, Collector<FlinkNexmark.Event> out) -> {
              // the event itself: the keyBy's network copy is what the join keeps
              if (e.kind == 'A' && e.category == 10) out.collect(e);
            }, EVENT).name("q20_auctions");
    return bids.keyBy(b -> b.auction, Types.LONG)
        .connect(auctions.keyBy(a -> a.id, Types.LONG))
        .process(new Q20Join(), ROW).name("q20_join");
  }

  static FlinkNexmark.Row q20Bid(FlinkNexmark.Event b) {
    FlinkNexmark.Row r =
        new FlinkNexmark.Row(b.auction, b.bidder, b.price, b.dateTime, b.extra, b.stampNs);
    r.channel = b.channel;
    r.url = b.url;
    return r;
  }

  static final class Q20Join extends RegularJoin<FlinkNexmark.Row, FlinkNexmark.Event> {
    Q20Join() { super(ROW, EVENT); }
    @Override FlinkNexmark.Row row(FlinkNexmark.Row b, FlinkNexmark.Event a) {
      return q20Row(b, a, Math.max(b.stampNs, a.stampNs));
    }
  }

  // A new row per pair: a kept bid may meet more than one auction of its id.
  static FlinkNexmark.Row q20Row(FlinkNexmark.Row bid, FlinkNexmark.Event auction, long stampNs) {
    FlinkNexmark.Row r =
        new FlinkNexmark.Row(bid.auction, bid.bidder, bid.price, bid.dateTime, bid.extra, stampNs);
    r.channel = bid.channel;
    r.url = bid.url;
    r.joined = auction;
    return r;
  }

  // As spate's q20_sequential: bids by auction, auctions of category 10 by id; each pair when
  // its second element comes.
  static List<FlinkNexmark.Row> q20Sequential(FlinkNexmark.Event[] events) {
    HashMap<Long, List<FlinkNexmark.Event>> bids = new HashMap<>(), auctions = new HashMap<>();
    List<FlinkNexmark.Row> rows = new ArrayList<>();
    for (FlinkNexmark.Event e : events) {
      if (e.kind == 'B') {
        bids.computeIfAbsent(e.auction, k -> new ArrayList<>()).add(e);
        for (FlinkNexmark.Event a : auctions.getOrDefault(e.auction, List.of()))
          rows.add(q20Row(q20Bid(e), a, 0));
      } else if (e.kind == 'A' && e.category == 10) {
        auctions.computeIfAbsent(e.id, k -> new ArrayList<>()).add(e);
        for (FlinkNexmark.Event b : bids.getOrDefault(e.id, List.of()))
          rows.add(q20Row(q20Bid(b), e, 0));
      }
    }
    return rows;
  }
}
