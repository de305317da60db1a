package org.eventspace.job;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

import org.eventspace.comm.element.TupleSlotLayout;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.runtime.WrapperKinds;
import org.eventspace.comm.traffic.TrafficCounterLayout;
import org.eventspace.comm.transport.tcp.FrameLayout;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.EventSpace;
import org.eventspace.events.TraceBudget;
import org.eventspace.scope.ScopeBuilder;

/**
 * What a job needs of this machine, estimated from its configuration and pathmap before anything starts: per host
 * process (one JVM for {@link JobTransport#JVM}, one per host for {@link JobTransport#TCP}) the heap, the direct and
 * mapped buffers, the threads and their stacks; and the machine's share of all of them. {@link #shortfall} compares it
 * with {@link MachineLimits}, so that a job that cannot fit is refused with what it needs instead of running out of
 * heap or threads half-way. Immutable.
 *
 * <p>The model, per process with R ranks, W wrappers and C collectors, P gred ports and H hops it serves:
 * <pre>
 *   heap    = base + pathmap (every process builds the whole pathmap) + R × (rank + program's own)
 *           + W × wrapper + P × port + C × collector + payload copies (8 B × words × (R × trees + P + greds + H))
 *   direct  = trace buffers (as TraceBudget sizes them; mapped instead with a trace dump) + result elements of the
 *             cores here + TCP frame buffers (one per hop end) + traffic counters (with traffic counted: a host
 *             port of TrafficCounterLayout.length(hosts) where a hop ends, and for a point-to-point program one
 *             rank port of length(ranks) per rank of a host that is not alone)
 *   threads = R + one per hop served (in one JVM: every hop) + scope helpers + front-end + the JVM's own
 *   stacks  = threads × what a rank thread's stack keeps resident
 *   mappings = 2 × threads + mapped trace files
 * </pre>
 * The constants were measured with {@code jcmd <pid> GC.class_histogram} (live heap) and {@code jcmd <pid>
 * VM.native_memory summary} ({@code -XX:NativeMemoryTracking=summary}) on {@code eventspace run gsum --iterations
 * 1000000 --warmup 1 --warmup-s 0} in its timed loop, at 100, 5 000 and 10 000 ranks in one JVM, {@code hier:8} and
 * {@code binary}, collectors off and on, and on pathmaps built alone at 20 000 and 40 000 ranks (2 vCPU AMD EPYC KVM,
 * 24 GiB, OpenJDK 17.0.15, G1, default heap 6 GiB); docs/RELIABILITY.md lists the figures. Each is the measured slope
 * rounded up by at most 10 % (the base heap twice what was measured, for the report a run builds at its end): the
 * estimate was within 3 % above the measured live heap, direct memory and stacks at 5 000 and 10 000 ranks.
 */
