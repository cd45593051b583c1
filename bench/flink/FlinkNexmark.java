// Apache Flink's side of the Nexmark comparison (tools/bench-compare --suite nexmark, through
// tools/flink/run-nexmark), the same work as
// `spate-bench nexmark --source=file`: the first N events of an events file (written by
// `nexmark generate`, examples/apps/nexmark) are loaded before the job starts and sent once
// each from memory, stamped as the source emits them; the query as a DataStream program with
// parallelism P (every operator chained to its source, but for q4, q6, q9 and q15-q19); a sink
// that folds each row into the same order-free digest as spate's
// (examples/apps/nexmark/queries.hpp) and records the latency of every 16th row (q4 and q6: the
// digest of the final table, the last row per category or seller, whose changelog depends on how
// the workers interleave; q12: of each bidder's total bid count over its rows, whose
// processing-time windows depend on the machine's timing).
//
//   java -cp 'JARS/*:CLASSES' FlinkNexmark EVENTS_FILE N QUERY PARALLELISM TMP_DIR [KEY=VALUE ...]
//
// QUERY: q0, q1, q2, q3, q4, q5, q6, q7, q8, q9, q11, q12, q13, q14, q15, q16, q17, q18, q19, q20,
// q21 or q22 (the Flink suite's SQL, github.com/nexmark/nexmark, written as DataStream functions;
// q11 as the suite runs it: event time from dateTime with 4 s of bounded out-of-orderness, keyed
// by bidder, event-time session windows of 10 s gap counting bids; q5, q7 and q8, windowed the
// same way, and q12, tumbling processing-time windows, in NexmarkWindows.java; q3 and q20,
// regular joins keeping both sides in keyed state, in NexmarkJoins.java; q15 to q19, unwindowed
// GROUP BYs and rankings emitting their updates, q9, a regular join ranked per auction emitting
// its updates, q4, a regular join's MAX per auction averaged per category emitting its
// updates, and q6, restated: the average of each seller's 11 latest auctions' MAX, emitting its
// updates, in NexmarkUpdating.java: their rows depend on each key's event order, so their source
// runs with parallelism 1, sending the events in file order, and the keyed operators and sink
// with parallelism P).
// KEY=VALUE: further Flink configuration, but for nexmark.rate=R (send R events a second, for
// latency at a rate both sustain) and nexmark.buffer_timeout_ms=T (the network buffers'
// flush timeout, Flink's latency setting). Prints one JSON line to stdout, as
// spate-bench does; exits 1 when the digest differs from a one-thread loop over the events.
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

