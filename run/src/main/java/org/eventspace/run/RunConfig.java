package org.eventspace.run;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorSettings;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobFootprint;
import org.eventspace.job.JobTransport;
import org.eventspace.job.PollMode;
import org.eventspace.job.ScopeSettings;
import org.eventspace.comm.runtime.HostRuntime;

/**
 * One benchmark run, validated: which benchmark, how many iterations and how much warm-up, on which monitored job
 * ({@link JobConfig}: ranks, hosts, transport, trees, collectors, event scope). Immutable.
 *
 * @param benchmark    gsum, compute-gsum or pingpong.
 * @param job          the monitored job the benchmark's ranks run in.
 * @param iterations   timed iterations.
 * @param warmup       untimed iterations before them (JIT, connections, caches), repeated until...
 * @param warmupTime   ...this much time has passed on every rank.
 * @param payloadWords words per allreduce (1 = the 8-byte value of gsum) or per ping-pong message.
 * @param sortLength   compute-gsum: ints each iteration sorts; 0 calibrates it in the warm-up so a sort takes about as
 *                     long as an allreduce. A fixed length makes two runs do equal work (the off and on runs of
 *                     {@code bench overhead}).
 * @param monitoring   the monitors its hosts run.
 * @param faults       the delays it adds on purpose (a slow rank, noise), for a monitor to find.
 * @param block        gsum-interleaved: pairs of calls per block (its iterations are pairs); 0 for the others.
 */