public final class JobFootprint {
    /** Live heap of a run before its ranks: classes' statics, picocli, Jackson (measured 4.2 MB at 100 ranks). */
    static final long BASE_HEAP_BYTES = 8L << 20;
    /**
     * Heap per rank, without the program's own: its {@code PathComm}, messages, thread and task objects. Measured
     * 31 800 B a rank at 5 000 and 10 000 ranks of gsum (hier:8, collectors off), less gsum's histogram (29 184 B)
     * and the rank's share of the pathmap and greds below.
     */
    static final long RANK_BYTES = 2_200;
    /** Pathmap heap per rank and tree (its entry and index): 100 B a rank for 2 trees, pathmaps built alone. */
    static final long ENTRY_BYTES = 56;
    /** Pathmap heap per gred, proxy, core or scope node: 118 B (binary minus hier:8, 20 000 ranks). */
    static final long NODE_BYTES = 128;
    /** Pathmap heap per collector node, whose name and properties are longer: 377 B. */
    static final long COLLECTOR_NODE_BYTES = 400;
    /** A wrapper instance beyond its node (gred: join line, result, waiter): a binary tree's gred took 1 059 B in all. */
    static final long WRAPPER_BYTES = 800;
    /** Per port of a gred: its join-line words, port lambda, parked slot and overflow slot. */
    static final long PORT_BYTES = 80;
    /** A collector instance beyond its node: wrapper, trace buffer and its direct-buffer objects (980 B in all). */
    static final long COLLECTOR_BYTES = 620;
    /**
     * Resident stack of a thread: the JVM touches its shadow pages (20 × 4 KiB) on every compiled call, and a rank's
     * path goes deeper. NMT: 1 101 787 KB committed for 10 023 threads at 10 000 ranks (110 KB each).
     */
    static final long STACK_BYTES = 112L << 10;
    /** Threads of the JVM itself (GC, compiler, signal, reference handlers): 23 measured, room for more compilers. */
    static final int JVM_THREADS = 32;
    /** Threads the launcher of a TCP job runs per host process: output and error pumps, process reaper, rendezvous. */
    static final int LAUNCHER_THREADS_PER_HOST = 4;
    /**
     * Native memory of a JVM besides heap, buffers and stacks: code cache, metaspace, symbols, G1's tables (NMT: 80 MB
     * at 100 ranks, 41 MB of it G1's, for a 6 GiB heap).
     */
    static final long JVM_NATIVE_BYTES = 96L << 20;

    /**
     * What the program's ranks add to the job's own memory.
     *
     * @param payloadWords the largest payload, in 64-bit words, a rank sends in one collective (its messages and the
     *                     greds' slots grow to it).
     * @param bytesPerRank heap each rank keeps of its own (a benchmark's latency histogram).
     * @param pointToPoint whether its ranks send point-to-point messages (then, with traffic counted, each rank that
     *                     talks to another host has a port of its own).
     */
    public record Program(int payloadWords, long bytesPerRank, boolean pointToPoint) {
        /** A program of one-word collectives that keeps nothing per rank. */
        public static final Program MINIMAL = new Program(1, 0, false);

        /** A program of collectives only. */
        public Program(int payloadWords, long bytesPerRank) {
            this(payloadWords, bytesPerRank, false);
        }

        public Program {
            if (payloadWords < 0 || bytesPerRank < 0) {
                throw new IllegalArgumentException("payloadWords and bytesPerRank must be >= 0, payloadWords=" + payloadWords
                        + ", bytesPerRank=" + bytesPerRank);
            }
        }
    }

    /**
     * One process's needs.
     *
     * @param host        the host it runs, or -1 for the one JVM that simulates every host.
     * @param ranks       rank threads.
     * @param threads     every thread: ranks, hop services, scope helpers, the JVM's own.
     * @param heapBytes   live heap.
     * @param directBytes direct buffers (counted against {@code -XX:MaxDirectMemorySize}).
     * @param mappedBytes memory-mapped trace files (a trace dump).
     * @param stackBytes  resident thread stacks.
     * @param mappings    memory mappings it adds: two per thread (stack and guard zone), one per mapped trace file.
     */
    public record Process(int host, int ranks, int threads, long heapBytes, long directBytes, long mappedBytes,
                          long stackBytes, long mappings) {
        /** Resident memory at least: heap, buffers, stacks and the JVM's own native memory. */
        public long residentBytes() {
            return heapBytes + directBytes + mappedBytes + stackBytes + JVM_NATIVE_BYTES;
        }
    }

    /** What a job needs more of than there is. */
    public enum Resource {
        HEAP("heap"), DIRECT("direct memory"), MAPPINGS("memory mappings"), THREADS("threads"), MEMORY("memory");

        private final String label;