public final class FlinkNexmark {
  // Local execution runs every task in this JVM with the application class loader, so plain
  // statics are shared between the tasks and main().
  static final ConcurrentLinkedQueue<long[]> LATENCIES = new ConcurrentLinkedQueue<>();
  static long[] MARKS;  // MARKS[k]: when event k * MARK_EVERY was emitted
  static long[] MARK_CPU;  // and the process's CPU time (ns) then
  static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean)
          java.lang.management.ManagementFactory.getOperatingSystemMXBean();
  static final AtomicLong ROWS = new AtomicLong(), DIGEST = new AtomicLong();
  static final AtomicLong UPDATES = new AtomicLong();  // the rows the sinks received (q4, q6, q12)
  // Every 16th row's latency; the time of every MARK_EVERY-th event the source emits, for the
  // steady rate (spate-bench nexmark does the same).
  static final int SAMPLE_EVERY = 16, MARK_EVERY = 65_536;
  static Event[] EVENTS;

  // One event of the file: kind 'P', 'A' or 'B' and the fields the queries read (the
  // others are kept as text, as spate keeps them as strings).
  public static final class Event {
    public char kind;
    public long id, auction, bidder, price, dateTime, expires, seller, category;
    public long initialBid, reserve;
    public String name, email, creditCard, city, state, itemName, description, channel, url;
    public String extra;
    public long stampNs;
    public Event() {}

    // As spate's parse_line: a kind letter and a comma first, prices in [0, 10^15] cents.
    static Event parse(String line) {
      if (line.endsWith("\r")) line = line.substring(0, line.length() - 1);
      String[] f = line.split(",", -1);
      Event e = new Event();
      if (f[0].length() != 1) throw new IllegalArgumentException("not an event: " + line);
      e.kind = f[0].charAt(0);
      switch (e.kind) {
        case 'P':
          check(f, 9, line);
          e.id = number(f[1]); e.name = f[2]; e.email = f[3]; e.creditCard = f[4];
          e.city = f[5]; e.state = f[6]; e.dateTime = number(f[7]); e.extra = f[8];
          break;
        case 'A':
          check(f, 11, line);
          e.id = number(f[1]); e.itemName = f[2]; e.description = f[3];
          e.initialBid = number(f[4]); e.reserve = number(f[5]);
          e.dateTime = number(f[6]); e.expires = number(f[7]);
          e.seller = number(f[8]); e.category = number(f[9]); e.extra = f[10];
          price(e.initialBid, line);
          price(e.reserve, line);
          break;
        case 'B':
          check(f, 8, line);
          e.auction = number(f[1]); e.bidder = number(f[2]);
          e.price = number(f[3]); e.channel = f[4]; e.url = f[5];
          e.dateTime = number(f[6]); e.extra = f[7];
          price(e.price, line);
          break;
        default:
          throw new IllegalArgumentException("not an event: " + line);
      }
      return e;
    }
    // As spate's from_chars: an optional '-' and ASCII digits only (parseLong would also take
    // '+' and other scripts' digits).
    static final Pattern NUMBER = Pattern.compile("-?[0-9]+");
    static long number(String text) {
      if (!NUMBER.matcher(text).matches()) throw new IllegalArgumentException("not a number: " + text);
      return Long.parseLong(text);
    }
    static void price(long cents, String line) {
      if (cents < 0 || cents > 1_000_000_000_000_000L)
        throw new IllegalArgumentException("a price outside [0, 10^15]: " + line);
    }
    static void check(String[] f, int n, String line) {
      if (f.length != n) throw new IllegalArgumentException(n + " fields expected: " + line);
    }
  }

  // A row of any of the queries (unused fields stay 0 / null); digest() is spate's.
  public static final class Row {
    public long auction, bidder, price, dateTime, cCounts, stampNs;
    // extra; q13: value; q14: the time of day; q21, q22: channel; q21: channel id; q22: dirs
    public String extra, text, channel, id, dir1, dir2, dir3;
    public String url;  // q18, q20: the bid's
    public long[] counts;  // q15, q16, q17: the row's numbers (NexmarkUpdating.java)
    public Event joined;  // q3: the person; q20: the auction (NexmarkJoins.java)
    public Row() {}
    Row(long auction, long bidder, long price, long dateTime, String extra, long stampNs) {
      this.auction = auction; this.bidder = bidder; this.price = price;
      this.dateTime = dateTime; this.extra = extra; this.stampNs = stampNs;
    }
    static long fold(long h, long v) { return h * 1_000_003L + v; }
    // FNV-1a of an ASCII text's chars (spate hashes the same bytes); NULL is 0.
    static long text(String s) {
      if (s == null) return 0;
      long h = 0xcbf29ce484222325L;
      for (int i = 0; i < s.length(); ++i) h = (h ^ s.charAt(i)) * 0x100000001b3L;
      return h;
    }
  }

  static long digest(String query, Row r) {
    switch (query) {
      case "q11":  // bidder, bid_count (in price), start (in dateTime), end (in auction)
        return Row.fold(Row.fold(Row.fold(Row.fold(0, r.bidder), r.price), r.dateTime), r.auction);
      case "q2": return Row.fold(Row.fold(0, r.auction), r.price);
      case "q5": case "q7": case "q8": return NexmarkWindows.digest(query, r);
      case "q3": case "q20": return NexmarkJoins.digest(query, r);
      case "q4": case "q6": case "q9": case "q15": case "q16": case "q17": case "q18": case "q19":
        return NexmarkUpdating.digest(query, r);
      case "q13":
        return Row.fold(Row.fold(Row.fold(Row.fold(Row.fold(0, r.auction), r.bidder), r.price),
            r.dateTime), Row.text(r.text));
      case "q14":
        return Row.fold(Row.fold(Row.fold(Row.fold(Row.fold(Row.fold(Row.fold(0, r.auction),
            r.bidder), r.price), Row.text(r.text)), r.dateTime), Row.text(r.extra)), r.cCounts);
      case "q21":
        return Row.fold(Row.fold(Row.fold(Row.fold(Row.fold(0, r.auction), r.bidder), r.price),
            Row.text(r.channel)), Row.text(r.id));
      case "q22":
        return Row.fold(Row.fold(Row.fold(Row.fold(Row.fold(Row.fold(Row.fold(0, r.auction),
            r.bidder), r.price), Row.text(r.channel)), Row.text(r.dir1)), Row.text(r.dir2)),
            Row.text(r.dir3));
      default:
        return Row.fold(Row.fold(Row.fold(Row.fold(Row.fold(0, r.auction), r.bidder), r.price),
            r.dateTime), Row.text(r.extra));
    }
  }

  // q13's side input (the suite's side_input.txt): key i, value "i".
  static final String[] SIDE_INPUT = new String[10_000];
  static {
    for (int i = 0; i < SIDE_INPUT.length; ++i) SIDE_INPUT[i] = Integer.toString(i);
  }
  // q21's REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2): Flink SQL's is java.util.regex.
  static final Pattern CHANNEL_ID = Pattern.compile("(&|^)channel_id=([^&]*)");
  // SPLIT_INDEX(text, '/', index): the index-th part, or NULL.
  static String splitIndex(String text, int index) {
    int start = 0;
    for (int part = 0; ; ++part) {
      int end = text.indexOf('/', start);
      if (part == index) return end < 0 ? text.substring(start) : text.substring(start, end);
      if (end < 0) return null;
      start = end + 1;
    }
  }

  // The query: its row for an event, or null.
  static Row rowOf(String query, Event e) {
    if (e.kind != 'B') return null;
    switch (query) {
      case "q0": return new Row(e.auction, e.bidder, e.price, e.dateTime, e.extra, e.stampNs);
      // 0.908 * price, DECIMAL(23, 3): in thousandths, exactly
      case "q1": return new Row(e.auction, e.bidder, e.price * 908, e.dateTime, e.extra, e.stampNs);
      case "q2": {
        if (e.auction % 123 != 0) return null;
        Row r = new Row(e.auction, 0, e.price, 0, null, e.stampNs);
        return r;
      }
      case "q13": {
        if (e.auction < 0) return null;  // MOD(auction, 10000) < 0 matches no key
        Row r = new Row(e.auction, e.bidder, e.price, e.dateTime, null, e.stampNs);
        r.text = SIDE_INPUT[(int) (e.auction % 10_000)];
        return r;
      }
      case "q14": {
        long euros = e.price * 908;  // 0.908 * price in thousandths
        if (euros <= 1_000_000_000L || euros >= 50_000_000_000L) return null;
        long hour = (e.dateTime / 3_600_000L) % 24;  // HOUR() of a UTC time
        Row r = new Row(e.auction, e.bidder, euros, e.dateTime, e.extra, e.stampNs);
        r.text = hour >= 8 && hour <= 18 ? "dayTime"
            : hour <= 6 || hour >= 20 ? "nightTime" : "otherTime";
        long cs = 0;
        for (int i = 0; i < e.extra.length(); ++i) if (e.extra.charAt(i) == 'c') ++cs;
        r.cCounts = cs;
        return r;
      }
      case "q21": {
        String lower = e.channel.toLowerCase(Locale.ROOT), id;
        switch (lower) {
          case "apple": id = "0"; break;
          case "google": id = "1"; break;
          case "facebook": id = "2"; break;
          case "baidu": id = "3"; break;
          default: {
            Matcher m = CHANNEL_ID.matcher(e.url);
            id = m.find() ? m.group(2) : null;
          }
        }
        if (id == null) return null;
        Row r = new Row(e.auction, e.bidder, e.price, 0, null, e.stampNs);
        r.channel = e.channel;
        r.id = id;
        return r;
      }
      case "q22": {
        Row r = new Row(e.auction, e.bidder, e.price, 0, null, e.stampNs);
        r.channel = e.channel;
        r.dir1 = splitIndex(e.url, 3);
        r.dir2 = splitIndex(e.url, 4);
        r.dir3 = splitIndex(e.url, 5);
        return r;
      }
      default:
        throw new IllegalArgumentException(
            "query: q0, q1, q2, q3, q4, q5, q6, q7, q8, q9, q11, q12, q13, q14, q15, q16, q17,"
            + " q18, q19, q20, q21 or q22, not " + query);
    }
  }

  // Event i of the replay, stamped as the source reader emits it.
  static final class Replay implements GeneratorFunction<Long, Event> {
    @Override public Event map(Long i) {
      Event e = EVENTS[(int) (long) i];
      e.stampNs = System.nanoTime();
      if (i % MARK_EVERY == 0) {
        MARKS[(int) (i / MARK_EVERY)] = e.stampNs;
        MARK_CPU[(int) (i / MARK_EVERY)] = OS.getProcessCpuTime();
      }
      return e;
    }
  }

  static final class Query implements FlatMapFunction<Event, Row> {
    final String query;
    Query(String query) { this.query = query; }
    @Override public void flatMap(Event e, Collector<Row> out) {
      Row r = rowOf(query, e);
      if (r != null) out.collect(r);
    }
  }

  // Counts and digests the rows it receives; for a query checked on its final table
  // (NexmarkUpdating.checksTable: q4, q6), keeps each key's last row's digest instead and counts
  // and digests that table when it closes; for a query checked on its totals
  // (NexmarkWindows.checksTotals: q12), adds up each key's counts instead and counts and digests
  // the keys' totals when it closes (in both, the sink is chained to the keyed stage, so each
  // key's rows all come to one sink).
  static final class DigestSink implements Sink<Row> {
    final String query;
    DigestSink(String query) { this.query = query; }
    @Override public SinkWriter<Row> createWriter(WriterInitContext c) {
      final boolean table = NexmarkUpdating.checksTable(query);
      final boolean totalled = NexmarkWindows.checksTotals(query);
      return new SinkWriter<>() {
        long received = 0, rows = 0, digest = 0;
        final HashMap<Long, Long> last = new HashMap<>();  // by key: its last row's digest
        final HashMap<Long, Long> totals = new HashMap<>();  // by key: the sum of its counts
        long[] latencies = new long[1 << 16];
        int samples = 0;
        @Override public void write(Row r, Context context) {
          if (table) {
            last.put(NexmarkUpdating.tableKey(query, r), digest(query, r));
          } else if (totalled) {
            totals.merge(NexmarkWindows.totalKey(query, r), NexmarkWindows.totalCount(query, r),
                Long::sum);
          } else {
            ++rows;
            digest += digest(query, r);
          }
          if (++received % SAMPLE_EVERY != 0) return;
          if (samples == latencies.length) latencies = Arrays.copyOf(latencies, 2 * samples);
          latencies[samples++] = System.nanoTime() - r.stampNs;
        }
        @Override public void flush(boolean endOfInput) {}
        @Override public void close() {
          if (table) {
            rows = last.size();
            for (long d : last.values()) digest += d;
          }
          if (totalled) {
            rows = totals.size();
            for (var kv : totals.entrySet())
              digest += NexmarkWindows.totalDigest(kv.getKey(), kv.getValue());
          }
          ROWS.addAndGet(rows);
          DIGEST.addAndGet(digest);
          UPDATES.addAndGet(received);
          LATENCIES.add(Arrays.copyOf(latencies, samples));
        }
      };
    }
  }

  public static void main(String[] args) throws Exception {
    final Path file = Path.of(args[0]);
    final int n = Integer.parseInt(args[1]);
    final String query = args[2];
    final int parallelism = Integer.parseInt(args[3]);
    final String tmp = Path.of(args[4]).toAbsolutePath().toString();
    Event probe = new Event();
    probe.kind = 'B';
    probe.channel = probe.url = probe.extra = "";
    if (!query.equals("q11") && !NexmarkWindows.handles(query) && !NexmarkJoins.handles(query)
        && !NexmarkUpdating.handles(query))
      rowOf(query, probe);  // an unknown query fails here
    List<Event> loaded = new ArrayList<>(n);
    try (BufferedReader in = Files.newBufferedReader(file)) {
      for (String line; loaded.size() < n && (line = in.readLine()) != null; ) {
        if (!line.isEmpty()) loaded.add(Event.parse(line));
      }
    }
    if (loaded.size() < n)
      throw new IllegalArgumentException(file + " holds " + loaded.size() + " events, < " + n);
    EVENTS = loaded.toArray(new Event[0]);
    MARKS = new long[(n + MARK_EVERY - 1) / MARK_EVERY];
    MARK_CPU = new long[MARKS.length];
    loaded = null;

    // What the sinks must see: a one-thread loop's rows.
    long expectedRows = 0, expectedDigest = 0;
    if (query.equals("q11")) {
      for (Row r : q11Sequential(EVENTS)) { ++expectedRows; expectedDigest += digest(query, r); }
    } else if (NexmarkWindows.checksTotals(query)) {  // q12: each key's total
      HashMap<Long, Long> totals = new HashMap<>();  // by key: the sum of its counts
      for (Row r : NexmarkWindows.sequential(query, EVENTS))
        totals.merge(NexmarkWindows.totalKey(query, r), NexmarkWindows.totalCount(query, r),
            Long::sum);
      expectedRows = totals.size();
      for (var kv : totals.entrySet())
        expectedDigest += NexmarkWindows.totalDigest(kv.getKey(), kv.getValue());
    } else if (NexmarkWindows.handles(query)) {
      for (Row r : NexmarkWindows.sequential(query, EVENTS)) {
        ++expectedRows;
        expectedDigest += digest(query, r);
      }
    } else if (NexmarkJoins.handles(query)) {
      for (Row r : NexmarkJoins.sequential(query, EVENTS)) {
        ++expectedRows;
        expectedDigest += digest(query, r);
      }
    } else if (NexmarkUpdating.checksTable(query)) {  // q4, q6: the changelog's final table
      HashMap<Long, Long> table = new HashMap<>();  // by key: its last row's digest
      for (Row r : NexmarkUpdating.sequential(query, EVENTS))
        table.put(NexmarkUpdating.tableKey(query, r), digest(query, r));
      expectedRows = table.size();
      for (long d : table.values()) expectedDigest += d;
    } else if (NexmarkUpdating.handles(query)) {
      for (Row r : NexmarkUpdating.sequential(query, EVENTS)) {
        ++expectedRows;
        expectedDigest += digest(query, r);
      }
    } else {
      for (Event e : EVENTS) {
        Row r = rowOf(query, e);
        if (r != null) { ++expectedRows; expectedDigest += digest(query, r); }
      }
    }

    Configuration conf = new Configuration();
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
    conf.set(WebOptions.TMP_DIR, tmp + "/web");
    // The functions keep no reference to their inputs: Flink's usual tuning, no copy per hop.
    conf.set(PipelineOptions.OBJECT_REUSE, true);
    double rate = 0;  // events per second, all readers together; 0: as fast as taken
    Long bufferTimeoutMs = null;  // null: Flink's default
    for (int i = 5; i < args.length; ++i) {
      String[] kv = args[i].split("=", 2);
      if (kv.length != 2) throw new IllegalArgumentException("not KEY=VALUE: " + args[i]);
      if (kv[0].equals("nexmark.rate")) {
        rate = Double.parseDouble(kv[1]);
        if (!(rate >= 0)) throw new IllegalArgumentException("nexmark.rate must be >= 0: " + kv[1]);
      }
      else if (kv[0].equals("nexmark.buffer_timeout_ms")) bufferTimeoutMs = Long.parseLong(kv[1]);
      else conf.setString(kv[0], kv[1]);
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    if (bufferTimeoutMs != null) env.setBufferTimeout(bufferTimeoutMs);
    // At a rate, Flink's rate limiter spreads it over the readers (RateLimiterStrategy.perSecond).
    var source = env.fromSource(rate > 0
            ? new DataGeneratorSource<>(new Replay(), n, RateLimiterStrategy.perSecond(rate),
                TypeInformation.of(Event.class))
            : new DataGeneratorSource<>(new Replay(), n, TypeInformation.of(Event.class)),
        WatermarkStrategy.noWatermarks(), "events");
    // q4, q6, q9, q15-q19: one reader sends every event, in file order (each key's rows depend on
    // its events' order); the keyed operators after it run with parallelism P.
    if (NexmarkUpdating.handles(query)) source.setParallelism(1);
    if (query.equals("q11")) {
      source.flatMap((Event e, Collector<Row> out) -> {
            if (e.kind == 'B') out.collect(new Row(0, e.bidder, 0, e.dateTime, null, e.stampNs));
          }, TypeInformation.of(Row.class)).name("bids")
          .assignTimestampsAndWatermarks(
              WatermarkStrategy.<Row>forBoundedOutOfOrderness(Duration.ofSeconds(4))
                  .withTimestampAssigner((r, previous) -> r.dateTime))
          .keyBy(r -> r.bidder, TypeInformation.of(Long.class))
          .window(EventTimeSessionWindows.withGap(Duration.ofSeconds(10)))
          .aggregate(new SessionCount(), new SessionRow(), TypeInformation.of(long[].class),
              TypeInformation.of(long[].class), TypeInformation.of(Row.class)).name("q11")
          .sinkTo(new DigestSink(query)).name("sink");
    } else if (NexmarkWindows.handles(query)) {
      NexmarkWindows.build(query, source).sinkTo(new DigestSink(query)).name("sink");
    } else if (NexmarkJoins.handles(query)) {
      NexmarkJoins.build(query, source).sinkTo(new DigestSink(query)).name("sink");
    } else if (NexmarkUpdating.handles(query)) {
      NexmarkUpdating.build(query, source).sinkTo(new DigestSink(query)).name("sink");
    } else {
      source.flatMap(new Query(query), TypeInformation.of(Row.class)).name(query)
          .sinkTo(new DigestSink(query)).name("sink");
    }

    final long cpuBefore = OS.getProcessCpuTime(), start = System.nanoTime();
    JobExecutionResult result = env.execute("nexmark " + query);
    final double wall = (System.nanoTime() - start) / 1e9;
    final double cpu = (OS.getProcessCpuTime() - cpuBefore) / 1e9;
    final double job = result.getNetRuntime() / 1e3;  // without starting the MiniCluster

    long[] lat = LATENCIES.stream().flatMapToLong(Arrays::stream).sorted().toArray();
    StringBuilder m = new StringBuilder();
    m.append(String.format(Locale.ROOT,
        "\"events_per_s\":%.1f,\"wall_s\":%.6f,\"job_s\":%.3f,\"with_startup_events_per_s\":%.1f,"
        + "\"cpu_pct\":%.1f,\"events_per_core_s\":%.1f",
        n / job, wall, job, n / wall, 100 * cpu / wall, n / cpu));
    if (lat.length > 0) {
      m.append(String.format(Locale.ROOT,
          ",\"lat_samples\":%d,\"lat_p50_us\":%.3f,\"lat_p99_us\":%.3f,\"lat_max_us\":%.3f",
          lat.length, pct(lat, 0.50), pct(lat, 0.99), lat[lat.length - 1] / 1e3));
    }
    // Steady state: the source's rate between the marks at 25% and 75% of all marks (in time
    // order: the P readers emit their parts of the events at once; q4's, q6's, q9's and
    // q15-q19's one reader, in order), leaving out the job's start and end; and the events per
    // CPU second (all threads) between them.
    Integer[] order = new Integer[MARKS.length];
    for (int k = 0; k < order.length; ++k) order[k] = k;
    Arrays.sort(order, (a, b) -> Long.compare(MARKS[a], MARKS[b]));
    int first = order.length / 4, last = order.length * 3 / 4;
    if (last > first && MARKS[order[last]] > MARKS[order[first]]) {
      double events = (double) (last - first) * MARK_EVERY;
      m.append(String.format(Locale.ROOT, ",\"steady_events_per_s\":%.1f",
          events / ((MARKS[order[last]] - MARKS[order[first]]) / 1e9)));
      long cpuNs = MARK_CPU[order[last]] - MARK_CPU[order[first]];
      if (cpuNs > 0) {
        m.append(String.format(Locale.ROOT, ",\"steady_events_per_core_s\":%.1f",
            events / (cpuNs / 1e9)));
      }
    }
    long rss = Files.readAllLines(Path.of("/proc/self/status")).stream()
        .filter(l -> l.startsWith("VmHWM:")).mapToLong(l -> Long.parseLong(l.replaceAll("\\D", "")))
        .findFirst().orElse(0);
    m.append(String.format(Locale.ROOT, ",\"peak_rss_mb\":%.1f", rss / 1024.0));
    m.append(",\"rows\":").append(ROWS.get());
    m.append(String.format(Locale.ROOT, ",\"digest\":\"%016x\"", DIGEST.get()));
    // A table-checked query's rows and digest are its final table's, a totals-checked query's
    // its keys' totals'; "updates": the rows the sinks received (they depend on how the workers
    // interleave, or on the machine's timing: q12's windows).
    if (NexmarkUpdating.checksTable(query) || NexmarkWindows.checksTotals(query))
      m.append(",\"updates\":").append(UPDATES.get());
    System.out.println("{\"impl\":\"flink\",\"metrics\":{" + m + "}}");
    if (ROWS.get() != expectedRows || DIGEST.get() != expectedDigest) {
      System.err.println("FlinkNexmark: " + ROWS.get() + " rows, the sequential loop gives "
          + expectedRows + (ROWS.get() == expectedRows ? " (digests differ)" : ""));
      System.exit(1);
    }
  }

  // q11: a session's bid count and newest stamp.
  static final class SessionCount implements AggregateFunction<Row, long[], long[]> {
    @Override public long[] createAccumulator() { return new long[2]; }
    @Override public long[] add(Row r, long[] a) { ++a[0]; a[1] = Math.max(a[1], r.stampNs); return a; }
    @Override public long[] getResult(long[] a) { return a; }
    @Override public long[] merge(long[] a, long[] b) { a[0] += b[0]; a[1] = Math.max(a[1], b[1]); return a; }
  }
  // q11's row: bidder, count, SESSION_START (the window's start), SESSION_END (its end: the
  // last bid's time + the gap).
  static final class SessionRow extends ProcessWindowFunction<long[], Row, Long, TimeWindow> {
    @Override public void process(Long bidder, Context c, Iterable<long[]> counts, Collector<Row> out) {
      long[] a = counts.iterator().next();
      out.collect(new Row(c.window().getEnd(), bidder, a[0], c.window().getStart(), null, a[1]));
    }
  }
  // q11 by one loop, for bids in time order per bidder and less than 4 s behind the newest
  // (the generator's files): sessions are cut where two bids of a bidder are more than 10 s
  // apart.
  static List<Row> q11Sequential(Event[] events) {
    java.util.HashMap<Long, long[]> open = new java.util.HashMap<>();  // start, last, count
    List<Row> rows = new ArrayList<>();
    long newest = 0;
    for (Event e : events) {
      if (e.kind != 'B') continue;
      // As spate's q11_sequential: bids strictly within the 4 s lateness of the newest.
      if (e.dateTime <= newest - 4_000)
        throw new IllegalArgumentException("q11: a bid 4 s or more behind the newest");
      newest = Math.max(newest, e.dateTime);
      long[] s = open.get(e.bidder);
      if (s != null && e.dateTime < s[1])
        throw new IllegalArgumentException("q11: bidder " + e.bidder + "'s bids out of time order");
      if (s != null && e.dateTime - s[1] <= 10_000) { s[1] = e.dateTime; ++s[2]; continue; }
      if (s != null) rows.add(new Row(s[1] + 10_000, e.bidder, s[2], s[0], null, 0));
      open.put(e.bidder, new long[] {e.dateTime, e.dateTime, 1});
    }
    for (var kv : open.entrySet()) {
      long[] s = kv.getValue();
      rows.add(new Row(s[1] + 10_000, kv.getKey(), s[2], s[0], null, 0));
    }
    return rows;
  }

  static double pct(long[] sorted, double p) {
    return sorted[Math.min(sorted.length - 1, (int) (p * sorted.length))] / 1e3;
  }
}
