// Apache Flink's side of the stateful Word Count comparison (tools/bench-flink), the same job as
// `spate-bench apps --app=wc --keyed_state=true`: the first N lines of the book replayed
// cyclically from memory at full speed, each stamped when the source emits it; split into words
// by spate's rule; keyed by word; a running count per word in keyed ValueState; every
// (word, count, stamp) to a sink that records the latency, source stamp to sink.
//
//   java -cp 'JARS/*:CLASSES' FlinkWordCount BOOK N PARALLELISM CHECKPOINT_MS BACKEND CKPT_DIR
//       [KEY=VALUE ...]
//
// BACKEND: rocksdb or hashmap (state.backend.type); CHECKPOINT_MS: 0 for none, else exactly-once
// checkpoints at that interval into CKPT_DIR/checkpoints (file system storage; RocksDB's working
// files and the REST server's go under CKPT_DIR too). KEY=VALUE: further Flink configuration,
// set last (e.g. execution.buffer-timeout=10ms), except lines.per.second=R: the source sends R
// lines a second in all (Flink's RateLimiterStrategy, shared among the source's subtasks)
// instead of as fast as it can, as spate-bench's --rate does. Runs in-process (a local MiniCluster) and prints
// one JSON line to stdout, as spate-bench does; Flink's logs go to stderr (slf4j-simple).
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

public final class FlinkWordCount {
  // What the sinks and counters report back. Local execution runs every task in this JVM, and
  // user classes resolve to the application class loader's (no user jars), so plain statics
  // are shared between the tasks and main().
  static final ConcurrentLinkedQueue<long[]> LATENCIES = new ConcurrentLinkedQueue<>();
  static final ConcurrentLinkedQueue<long[]> MARKS = new ConcurrentLinkedQueue<>();
  static final AtomicLong OUTPUTS = new AtomicLong();
  static final Set<Long> CHECKPOINTS = ConcurrentHashMap.newKeySet();
  // The sinks time every 16th output (latency sample) and every 4096th (a progress mark for
  // the steady-state rate): spate times every output, but 1 in 16 gives p99 just as well
  // without holding ~8 bytes per word for large N.
  static final int SAMPLE_EVERY = 16, MARK_EVERY = 4096;

  // spate's rule (examples/apps/word_count/words.hpp): runs of letters of any script, with the
  // combining marks that follow a letter, lower-cased code point by code point (Java's simple
  // case mapping, as utf8proc_tolower; String.toLowerCase would map some letters to two).
  static void forEachWord(String line, Consumer<String> f) {
    StringBuilder word = new StringBuilder();
    for (int i = 0; i < line.length(); ) {
      int c = line.codePointAt(i);
      i += Character.charCount(c);
      int type = Character.getType(c);
      boolean mark = type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK
          || type == Character.COMBINING_SPACING_MARK;
      if (Character.isLetter(c)) {
        word.appendCodePoint(Character.toLowerCase(c));
      } else if (mark && word.length() > 0) {
        word.appendCodePoint(c);
      } else if (word.length() > 0) {
        f.accept(word.toString());
        word.setLength(0);
      }
    }
    if (word.length() > 0) f.accept(word.toString());
  }

  // The book's records as spate reads them: non-empty lines, minus those that are not valid
  // UTF-8 (spate counts them as malformed; a lenient decoder would turn them into U+FFFD).
  static String[] bookLines(Path path) throws Exception {
    byte[] bytes = Files.readAllBytes(path);
    List<String> lines = new ArrayList<>();
    var strict = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    for (int start = 0; start < bytes.length; ) {
      int end = start;
      while (end < bytes.length && bytes[end] != '\n') ++end;
      if (end > start) {
        try {
          lines.add(strict.decode(ByteBuffer.wrap(bytes, start, end - start)).toString());
        } catch (CharacterCodingException malformed) {
          // skipped, as spate skips it
        }
      }
      start = end + 1;
    }
    return lines.toArray(new String[0]);
  }

  // Line i of the replay is lines[i % lines.length], stamped as the source reader emits it.
  static final class Replay implements GeneratorFunction<Long, Tuple2<String, Long>> {
    final String[] lines;
    Replay(String[] lines) { this.lines = lines; }
    @Override public Tuple2<String, Long> map(Long i) {
      return Tuple2.of(lines[(int) (i % lines.length)], System.nanoTime());
    }
  }

