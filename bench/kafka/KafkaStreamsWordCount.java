// Kafka Streams' word count (as in Kafka's own WordCountDemo), for the comparison run by
// bench/kafka/kafka_wordcount_bench.cpp: lines from `input`, split on white space, grouped by
// word (Kafka Streams repartitions through a topic for that), counted, counts to `output`.
// The count's state store keeps no changelog, as spate's counters keep none: both lose their
// counts if they crash, and neither pays for making them durable. (That holds in both
// processing guarantees: with exactly_once_v2 the store still keeps no changelog.)
//
//   java -cp 'JARS/*:CLASSES' KafkaStreamsWordCount BROKERS INPUT OUTPUT THREADS STATE_DIR
//       [GUARANTEE [COMMIT_MS]]
//
// GUARANTEE: processing.guarantee, at_least_once (default) or exactly_once_v2; COMMIT_MS:
// commit.interval.ms (default 1000). With exactly_once_v2 the output is written in
// transactions committed every COMMIT_MS, with the input offsets.
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

public final class KafkaStreamsWordCount {
  public static void main(String[] args) throws Exception {
    final String brokers = args[0], input = args[1], output = args[2];
    final int threads = Integer.parseInt(args[3]);
    final String guarantee = args.length > 5 ? args[5] : StreamsConfig.AT_LEAST_ONCE;
    final int commitMs = args.length > 6 ? Integer.parseInt(args[6]) : 1000;
    if (!guarantee.equals(StreamsConfig.AT_LEAST_ONCE)
        && !guarantee.equals(StreamsConfig.EXACTLY_ONCE_V2)) {
      throw new IllegalArgumentException(
          "processing guarantee: at_least_once or exactly_once_v2, not " + guarantee);
    }
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "wordcount-" + System.nanoTime());
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
    p.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitMs);
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);

    StreamsBuilder builder = new StreamsBuilder();
    builder.<String, String>stream(input)
        .flatMapValues(line -> Arrays.asList(line.trim().split("\\s+")))
        .filter((key, word) -> !word.isEmpty())
        .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
        .count(Materialized.<String, Long, org.apache.kafka.streams.state.KeyValueStore<
                   org.apache.kafka.common.utils.Bytes, byte[]>>as("counts")
                   .withLoggingDisabled())
        .toStream()
        .mapValues(count -> Long.toString(count))
        .to(output, Produced.with(Serdes.String(), Serdes.String()));

    KafkaStreams streams = new KafkaStreams(builder.build(), p);
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      streams.close();
      stop.countDown();
    }));
    streams.start();
    System.out.println("started");
    System.out.flush();
    stop.await();
  }
}