        Resource(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * A resource the job needs more of than there is.
     *
     * @param resource  which.
     * @param process   the process that needs it ({@link Process#host()}), or null for the machine's share of all.
     * @param needed    bytes (threads for {@link Resource#THREADS}).
     * @param available what this JVM or machine has.
     */
    public record Shortfall(Resource resource, Process process, long needed, long available) {
        /**
         * E.g. {@code this JVM (which runs every host) would need 282.3 MiB of heap, more than the 230.4 MiB it may
         * fill (-Xmx less G1's reserve)}.
         */
        public String describe() {
            String where = process == null ? "all processes on this machine"
                    : process.host() < 0 ? "this JVM (which runs every host)" : "host process " + process.host();
            return switch (resource) {
                case THREADS -> String.format(Locale.ROOT, "%s would run %d threads, %d more than the %d this machine "
                        + "can start now (kernel.threads-max, kernel.pid_max, ulimit -u, less the threads running and %d "
                        + "left to other processes)", where, needed, needed - available, available,
                        MachineLimits.RESERVED_THREADS);
                case HEAP -> String.format(Locale.ROOT, "%s would need %s of heap, more than the %s it may fill (-Xmx "
                        + "less G1's reserve)", where, bytes(needed), bytes(available));
                case MAPPINGS -> String.format(Locale.ROOT, "%s would need %d memory mappings (2 per thread, for its "
                        + "stack and guard zone; 1 per mapped trace file), more than the %d vm.max_map_count leaves it",
                        where, needed, available);
                case DIRECT -> String.format(Locale.ROOT, "%s would need %s of direct buffers, more than the %s it may "
                        + "use (-XX:MaxDirectMemorySize, by default the heap's maximum)", where, bytes(needed),
                        bytes(available));
                case MEMORY -> String.format(Locale.ROOT, "%s would need at least %s of memory, more than the %s this "
                        + "machine has available", where, bytes(needed), bytes(available));
            };
        }
    }

    /**
     * Thrown where a job is started that {@link #requireFits} finds too large, before anything of it starts. An
     * {@link IllegalArgumentException}: the configuration asks for more than there is.
     */
    public static final class TooLargeException extends IllegalArgumentException {
        private final transient Shortfall shortfall;

        TooLargeException(String message, Shortfall shortfall) {
            super(message);
            this.shortfall = shortfall;
        }

        public Shortfall shortfall() {
            return shortfall;
        }
    }

    private final JobTransport transport;
    private final List<Process> processes;
    private final int ranks;
    /** Threads of this JVM when it launches a TCP job's processes, which the machine's count includes. */
    private final int launcherThreads;

    private JobFootprint(JobTransport transport, List<Process> processes, int ranks, int launcherThreads) {
        this.transport = transport;
        this.processes = List.copyOf(processes);
        this.ranks = ranks;
        this.launcherThreads = launcherThreads;
    }

    /** The footprint of {@code config} running {@code program}; {@code pathmap} is {@code config.pathmap()}. */
    public static JobFootprint of(JobConfig config, Pathmap pathmap, Program program) {
        return of(config, pathmap.nodes(), pathmap, program);
    }

    /**
     * What {@code config} needs at least, from its ranks alone, before its pathmap is built: their threads, stacks,
     * mappings and heap, without wrappers, buffers or hops. A job this does not fit is refused at once; building a
     * pathmap of 700 000 ranks just to refuse it would take seconds and a gigabyte.
     */
    public static JobFootprint ofRanks(JobConfig config, Program program) {
        return of(config, List.of(), null, program);
    }

    private static JobFootprint of(JobConfig config, List<Node> nodes, Pathmap pathmap, Program program) {
        int hosts = config.hosts();
        Tally[] tally = new Tally[hosts];
        for (int h = 0; h < hosts; h++) {
            tally[h] = new Tally();
        }
        for (int rankHost : config.spec().rankHosts()) {
            tally[rankHost].ranks++;
        }
        long pathmapBytes = (long) config.ranks() * config.spec().trees() * ENTRY_BYTES;
        int helpers = config.scope() != null ? config.scope().gather().helpers() : 0;
        for (Node n : nodes) {
            Tally t = tally[n.host()];
            switch (n.kind()) {
                case CollectorKind.NAME -> {
                    t.collectors++;
                    pathmapBytes += COLLECTOR_NODE_BYTES;
                    continue;
                }
                case PathmapBuilder.GRED -> {
                    t.greds++;
                    t.ports += n.arity();
                }
                case PathmapBuilder.PROXY -> {
                    t.hopsOut++;
                    tally[pathmap.node(n.parent()).host()].hopsServed++;
                }
                case PathmapBuilder.CORE -> t.resultBytes += resultElementBytes(
                        Integer.parseInt(n.property(PathmapBuilder.RESULT_WORDS)));
                case ScopeBuilder.GATHER -> {
                    t.threads += helpers;
                    for (int child : ScopeBuilder.children(n)) {
                        int childHost = pathmap.node(child).host();
                        if (childHost != n.host()) {
                            t.hopsOut++;
                            tally[childHost].hopsServed++;
                        }
                    }
                }
                default -> {
                }
            }
            t.wrappers++;
            pathmapBytes += NODE_BYTES;
        }
        if (config.traffic() != null && hosts > 1) {
            long hostPort = TrafficCounterLayout.length(hosts);
            long rankPort = TrafficCounterLayout.length(config.ranks());
            for (Tally t : tally) {
                t.trafficBytes = (t.hopsOut + t.hopsServed > 0 ? hostPort : 0) + (program.pointToPoint() ? t.ranks * rankPort : 0);
            }
        }
        if (config.scope() != null && pathmap != null) {
            tally[config.scope().toSpec(config.timeout(), config.spec()).frontEnd()].threads++;
        }
        for (int h = 0; h < hosts; h++) {
            if (tally[h].collectors > 0) {
                tally[h].traceBytes = TraceBudget.bytesOn(pathmap, h, EventSpace.DEFAULT_BUDGET_BYTES);
            }
        }
        List<Process> processes = new ArrayList<>();
        if (config.transport() == JobTransport.JVM) {
            Tally all = new Tally();
            for (Tally t : tally) {
                all.add(t);
            }
            // In one JVM every hop is an InJvmLink with a service thread of its own, and nothing crosses a socket.
            all.hopsServed = all.hopsOut;
            processes.add(all.process(-1, config, pathmapBytes, program, false));
        } else {
            for (int h = 0; h < hosts; h++) {
                processes.add(tally[h].process(h, config, pathmapBytes, program, true));
            }
        }
        int launcher = config.transport() == JobTransport.TCP ? JVM_THREADS + LAUNCHER_THREADS_PER_HOST * hosts : 0;
        return new JobFootprint(config.transport(), processes, config.ranks(), launcher);
    }

    /** Direct bytes of a tree's result element for payloads of {@code words} (as {@code CoreKind} allocates it). */
    static long resultElementBytes(int words) {
        return (long) WrapperKinds.resultCapacity(words) * TupleSlotLayout.slotBytes(words);
    }

    /** Counts on one host, or on every host of one JVM. */
    private static final class Tally {
        int ranks;
        /** Wrappers other than collectors. */
        int wrappers;
        int collectors;
        int greds;
        long ports;
        int hopsOut;
        int hopsServed;
        int threads;
        long resultBytes;
        long traceBytes;
        long trafficBytes;

        void add(Tally t) {
            ranks += t.ranks;
            wrappers += t.wrappers;
            collectors += t.collectors;
            greds += t.greds;
            ports += t.ports;
            hopsOut += t.hopsOut;
            hopsServed += t.hopsServed;
            threads += t.threads;
            resultBytes += t.resultBytes;
            traceBytes += t.traceBytes;
            trafficBytes += t.trafficBytes;
        }

        Process process(int host, JobConfig config, long pathmapBytes, Program program, boolean tcp) {
            long words = Math.max(1, program.payloadWords());
            // A payload of more than one word grows each rank's message per tree, each gred port's overflow slot and
            // result, and the message of each hop served; one word travels inline.
            long payloadCopies = (long) ranks * config.spec().trees() + ports + greds + hopsServed;
            long payloadBytes = words > 1 ? 8 * words * payloadCopies : 0;
            long heap = BASE_HEAP_BYTES + pathmapBytes + ranks * (RANK_BYTES + program.bytesPerRank())
                    + (long) wrappers * WRAPPER_BYTES + ports * PORT_BYTES
                    + (long) collectors * COLLECTOR_BYTES + payloadBytes;
            long frames = tcp ? (hopsOut + hopsServed) * Math.max(4096, FrameLayout.HEADER_LENGTH + 8 * words) : 0;
            boolean mapped = config.traceDump() != null;
            long direct = resultBytes + frames + trafficBytes + (mapped ? 0 : traceBytes);
            // Ranks, a service thread per hop served, scope helpers and front-end, and on TCP the accept loop.
            int all = ranks + hopsServed + threads + JVM_THREADS + (tcp ? 1 : 0);
            long mappings = 2L * all + (mapped ? collectors : 0);
            return new Process(host, ranks, all, heap, direct, mapped ? traceBytes : 0, all * STACK_BYTES, mappings);
        }
    }

    public JobTransport transport() {
        return transport;
    }

    /** Ranks of every process together. */
    public int ranks() {
        return ranks;
    }

    /** Every process of the job: one for a job in one JVM, one per host over TCP, by host. */
    public List<Process> processes() {
        return processes;
    }

    /** The process with the most resident memory. */
    public Process largest() {
        Process largest = processes.get(0);
        for (Process p : processes) {
            if (p.residentBytes() > largest.residentBytes()) {
                largest = p;
            }
        }
        return largest;
    }

    /**
     * The footprint of host {@code host}'s process alone: what a process that joins a TCP job checks, since the others
     * may run on other machines ({@code mpirun}, {@code srun}).
     */
    public JobFootprint only(int host) {
        for (Process p : processes) {
            if (p.host() == host) {
                return new JobFootprint(transport, List.of(p), p.ranks(), 0);
            }
        }
        throw new IllegalArgumentException("no process runs host " + host + "; hosts: " + processes.size());
    }

    /**
     * Throws {@link TooLargeException} naming the binding {@link #shortfall} if this job does not fit {@code limits}.
     */
    public void requireFits(MachineLimits limits) {
        Optional<Shortfall> shortfall = shortfall(limits);
        if (shortfall.isPresent()) {
            Shortfall s = shortfall.get();
            String fit = ranksThatFit(s).stream().mapToObj(n -> "; about " + n + " of its " + ranks + " ranks would fit")
                    .findFirst().orElse("");
            throw new TooLargeException("the job does not fit: " + s.describe() + fit, s);
        }
    }

    /** Threads of every process together, and of this JVM where it launches a TCP job's processes. */
    public long threads() {
        long sum = launcherThreads;
        for (Process p : processes) {
            sum += p.threads();
        }
        return sum;
    }

    /** Resident memory of every process together. */
    public long residentBytes() {
        long sum = 0;
        for (Process p : processes) {
            sum += p.residentBytes();
        }
        return sum;
    }

    /**
     * Every resource this job needs more of than {@code limits} give: a process's heap, direct buffers or memory
     * mappings (each host process of a TCP job gets this JVM's limits), and the machine's threads and memory.
     */
    public List<Shortfall> shortfalls(MachineLimits limits) {
        List<Shortfall> all = new ArrayList<>();
        for (Process p : processes) {
            if (p.heapBytes() > limits.heapBytes()) {
                all.add(new Shortfall(Resource.HEAP, p, p.heapBytes(), limits.heapBytes()));
            }
            if (p.directBytes() > limits.directBytes()) {
                all.add(new Shortfall(Resource.DIRECT, p, p.directBytes(), limits.directBytes()));
            }
            if (p.mappings() > limits.mappings()) {
                all.add(new Shortfall(Resource.MAPPINGS, p, p.mappings(), limits.mappings()));
            }
        }
        Process only = processes.size() == 1 ? processes.get(0) : null;
        if (threads() > limits.threads()) {
            all.add(new Shortfall(Resource.THREADS, only, threads(), limits.threads()));
        }
        if (residentBytes() > limits.memoryBytes()) {
            all.add(new Shortfall(Resource.MEMORY, only, residentBytes(), limits.memoryBytes()));
        }
        return all;
    }

    /**
     * The shortfall that binds, empty if the job fits: of {@link #shortfalls}, the one that leaves the fewest ranks
     * fitting (one that fewer ranks do not mend, direct buffers, first).
     */
    public Optional<Shortfall> shortfall(MachineLimits limits) {
        Shortfall binding = null;
        long fewest = Long.MAX_VALUE;
        for (Shortfall s : shortfalls(limits)) {
            long fit = ranksThatFit(s).orElse(-1);
            if (fit < fewest) {
                fewest = fit;
                binding = s;
            }
        }
        return Optional.ofNullable(binding);
    }

    /**
     * About how many ranks of the job (over every process, spread as now) would fit where {@code shortfall} says they
     * do not; empty where ranks are not what takes the resource (direct buffers: the trace buffers and result
     * elements). A rank takes a thread and two mappings; its heap and memory are the average per rank, which is
     * no less than what one rank more costs, so the answer errs low.
     */
    public OptionalLong ranksThatFit(Shortfall shortfall) {
        Process p = shortfall.process();
        long excess = shortfall.needed() - shortfall.available();
        return switch (shortfall.resource()) {
            case THREADS -> OptionalLong.of(Math.max(0, ranks - excess));
            case MAPPINGS -> OptionalLong.of(scaled(p.ranks() - (excess + 1) / 2, p.ranks()));
            case HEAP -> OptionalLong.of(scaled(fitting(shortfall.available() - BASE_HEAP_BYTES,
                    p.heapBytes() - BASE_HEAP_BYTES, p.ranks()), p.ranks()));
            case MEMORY -> {
                long fixed = processes.size() * (JVM_NATIVE_BYTES + BASE_HEAP_BYTES);
                yield OptionalLong.of(fitting(shortfall.available() - fixed, shortfall.needed() - fixed, ranks));
            }
            case DIRECT -> OptionalLong.empty();
        };
    }

    /** Ranks of {@code bytes} that fit in {@code room}, when {@code count} ranks take {@code bytes} in all. */
    private static long fitting(long room, long bytes, long count) {
        if (room <= 0 || bytes <= 0 || count <= 0) {
            return 0;
        }
        return (long) Math.floor(room / ((double) bytes / count));
    }

    /** The job's ranks when a process of {@code of} ranks could hold {@code fit}. */
    private long scaled(long fit, long of) {
        return of <= 0 ? 0 : Math.max(0, (long) Math.floor((double) ranks * Math.min(fit, of) / of));
    }

    /** Bytes for people: {@code 1.2 GiB}, {@code 256.0 MiB}, {@code 12.0 KiB}, {@code 100 B}. */
    public static String bytes(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double value = bytes;
        int unit = 0;
        while (Math.abs(value) >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    @Override
    public String toString() {
        Process p = largest();
        return String.format(Locale.ROOT, "%d process(es), largest %s: %d ranks, %d threads, heap %s, direct %s, mapped %s, "
                + "stacks %s", processes.size(), p.host() < 0 ? "(one JVM)" : "host " + p.host(), p.ranks(), p.threads(),
                bytes(p.heapBytes()), bytes(p.directBytes()), bytes(p.mappedBytes()), bytes(p.stackBytes()));
    }
}