  static final class Splitter
      implements FlatMapFunction<Tuple2<String, Long>, Tuple2<String, Long>> {
    @Override public void flatMap(Tuple2<String, Long> line,
        Collector<Tuple2<String, Long>> out) {
      forEachWord(line.f0, w -> out.collect(Tuple2.of(w, line.f1)));
    }
  }

  static final class ByWord implements KeySelector<Tuple2<String, Long>, String> {
    @Override public String getKey(Tuple2<String, Long> word) { return word.f0; }
  }

  // The CheckpointListener only counts completed checkpoints for the report; every counter
  // subtask hears of each one, hence the set.
  static final class Counter
      extends KeyedProcessFunction<String, Tuple2<String, Long>, Tuple3<String, Long, Long>>
      implements CheckpointListener {
    transient ValueState<Long> count;
    @Override public void open(OpenContext context) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }
    @Override public void processElement(Tuple2<String, Long> word, Context context,
        Collector<Tuple3<String, Long, Long>> out) throws Exception {
      Long before = count.value();
      long now = before == null ? 1 : before + 1;
      count.update(now);
      out.collect(Tuple3.of(word.f0, now, word.f1));
    }
    @Override public void notifyCheckpointComplete(long id) { CHECKPOINTS.add(id); }
  }

  static final class LatencySink implements Sink<Tuple3<String, Long, Long>> {
    @Override public SinkWriter<Tuple3<String, Long, Long>> createWriter(WriterInitContext c) {
      return new SinkWriter<>() {
        long outputs = 0;
        long[] latencies = new long[1 << 16], marks = new long[1 << 10];
        int samples = 0, marked = 0;
        @Override public void write(Tuple3<String, Long, Long> out, Context context) {
          if (++outputs % SAMPLE_EVERY != 0) return;
          long now = System.nanoTime();
          if (samples == latencies.length) latencies = Arrays.copyOf(latencies, 2 * samples);
          latencies[samples++] = now - out.f2;
          if (outputs % MARK_EVERY != 0) return;
          if (marked == marks.length) marks = Arrays.copyOf(marks, 2 * marked);
          marks[marked++] = now;
        }
        @Override public void flush(boolean endOfInput) {}
        @Override public void close() {
          OUTPUTS.addAndGet(outputs);
          LATENCIES.add(Arrays.copyOf(latencies, samples));
          MARKS.add(Arrays.copyOf(marks, marked));
        }
      };
    }
  }

  public static void main(String[] args) throws Exception {
    final String[] lines = bookLines(Path.of(args[0]));
    if (lines.length == 0) throw new IllegalArgumentException(args[0] + ": no valid lines");
    final long n = Long.parseLong(args[1]), checkpointMs = Long.parseLong(args[3]);
    final int parallelism = Integer.parseInt(args[2]);
    final String backend = args[4], checkpointDir = Path.of(args[5]).toAbsolutePath().toString();
    if (!backend.equals("rocksdb") && !backend.equals("hashmap"))
      throw new IllegalArgumentException("state backend: rocksdb or hashmap, not " + backend);

    Configuration conf = new Configuration();
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    // Streaming, though the source is bounded: batch mode would sort by key and not checkpoint.
    conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
    conf.set(StateBackendOptions.STATE_BACKEND, backend);
    conf.set(RocksDBOptions.LOCAL_DIRECTORIES, checkpointDir + "/rocksdb");
    conf.set(WebOptions.TMP_DIR, checkpointDir + "/web");  // else it leaves a directory in /tmp
    // The functions keep no reference to their inputs: Flink's usual tuning, no copy per hop.
    conf.set(PipelineOptions.OBJECT_REUSE, true);
    if (checkpointMs > 0) {
      conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(checkpointMs));
      conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
          CheckpointingMode.EXACTLY_ONCE);
      conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY,
          "file://" + checkpointDir + "/checkpoints");
      // Otherwise the finished tasks wait for one more checkpoint before the job ends (for
      // two-phase-commit sinks; this one has nothing to commit), adding up to an interval
      // to the run that spate, which takes no final checkpoint, does not pay.
      conf.set(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, false);
    }
    double linesPerSecond = 0;  // 0: as fast as it can
    for (int i = 6; i < args.length; ++i) {
      String[] kv = args[i].split("=", 2);
      if (kv.length != 2) throw new IllegalArgumentException("not KEY=VALUE: " + args[i]);
      if (kv[0].equals("lines.per.second")) {
        linesPerSecond = Double.parseDouble(kv[1]);
        continue;
      }
      conf.setString(kv[0], kv[1]);
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    var source = linesPerSecond > 0
        ? new DataGeneratorSource<>(new Replay(lines), n,
            RateLimiterStrategy.perSecond(linesPerSecond), Types.TUPLE(Types.STRING, Types.LONG))
        : new DataGeneratorSource<>(new Replay(lines), n, Types.TUPLE(Types.STRING, Types.LONG));
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "lines")
        .flatMap(new Splitter()).name("splitter")
        .keyBy(new ByWord())
        .process(new Counter()).name("counter")
        .sinkTo(new LatencySink()).name("sink");

    var os = (com.sun.management.OperatingSystemMXBean)
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    final long cpuBefore = os.getProcessCpuTime(), start = System.nanoTime();
    JobExecutionResult result = env.execute("word count");
    final double wall = (System.nanoTime() - start) / 1e9;
    final double cpu = (os.getProcessCpuTime() - cpuBefore) / 1e9;

    // What the sinks must have seen: every word of every replayed line.
    long expected = 0;
    for (int i = 0; i < lines.length; ++i) {
      long[] words = {0};
      forEachWord(lines[i], w -> ++words[0]);
      expected += words[0] * (n / lines.length + (i < n % lines.length ? 1 : 0));
    }
    final long outputs = OUTPUTS.get();

    long[] lat = LATENCIES.stream().flatMapToLong(Arrays::stream).sorted().toArray();
    StringBuilder m = new StringBuilder();
    // job_s: the job's own runtime as the JobMaster saw it, without starting the MiniCluster.
    final double job = result.getNetRuntime() / 1e3;
    m.append(String.format(Locale.ROOT, "\"items_per_s\":%.1f,\"wall_s\":%.6f,"
        + "\"job_items_per_s\":%.1f,\"job_s\":%.3f,\"cpu_pct\":%.1f",
        n / wall, wall, n / job, job, 100 * cpu / wall));
    if (lat.length > 0) {
      m.append(String.format(Locale.ROOT,
          ",\"lat_samples\":%d,\"lat_p50_us\":%.3f,\"lat_p99_us\":%.3f,\"lat_max_us\":%.3f",
          lat.length, pct(lat, 0.50), pct(lat, 0.99), lat[lat.length - 1] / 1e3));
    }
    // Steady state: lines/s while the sinks went from 25% to 75% of the outputs, which
    // leaves out the job's start-up and its end (each mark: MARK_EVERY outputs of one sink).
    long[] marks = MARKS.stream().flatMapToLong(Arrays::stream).sorted().toArray();
    int q1 = (int) (marks.length * 0.25), q3 = (int) (marks.length * 0.75);
    if (q3 > q1 && marks[q3] > marks[q1]) {
      double wordsPerS = (double) (q3 - q1) * MARK_EVERY / ((marks[q3] - marks[q1]) / 1e9);
      m.append(String.format(Locale.ROOT, ",\"steady_items_per_s\":%.1f", wordsPerS * n / outputs));
    }
    m.append(",\"outputs\":").append(outputs).append(",\"expected_outputs\":").append(expected);
    if (checkpointMs > 0) m.append(",\"checkpoints\":").append(CHECKPOINTS.size());
    System.out.println("{\"impl\":\"flink\",\"metrics\":{" + m + "}}");
    if (outputs != expected) {
      System.err.println("FlinkWordCount: " + outputs + " outputs, expected " + expected);
      System.exit(1);
    }
  }

  static double pct(long[] sorted, double p) {
    return sorted[Math.min(sorted.length - 1, (int) (p * sorted.length))] / 1e3;
  }
}
