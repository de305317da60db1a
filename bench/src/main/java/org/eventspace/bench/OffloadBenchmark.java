package org.eventspace.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.eventspace.comm.Comm;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.InJvmCluster;
import org.eventspace.comm.runtime.WrapperKinds;
import org.eventspace.scope.PushBuffer;
import org.eventspace.scope.ScopeBuilder;
import org.eventspace.scope.ScopeHost;
import org.eventspace.scope.ScopeKinds;
import org.eventspace.scope.ScopeSpec;
import org.eventspace.scope.GatherMode;
import org.eventspace.scope.filter.FilterSpec;
import org.eventspace.job.RankThreads;
import org.eventspace.job.ScopeFrontEnd;
import org.eventspace.job.ScopeSettings;
import org.eventspace.job.ScopeSnapshot;
import org.eventspace.scope.filter.ScopeRecord;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunReport;
import org.eventspace.base.stats.Median;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * ToM's offload benchmark (ToM paper §5.2, Figure 8): every rank alternates {@code work(usecs)}, an offload of a
 * profile of E events into the event scope, and a barrier, while the front-end pulls rounds through the scope as
 * fast as it can. {@code avg.time} — here {@code avg_offload_us} — is the mean over the rounds of the worst
 * (largest) offload-plus-barrier time any rank suffered in that round, so the knee where the offload rate passes
 * the scope's service rate shows as a jump (the producers block on a full push buffer).
 *
 * <p>How it maps to ours: a rank's offload is {@link PushBuffer#offer(List)} into its host's push buffer
 * ({@link PushBuffer.Policy#BLOCK}: back-pressure, as ToM's blocking send); the scope is a tree of {@code fanout}
 * over the hosts ({@code hier:F}: intra-host first), gathered sequentially or by helper threads, with the
 * concatenating filter ({@code reduce none}) or ToM's 3-phase histogram ({@code reduce hist}); the barrier is the
 * application's own (a tree of the job's pathmap). {@code work} sleeps rather than spins: 64 ranks share 2 cores
 * here, and a spinning work loop would take the cores the scope needs — ToM's ranks each had a CPU.
 *
 * <p>Not thread-safe; one configuration at a time. Every thread it starts is ended before {@link #run} returns.
 */
public final class OffloadBenchmark {
    /** Rounds before the timed ones: JIT, connections, the scope's first pulls. */
    public static final int WARMUP_ROUNDS = 20;

    /**
     * One configuration.
     *
     * @param ranks      application ranks (threads), block-mapped over {@code hosts} simulated hosts.
     * @param hosts      simulated hosts; one scope leaf and one push buffer each.
     * @param fanout     the scope's fan-out ({@code hier:F}).
     * @param periodUs   work between two offloads, µs (ToM's profile period).
     * @param events     events per profile (ToM: 20).
     * @param reduce     {@code none} (concatenate) or {@code hist} (3-phase histogram).
     * @param bins       histogram bins with {@code reduce hist}.
     * @param gather     {@code seq} or {@code par:N}.
     * @param iterations timed rounds.
     * @param bufferProfiles profiles a host's push buffer holds per rank before producers block.
     * @param timeout    how long anything may wait before the run fails.
     * @param spinWork   {@code work(usecs)} spins on the clock, as ToM's did, instead of sleeping: for machines with a
     *                   core per rank.
     */
    public record Config(int ranks, int hosts, int fanout, int periodUs, int events, String reduce, int bins,
                         String gather, int iterations, int bufferProfiles, Duration timeout, boolean spinWork) {
        public Config {
            if (ranks < 2 || hosts < 1 || hosts > ranks) {
                throw new IllegalArgumentException("need ranks >= 2 and 1 <= hosts <= ranks, ranks=" + ranks + ", hosts=" + hosts);
            }
            if (fanout < 2) {
                throw new IllegalArgumentException("fan-out must be >= 2, fanout=" + fanout);
            }
            if (periodUs < 0 || events < 1 || iterations < 1 || bufferProfiles < 1 || bins < 1) {
                throw new IllegalArgumentException("need period >= 0 µs and events, iterations, buffer profiles, bins >= 1; "
                        + "periodUs=" + periodUs + ", events=" + events + ", iterations=" + iterations
                        + ", bufferProfiles=" + bufferProfiles + ", bins=" + bins);
            }
            if (!reduce.equals("none") && !reduce.equals("hist")) {
                throw new IllegalArgumentException("reduce must be none or hist, reduce=" + reduce);
            }
        }

        /** Sleeping work. */
        public Config(int ranks, int hosts, int fanout, int periodUs, int events, String reduce, int bins, String gather,
                      int iterations, int bufferProfiles, Duration timeout) {
            this(ranks, hosts, fanout, periodUs, events, reduce, bins, gather, iterations, bufferProfiles, timeout, false);
        }

        String filter() {
            return reduce.equals("hist") ? "hist:" + bins : "concat";
        }
    }

    /**
     * Every configuration's runs ({@code runs}, by configuration in sweep order) and per configuration the run whose
     * avg_offload_us is the lower median ({@code medians}), so that every figure reported comes from one real run.
     */
    public record Sweeps(List<List<Result>> runs, List<Result> medians) {
    }

    /**
     * {@code repeats} whole sweeps over {@code configs}, one after the other, so a slow spell of the machine hits every
     * configuration alike; each run's line goes to {@code progress}.
     */
    public static Sweeps sweep(List<Config> configs, int repeats, Consumer<String> progress) {
        List<List<Result>> runs = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            runs.add(new ArrayList<>());
        }
        for (int rep = 0; rep < repeats; rep++) {
            for (int i = 0; i < configs.size(); i++) {
                Result r = run(configs.get(i));
                progress.accept("sweep " + (rep + 1) + "/" + repeats + "  " + line(r));
                runs.get(i).add(r);
            }
        }
        List<Result> medians = new ArrayList<>();
        for (List<Result> of : runs) {
            medians.add(Median.lowerOf(of, Result::avgOffloadUs));
        }
        return new Sweeps(runs, medians);
    }

    /**
     * What one configuration measured.
     *
     * @param avgOffloadUs mean over the timed rounds of the worst offload + barrier time of any rank, µs.
     * @param barrierUs    the same rounds' worst barrier-only time, measured before the scope starts, µs: the
     *                     floor {@code avgOffloadUs} cannot go below.
     * @param pulls        rounds the front-end pulled while the ranks ran.
     * @param pullUs       mean time of one pull, µs (the scope's service time).
     */
    public record Result(Config config, double avgOffloadUs, double barrierUs, long pulls, double pullUs,
                         long recordsProduced, long recordsGathered, long recordsDropped, long bytesMoved) {
        public double gatherRate() {
            return recordsProduced == 0 ? 1.0 : (double) recordsGathered / recordsProduced;
        }
    }

    private OffloadBenchmark() {
    }

    public static Result run(Config config) {
        PathmapSpec spec = RunConfig.shortcut(config.ranks(), config.hosts(), 1, TreeShape.hier(8));
        ScopeSpec scopeSpec = ScopeSpec.builder().shape(TreeShape.hier(config.fanout())).gather(config.gather())
                .filter(config.filter()).frontEnd(0).timeout(config.timeout()).build();
        Pathmap pathmap = ScopeBuilder.add(PathmapBuilder.build(spec), scopeSpec);
        int ranksPerHost = (config.ranks() + config.hosts() - 1) / config.hosts();
        PushBuffer[] buffers = new PushBuffer[config.hosts()];
        for (int h = 0; h < buffers.length; h++) {
            buffers[h] = new PushBuffer("h" + h, config.bufferProfiles() * config.events() * ranksPerHost,
                    PushBuffer.Policy.BLOCK, config.timeout());
        }
        CommOptions options = CommOptions.defaults(pathmap.busyThreads()).withTimeout(config.timeout())
                .withKinds(ScopeKinds.with(WrapperKinds.builtIn(), host -> ScopeHost.pushing(buffers[host.host()])));
        String[] names = new String[config.events()];
        for (int e = 0; e < names.length; e++) {
            names[e] = String.format(Locale.ROOT, "event_%02d", e);
        }
        int rounds = WARMUP_ROUNDS + config.iterations();
        long[][] offload = new long[config.ranks()][rounds];
        long[][] barrier = new long[config.ranks()][rounds];
        ScopeSettings settings = new ScopeSettings(TreeShape.hier(config.fanout()), GatherMode.parse(config.gather()),
                FilterSpec.parse(config.filter()), 0);
        try (InJvmCluster cluster = InJvmCluster.start(pathmap, options)) {
            // The job layer's front-end agent pulls the scope, paused until rank 0 ends the barrier-only floor rounds.
            ScopeFrontEnd frontEnd = ScopeFrontEnd.start(settings, cluster.host(0), ScopeFrontEnd.Headroom.UNBOUNDED, true);
            List<String> errors = runRanks(cluster, config, names, offload, barrier, frontEnd, buffers);
            // Stop drains what the ranks pushed last, so the accounting covers every record (the pipelined histogram
            // needs one more round to finish its last).
            ScopeSnapshot pulled = frontEnd.stop(config.timeout().toMillis() * 2);
            if (pulled.error() != null) {
                throw new IllegalStateException("offload front-end: " + pulled.error());
            }
            if (!errors.isEmpty()) {
                throw new IllegalStateException("offload benchmark failed: " + String.join("; ", errors));
            }
            long produced = 0;
            long dropped = 0;
            for (PushBuffer b : buffers) {
                produced += b.offered();
                dropped += b.dropped();
            }
            long bytes = 0;
            for (long b : pulled.bytesPerLevel()) {
                bytes += b;
            }
            long pulls = pulled.rounds() - ScopeFrontEnd.FINAL_PULLS;
            return new Result(config, worstPerRoundMeanUs(offload, WARMUP_ROUNDS), worstPerRoundMeanUs(barrier, WARMUP_ROUNDS),
                    pulls, pulled.roundUsMean(), produced, pulled.recordsGathered(), dropped, bytes);
        }
    }

    /**
     * Each rank: first {@code rounds} barrier-only rounds (the floor), then, with the front-end pulling, {@code rounds}
     * of work, offload, barrier.
     */
    private static List<String> runRanks(InJvmCluster cluster, Config config, String[] names, long[][] offload,
                                         long[][] barrier, ScopeFrontEnd frontEnd, PushBuffer[] buffers) {
        int rounds = offload[0].length;
        Pathmap pathmap = cluster.pathmap();
        ExecutorService pool = Executors.newFixedThreadPool(config.ranks(), r -> {
            Thread t = new Thread(r, "es-offload-rank");
            t.setDaemon(true);
            return t;
        });
        List<String> errors = new ArrayList<>();
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int rank = 0; rank < config.ranks(); rank++) {
                int r = rank;
                Comm comm = cluster.comm(rank);
                PushBuffer buffer = buffers[pathmap.spec().hostOf(rank)];
                futures.add(pool.submit(() -> {
                    long workNanos = config.periodUs() * 1_000L;
                    boolean spin = config.spinWork();
                    for (int i = 0; i < rounds; i++) {
                        work(workNanos, spin);
                        long t0 = System.nanoTime();
                        comm.barrier();
                        barrier[r][i] = System.nanoTime() - t0;
                    }
                    if (r == 0) {
                        frontEnd.resume();
                    }
                    comm.barrier();
                    List<ScopeRecord> profile = new ArrayList<>(names.length);
                    for (int i = 0; i < rounds; i++) {
                        work(workNanos, spin);
                        long t0 = System.nanoTime();
                        profile.clear();
                        for (int e = 0; e < names.length; e++) {
                            // A value per event that differs by rank and event, as a profile's times would.
                            profile.add(new ScopeRecord(r, names[e], i, (e + 1) * 10.0 + (r * 7 + i) % 13));
                        }
                        buffer.offer(profile);
                        comm.barrier();
                        offload[r][i] = System.nanoTime() - t0;
                    }
                    return null;
                }));
            }
            long deadline = System.nanoTime() + config.timeout().toNanos()
                    + 3L * rounds * (config.periodUs() * 1_000L + config.timeout().toNanos() / 10);
            for (int rank = 0; rank < futures.size(); rank++) {
                try {
                    futures.get(rank).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    errors.add("rank " + rank + ": " + (e.getCause() == null ? e : e.getCause()).getMessage());
                } catch (TimeoutException e) {
                    errors.add("rank " + rank + ": " + RankThreads.LATE);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    errors.add("interrupted");
                    break;
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return errors;
    }

    /** ToM's {@code work(usecs)}: sleeping (see the class comment) or spinning on the clock; 0 does no work. */
    private static void work(long nanos, boolean spin) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = end - System.nanoTime()) {
            if (spin) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(left);
            }
        }
    }

    public static final String SCHEMA = "eventspace.bench-offload/1";

    /** One configuration's line for people. */
    public static String line(Result r) {
        Config c = r.config();
        return String.format(Locale.ROOT, "ranks %3d  hosts %3d  fanout %2d  period %7d µs  events %3d  reduce %-4s  "
                        + "avg_offload %10.1f µs  (barrier alone %8.1f µs)  pulls %6d of %8.1f µs  gather rate %.3f",
                c.ranks(), c.hosts(), c.fanout(), c.periodUs(), c.events(), c.reduce(), r.avgOffloadUs(), r.barrierUs(),
                r.pulls(), r.pullUs(), r.gatherRate());
    }

    public static String summary(List<Result> results) {
        StringBuilder out = new StringBuilder("ToM offload benchmark: mean over rounds of the worst rank's offload + barrier\n");
        for (Result r : results) {
            out.append("  ").append(line(r)).append('\n');
        }
        return out.toString();
    }

    public static ObjectNode toJson(List<Result> results, List<List<Result>> runs,
                                                                        ObjectMapper json) {
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        ArrayNode list = root.putArray("configurations");
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            Config c = r.config();
            ObjectNode n = list.addObject();
            n.put("ranks", c.ranks());
            n.put("hosts", c.hosts());
            n.put("fanout", c.fanout());
            n.put("period_us", c.periodUs());
            n.put("events", c.events());
            n.put("reduce", c.reduce());
            n.put("bins", c.bins());
            n.put("gather", c.gather());
            n.put("iterations", c.iterations());
            n.put("buffer_profiles", c.bufferProfiles());
            n.put("work", c.spinWork() ? "spin" : "sleep");
            n.put("avg_offload_us", r.avgOffloadUs());
            ArrayNode all = n.putArray("avg_offload_us_runs");
            runs.get(i).forEach(x -> all.add(x.avgOffloadUs()));
            n.put("barrier_only_us", r.barrierUs());
            n.put("pulls", r.pulls());
            n.put("pull_us_mean", r.pullUs());
            n.put("records_produced", r.recordsProduced());
            n.put("records_gathered", r.recordsGathered());
            n.put("records_dropped", r.recordsDropped());
            n.put("gather_rate", r.gatherRate());
            n.put("bytes_moved", r.bytesMoved());
        }
        RunReport.putMachine(root);
        root.put("date", Instant.now().toString());
        return root;
    }

    /** Mean over the rounds from {@code from} of the largest value any rank had in that round, in µs. */
    static double worstPerRoundMeanUs(long[][] perRank, int from) {
        int rounds = perRank[0].length;
        double sum = 0;
        for (int i = from; i < rounds; i++) {
            long worst = 0;
            for (long[] rank : perRank) {
                worst = Math.max(worst, rank[i]);
            }
            sum += worst;
        }
        return sum / Math.max(1, rounds - from) / 1_000.0;
    }
}