public record RunConfig(Workload benchmark, JobConfig job, int iterations, int warmup, Duration warmupTime,
                        int payloadWords, int sortLength, Monitoring monitoring, Faults faults, int block) {
    /** Long enough for the JIT's background compiles of the hot path to finish on this 2-core machine. */
    public static final Duration DEFAULT_WARMUP_TIME = Duration.ofSeconds(1);
    /** The longest warm-up: an hour. */
    public static final Duration MAX_WARMUP_TIME = Duration.ofHours(1);

    public RunConfig {
        Objects.requireNonNull(benchmark, "benchmark");
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(monitoring, "monitoring");
        Objects.requireNonNull(faults, "faults");
        if (benchmark == Workload.GSUM_INTERLEAVED && (block < 1 || iterations % block != 0 || job.spec().trees() != 2)) {
            throw new IllegalArgumentException("gsum-interleaved needs a block of >= 1 pairs that divides the iterations and "
                    + "a job of 2 trees, block=" + block + ", iterations=" + iterations + ", trees=" + job.spec().trees());
        }
        if (monitoring.enabled() && !job.collectors()) {
            throw new IllegalArgumentException("the monitors read the collectors' traces: --monitor needs collectors on");
        }
        if (faults.slowRank() >= job.ranks()) {
            throw new IllegalArgumentException("slow rank " + faults.slowRank() + " is not a rank of the job: ranks are 0.."
                    + (job.ranks() - 1));
        }
        Objects.requireNonNull(warmupTime, "warmupTime");
        if (sortLength < 0 || sortLength > IntegerSort.MAX_LENGTH) {
            throw new IllegalArgumentException("sort length must be 0 (calibrate) or 1.." + IntegerSort.MAX_LENGTH
                    + " ints, sortLength=" + sortLength);
        }
        if (iterations < 1) {
            throw new IllegalArgumentException("iterations must be >= 1, iterations=" + iterations);
        }
        if (warmup < 1) {
            throw new IllegalArgumentException("warm-up must be >= 1 iteration, warmup=" + warmup);
        }
        if (warmupTime.isNegative() || warmupTime.compareTo(MAX_WARMUP_TIME) > 0) {
            throw new IllegalArgumentException("warm-up time must be 0.." + MAX_WARMUP_TIME.toMinutes() + " min, warmupTime="
                    + warmupTime);
        }
        if (payloadWords < 1) {
            throw new IllegalArgumentException("payload must be >= 1 word, words=" + payloadWords);
        }
        if (payloadWords > job.spec().resultWords()) {
            throw new IllegalArgumentException("a payload of " + payloadWords * 8L + " bytes (--bytes) exceeds the "
                    + job.spec().resultWords() * 8L + " bytes the result element holds (resultWords "
                    + job.spec().resultWords() + " in the pathmap)");
        }
        if (benchmark == Workload.PINGPONG && job.ranks() < 2) {
            throw new IllegalArgumentException("pingpong needs at least 2 ranks, ranks=" + job.ranks());
        }
        if (benchmark == Workload.ALLTOALL && payloadWords > HostRuntime.P2P_WORDS) {
            throw new IllegalArgumentException("alltoall sends each block as one point-to-point message of at most "
                    + HostRuntime.P2P_WORDS * 8 + " bytes, --bytes " + payloadWords * 8L);
        }
    }

    /**
     * The run configuration of a work that brings its own parameters (a trace's replay, the multi-cluster workloads):
     * {@code job} with no monitors and no faults. Its workload fields are placeholders the work never reads.
     */
    public static RunConfig forJob(JobConfig job) {
        return new RunConfig(Workload.GSUM, job, 1, 1, Duration.ZERO, 1, 0);
    }

    /** No monitors and no faults. */
    public RunConfig(Workload benchmark, JobConfig job, int iterations, int warmup, Duration warmupTime,
                     int payloadWords, int sortLength) {
        this(benchmark, job, iterations, warmup, warmupTime, payloadWords, sortLength, Monitoring.NONE, Faults.NONE, 0);
    }

    /** Collectors on every edge, buffers in memory, no scope, default warm-up time, polling chosen by load. */
    public RunConfig(Workload benchmark, PathmapSpec spec, String transport, int iterations, int warmup,
                     Duration timeout, int payloadWords) {
        this(benchmark, spec, transport, iterations, warmup, DEFAULT_WARMUP_TIME, timeout, payloadWords, "auto", 0);
    }

    /** Collectors on, buffers in memory. */
    public RunConfig(Workload benchmark, PathmapSpec spec, String transport, int iterations, int warmup,
                     Duration warmupTime, Duration timeout, int payloadWords, String poll, int socketBufferBytes) {
        this(benchmark, spec, transport, iterations, warmup, warmupTime, timeout, payloadWords, poll, socketBufferBytes,
                true, null);
    }

    /** Calibrated sort length, collectors on every edge, no scope. */
    public RunConfig(Workload benchmark, PathmapSpec spec, String transport, int iterations, int warmup,
                     Duration warmupTime, Duration timeout, int payloadWords, String poll, int socketBufferBytes,
                     boolean collectors, Path traceDump) {
        this(benchmark, spec, transport, iterations, warmup, warmupTime, timeout, payloadWords, poll, socketBufferBytes,
                collectors, traceDump, CollectorSettings.ALL, 0, null);
    }

    /** Every field; the transport and polling as their command-line texts. */
    public RunConfig(Workload benchmark, PathmapSpec spec, String transport, int iterations, int warmup,
                     Duration warmupTime, Duration timeout, int payloadWords, String poll, int socketBufferBytes,
                     boolean collectors, Path traceDump, CollectorSettings collectorSettings, int sortLength,
                     ScopeSettings scope) {
        this(benchmark, new JobConfig(spec, JobTransport.parse(transport), timeout, PollMode.parse(poll), socketBufferBytes,
                collectors, traceDump, collectorSettings, scope), iterations, warmup, warmupTime, payloadWords, sortLength);
    }

    /** The usual shortcut: {@code ranks} ranks block-mapped over {@code hosts} hosts in {@code clusters} clusters, 2 trees. */
    public static PathmapSpec shortcut(int ranks, int hosts, int clusters, TreeShape shape) {
        return JobConfig.shortcut(ranks, hosts, clusters, shape);
    }

    /** The pathmap the run uses: the job's trees, collectors and scope. */
    public Pathmap pathmap() {
        return job.pathmap();
    }

    public PathmapSpec spec() {
        return job.spec();
    }

    public JobTransport transport() {
        return job.transport();
    }

    public Duration timeout() {
        return job.timeout();
    }

    public PollMode poll() {
        return job.poll();
    }

    public int socketBufferBytes() {
        return job.socketBufferBytes();
    }

    public boolean collectors() {
        return job.collectors();
    }

    public Path traceDump() {
        return job.traceDump();
    }

    public CollectorSettings collectorSettings() {
        return job.collectorSettings();
    }

    public ScopeSettings scope() {
        return job.scope();
    }

    public int ranks() {
        return job.ranks();
    }

    public int hosts() {
        return job.hosts();
    }

    /**
     * How long the ranks of this run may take in all before they are reported late: four collective timeouts and half
     * an hour, enough for any warm-up and timed loop this command line can ask for on these machines.
     */
    public Duration rankLimit() {
        return timeout().multipliedBy(4).plus(Duration.ofMinutes(30));
    }

    /**
     * What each rank of this run sends and keeps, for the job's memory estimate: its payload, and its latency
     * histogram, payload buffer and (compute-gsum with a fixed {@code --sort-length}) the ints it sorts. A calibrated
     * sort is short (about an allreduce's time) and not counted.
     */
    public JobFootprint.Program program() {
        long sort = benchmark == Workload.COMPUTE_GSUM ? 4L * sortLength : 0;
        boolean pointToPoint = benchmark == Workload.PINGPONG || benchmark == Workload.SOR || benchmark == Workload.ALLTOALL;
        return new JobFootprint.Program(payloadWords, RankResult.HISTOGRAM_BYTES + 8L * payloadWords + sort, pointToPoint);
    }

    /** The same run with collectors on or off (and no trace dump or scope when off). */
    public RunConfig withCollectors(boolean on) {
        return withJob(job.withCollectors(on));
    }

    /** The same run with compute-gsum sorting {@code length} ints (0: calibrate). */
    public RunConfig withSortLength(int length) {
        return new RunConfig(benchmark, job, iterations, warmup, warmupTime, payloadWords, length, monitoring, faults, block);
    }

    /** The same run with {@code newMonitoring} and {@code newFaults}. */
    public RunConfig withMonitoring(Monitoring newMonitoring, Faults newFaults) {
        return new RunConfig(benchmark, job, iterations, warmup, warmupTime, payloadWords, sortLength, newMonitoring, newFaults,
                block);
    }

    /** The same run as gsum-interleaved in blocks of {@code pairs} pairs of calls. */
    public RunConfig interleaved(int pairs) {
        return new RunConfig(Workload.GSUM_INTERLEAVED, job, iterations, warmup, warmupTime, payloadWords, sortLength,
                monitoring, faults, pairs);
    }

    /** The same run with collectors placed by {@code settings}. */
    public RunConfig withCollectorSettings(CollectorSettings settings) {
        return withJob(job.withCollectorSettings(settings));
    }

    /** The same run with event scope {@code newScope} (null: none). */
    public RunConfig withScope(ScopeSettings newScope) {
        return withJob(job.withScope(newScope));
    }

    public RunConfig withJob(JobConfig newJob) {
        return new RunConfig(benchmark, newJob, iterations, warmup, warmupTime, payloadWords, sortLength, monitoring, faults,
                block);
    }
}
