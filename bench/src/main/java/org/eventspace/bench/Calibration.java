package org.eventspace.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.DoubleFunction;

import org.eventspace.base.stats.Median;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorSettings;
import org.eventspace.job.ScopeSettings;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunReport;
import org.eventspace.run.RunEngine;
import org.eventspace.run.Workload;
import org.eventspace.sim.AllreduceModel;
import org.eventspace.sim.Costs;
import org.eventspace.sim.ScopeConfig;
import org.eventspace.sim.ScopeModel;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code simulate --calibrate}: measures what the model's operations cost on this machine and writes them as a cost
 * file. Two kinds of measurement, each said where it is taken:
 * <ul>
 *   <li><b>primitives</b>, timed alone in plain loops: a spin, a yield alone and among ready threads, a park/unpark
 *   hand-off, a loopback TCP message's CPU at each end and its round trip;</li>
 *   <li><b>fits</b> on small runs of the product itself, in this order (one JVM: 1 rank with collectors off and on,
 *   2 ranks on 1 host, 2 ranks on 2 hosts, 16 ranks on 2 hosts; TCP: 2 ranks on 2 host processes): the one cost (or
 *   the one factor on a group of costs) each run adds is set so that the model gives that run's measured latency.
 *   None of these is a case of {@link ModelValidation}'s: those are predicted, never fitted.</li>
 * </ul>
 * A time slice is not measured: Linux's base slice for this many CPUs ({@link #sliceNs}).
 */
public final class Calibration {
    /** Linux's base slice (EEVDF, 6.6+): 0.75 ms times 1 + log2 of the CPUs (at most 8), not measured. */
    static double sliceNs(int cores) {
        return 750_000.0 * (1 + (31 - Integer.numberOfLeadingZeros(Math.min(cores, 8))));
    }

    /** Threads of the crowded yield measurement: the scale of a 1 024-rank run on one machine. */
    private static final int CROWD = 512;

    private final Consumer<String> progress;
    private final Duration each;

    public Calibration(Consumer<String> progress, Duration each) {
        this.progress = progress;
        this.each = each;
    }

    public Costs run(String machine) throws IOException {
        int cores = Runtime.getRuntime().availableProcessors();
        double spin = spinNs();
        double yieldAlone = yieldAloneNs();
        double yieldAmong = yieldAmongNs(cores + 2);
        double yieldCrowd = yieldAmongNs(CROWD);
        // A switch's growth with the machine's threads, from a yield among cores + 2 threads and among CROWD.
        double perThread = Math.max(0, (yieldCrowd - yieldAmong) / (CROWD - cores - 2));
        yieldAmong = Math.max(0, yieldAmong - perThread * (cores + 2));
        double[] hand = parkHandoffNs();
        double[] tcp = tcpNs();
        progress.accept(String.format("primitives: spin %.1f ns, yield alone %.0f ns, yield to another %.0f ns, unpark %.0f ns,"
                + " resume from park %.0f ns, %.1f ns more a switch for each thread of the machine, TCP send %.0f ns,"
                + " receive %.0f ns, round trip %.0f ns", spin, yieldAlone, yieldAmong, hand[0], hand[1], perThread, tcp[0],
                tcp[1], tcp[2]));
        // A first guess of everything not yet fitted.
        Costs c = new Costs(machine, LocalDate.now().toString(), cores, spin, yieldAmong, yieldAlone, hand[0], hand[1],
                100, 100, 500, tcp[0], tcp[1], Math.max(0, tcp[2] / 2 - tcp[0] - tcp[1]), 50, sliceNs(cores), 2_000, 50, 40, perThread);

        double alone = measure(1, 1, "jvm", false, 200_000);
        double aloneOn = measure(1, 1, "jvm", true, 200_000);
        // 1 rank on 1 host calls the core itself (a host of one rank has no gred), through one collector.
        c = c.with("core_ns", alone).with("collector_ns", Math.max(0, aloneOn - alone));
        double pair = measure(2, 1, "jvm", false, 200_000);
        Costs withCore = c;
        c = c.with("join_ns", fit(x -> predict(withCore.with("join_ns", x), 2, 1, AllreduceModel.Transport.JVM), pair,
                0, 100_000));
        progress.accept(String.format("fit: 1 rank in one JVM %.0f ns a call, %.0f ns with collectors, 2 ranks %.0f ns:"
                + " core %.0f ns, collector %.0f ns, join %.0f ns", alone, aloneOn, pair, c.coreNs(), c.collectorNs(),
                c.joinNs()));

        double hop = measure(2, 2, "jvm", false, 100_000);
        Costs base = c;
        c = c.with("hop_ns", fit(x -> predict(base.with("hop_ns", x), 2, 2, AllreduceModel.Transport.JVM), hop,
                0, 50_000));
        progress.accept(String.format("fit: 2 ranks on 2 hosts in one JVM %.0f ns a call: hop %.0f ns a side", hop, c.hopNs()));

        // A switch between the product's threads costs more than between the loops above (a waiter's loop around its
        // yield, deeper stacks): the switch costs but the growth with the threads are scaled together to fit one
        // crowded run, 16 ranks on 2 hosts in one JVM, which no validation case repeats. (At 1 024 threads the loops'
        // yield already costs what a switch of the product does: 6.3 against 6.2 µs, from /proc's counts.)
        double crowded = measure(16, 2, "jvm", false, 20_000);
        Costs micro = c;
        double switches = fit(x -> predict(scaleSwitches(micro, x), 16, 2, AllreduceModel.Transport.JVM), crowded, 0.1, 10);
        c = scaleSwitches(micro, switches);
        progress.accept(String.format("fit: 16 ranks on 2 hosts in one JVM %.0f ns a call: switches %.2f × the loops' (yield"
                + " %.0f ns, unpark %.0f ns, resume %.0f ns)", crowded, switches, c.yieldNs(), c.unparkNs(), c.switchNs()));

        double overTcp = measure(2, 2, "tcp", false, 50_000);
        // A thread's CPU clock splits a message's CPU between the sender and the receiver; their sum it overstates (a
        // blocking read's clock runs through the wake-up). The sum is fitted, the split kept, the wire taken as 0 on
        // loopback (the kernel delivers in the sender's system call).
        Costs base2 = c.with("wire_ns", 0);
        double send = tcp[0];
        double receive = tcp[1];
        double scale = fit(x -> predict(base2.with("send_ns", send * x).with("receive_ns", receive * x), 2, 2,
                AllreduceModel.Transport.TCP), overTcp, 0, 4);
        c = base2.with("send_ns", send * scale).with("receive_ns", receive * scale);
        progress.accept(String.format("fit: 2 ranks on 2 host processes over TCP %.0f ns a call: send %.0f ns, receive"
                + " %.0f ns (%.2f of the CPU clocks' figures)", overTcp, c.sendNs(), c.receiveNs(), scale));
        return calibrateScope(c);
    }

    /** A scope's measured pull: records a leaf read per round, the round's mean time, the gather rate, calls a second. */
    record ScopePull(double recordsPerLeaf, double roundNs, double gatherRate, double callsPerSecond) {
    }

    /**
     * The event scope's two costs, from 8 ranks on 8 hosts in one JVM under a flat sequential scope that loses nothing
     * (buffers of 65 536): pulled back to back and 5 ms apart, its rounds read few and many records. The cost of a record
     * is what makes the two rounds differ, the cost of reading a host what is left of the first.
     */
    private Costs calibrateScope(Costs c) {
        ScopePull few = scopeRun(8, 8, 65_536, 0, 20_000);
        ScopePull many = scopeRun(8, 8, 65_536, 5, 20_000);
        Costs inJvm = inJvmScope(c);
        // The 8 ranks share the machine's cores with the scope: the model charges their turns to each hand-off, so the
        // fitted costs are the scope's own.
        ScopeConfig flat = ScopeConfig.of(8, TreeShape.FLAT, inJvm).withSharedMachine(true).withMachineRanks(8);
        double measuredGap = many.roundNs() - few.roundNs();
        double record = fit(x -> {
            ScopeConfig k = flat.withCosts(inJvm.with("record_ns", x));
            return ScopeModel.roundNs(k, many.recordsPerLeaf()) - ScopeModel.roundNs(k, few.recordsPerLeaf());
        }, measuredGap, 0, 100_000);
        Costs withRecord = inJvm.with("record_ns", record);
        double gather = fit(x -> ScopeModel.roundNs(flat.withCosts(withRecord.with("gather_ns", x)), few.recordsPerLeaf()),
                few.roundNs(), 0, 10_000_000);
        progress.accept(String.format("fit: a flat sequential scope over 8 hosts in one JVM: %.0f records a leaf in %.0f ns"
                + " a round back to back, %.0f in %.0f ns 5 ms apart: a record %.0f ns, a host's read %.0f ns",
                few.recordsPerLeaf(), few.roundNs(), many.recordsPerLeaf(), many.roundNs(), record, gather));
        return c.with("record_ns", record).with("gather_ns", gather);
    }

    /** The costs a scope in one JVM runs on: a hop's hand-off for a message, no wire. */
    public static Costs inJvmScope(Costs c) {
        return c.withNetwork(c.hopNs(), c.hopNs(), 0);
    }

    /** gsum with a flat sequential concat scope: what its pulls read and took. */
    static ScopePull scopeRun(int ranks, int hosts, int capacity, int intervalMs, int iterations) {
        RunConfig config = new RunConfig(Workload.GSUM, RunConfig.shortcut(ranks, hosts, 1, TreeShape.hier(8)), "jvm",
                iterations, 100, Duration.ofSeconds(1), Duration.ofSeconds(120), 1, "auto", 0, true, null,
                new CollectorSettings(Set.of(), Set.of(), capacity), 0, ScopeSettings.parse("flat", "seq", "concat",
                intervalMs));
        RunReport report = RunEngine.run(config);
        JsonNode scope = report.scope();
        double rounds = Math.max(1, scope.path("rounds").asDouble());
        return new ScopePull(scope.path("records_gathered").asDouble() / rounds / hosts,
                scope.path("round_us_mean").asDouble() * 1000, scope.path("gather_rate").asDouble(),
                1e6 / report.meanUs());
    }

    private static Costs scaleSwitches(Costs c, double x) {
        return c.with("yield_ns", c.yieldNs() * x).with("yield_alone_ns", c.yieldAloneNs() * x)
                .with("unpark_ns", c.unparkNs() * x).with("switch_ns", c.switchNs() * x);
    }

    /** "{CPU model}, {n} cores" from /proc/cpuinfo, or the JVM's view of the OS where that cannot be read. */
    public static String machineName() {
        int cores = Runtime.getRuntime().availableProcessors();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim() + ", " + cores + " cores";
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through
        }
        return System.getProperty("os.name") + " " + System.getProperty("os.arch") + ", " + cores + " cores";
    }

    private static double predict(Costs c, int ranks, int hosts, AllreduceModel.Transport t) {
        return AllreduceModel.run(c, new AllreduceModel.Config(ranks, hosts, TreeShape.hier(8), 2, t, false, 1, c.cores(),
                ranks > 8 ? 200 : 400, 50)).latencyNs();
    }

    /**
     * The x in [lo, hi] at which the (rising) model reaches {@code target}, by bisection. If the model is above the
     * target even at {@code lo} (or below it at {@code hi}) the bound is kept and said: that run has something the
     * model does not, or lacks something it has.
     */
    double fit(DoubleFunction<Double> model, double target, double lo, double hi) {
        double atLo = model.apply(lo);
        if (atLo >= target) {
            progress.accept(String.format("  the model gives %.0f ns at the lowest cost, more than the measured %.0f ns:"
                    + " the cost is kept at %.0f", atLo, target, lo));
            return lo;
        }
        double atHi = model.apply(hi);
        if (atHi <= target) {
            progress.accept(String.format("  the model gives %.0f ns at the highest cost, less than the measured %.0f ns:"
                    + " the cost is kept at %.0f", atHi, target, hi));
            return hi;
        }
        for (int i = 0; i < 30; i++) {
            double mid = (lo + hi) / 2;
            if (model.apply(mid) < target) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }

    /** gsum with these settings: the run's {@code allreduce_us.mean} in ns (median of three). */
    private double measure(int ranks, int hosts, String transport, boolean collectors, int iterations) {
        double[] v = new double[3];
        for (int i = 0; i < v.length; i++) {
            RunConfig config = new RunConfig(Workload.GSUM, RunConfig.shortcut(ranks, hosts, 1, TreeShape.hier(8)), transport,
                    iterations, 100, Duration.ofMillis(300), Duration.ofSeconds(60), 1, "auto", 0, collectors, null);
            v[i] = RunEngine.run(config).meanUs() * 1000;
        }
        return Median.of(v);
    }

    private long deadline() {
        return System.nanoTime() + each.toNanos();
    }

    private double spinNs() {
        long n = 0;
        long end = deadline();
        long t0 = System.nanoTime();
        while (System.nanoTime() < end) {
            for (int i = 0; i < 1000; i++) {
                Thread.onSpinWait();
            }
            n += 1000;
        }
        return (System.nanoTime() - t0) / (double) n;
    }

    private double yieldAloneNs() {
        long n = 0;
        long end = deadline();
        long t0 = System.nanoTime();
        while (System.nanoTime() < end) {
            Thread.yield();
            n++;
        }
        return (System.nanoTime() - t0) / (double) n;
    }

    /**
     * {@code threads} threads yielding at once, every yield handing the core to another: cores × time ÷ yields. The
     * threads are all started and waiting before the clock starts, so starting a thousand threads is not counted.
     */
    private double yieldAmongNs(int threads) {
        int cores = Runtime.getRuntime().availableProcessors();
        AtomicLong total = new AtomicLong();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2];
        Thread[] ts = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            ts[i] = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long end = window[1];
                long n = 0;
                while (System.nanoTime() < end) {
                    Thread.yield();
                    n++;
                }
                total.addAndGet(n);
            }, "calibrate-yield-" + i);
            ts[i].start();
        }
        try {
            ready.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        window[0] = System.nanoTime();
        window[1] = window[0] + each.toNanos();
        go.countDown();
        joinAll(ts);
        return cores * (double) each.toNanos() / Math.max(1, total.get());
    }

    /**
     * Two threads handing a token back and forth by park/unpark: the waker's unpark (timed in the waker) and the
     * rest of a one-way hand-off (half a round trip less the unpark), which the woken thread spends resuming.
     */
    private double[] parkHandoffNs() {
        AtomicLong turn = new AtomicLong();
        AtomicLong unparkTime = new AtomicLong();
        AtomicLong unparks = new AtomicLong();
        Thread[] pair = new Thread[2];
        long end = deadline();
        for (int me = 0; me < 2; me++) {
            int self = me;
            pair[me] = new Thread(() -> {
                long local = 0;
                long count = 0;
                while (true) {
                    long t = turn.get();
                    if (t < 0) {
                        break;
                    }
                    if ((t & 1) == self) {
                        long next = System.nanoTime() >= end ? -1 : t + 1;
                        turn.set(next);
                        long a = System.nanoTime();
                        LockSupport.unpark(pair[1 - self]);
                        local += System.nanoTime() - a;
                        count++;
                        if (next < 0) {
                            break;
                        }
                    } else {
                        LockSupport.parkNanos(1_000_000);
                    }
                }
                unparkTime.addAndGet(local);
                unparks.addAndGet(count);
            }, "calibrate-park-" + me);
        }
        long t0 = System.nanoTime();
        pair[0].start();
        pair[1].start();
        joinAll(pair);
        double wall = System.nanoTime() - t0;
        double handoff = wall / Math.max(1, turn.get() < 0 ? unparks.get() : turn.get());
        double unpark = unparkTime.get() / (double) Math.max(1, unparks.get());
        return new double[] {unpark, Math.max(0, handoff - unpark)};
    }

    /** Loopback TCP ping-pong of 64 bytes, blocking: the CPU of a write and of a read, and the round trip. */
    private double[] tcpNs() throws IOException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            Thread echo = new Thread(() -> {
                try (SocketChannel s = server.accept()) {
                    s.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    ByteBuffer b = ByteBuffer.allocateDirect(64);
                    while (true) {
                        b.clear();
                        while (b.hasRemaining()) {
                            if (s.read(b) < 0) {
                                return;
                            }
                        }
                        b.flip();
                        while (b.hasRemaining()) {
                            s.write(b);
                        }
                    }
                } catch (IOException e) {
                    // the client closed: done
                }
            }, "calibrate-echo");
            echo.start();
            try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ByteBuffer b = ByteBuffer.allocateDirect(64);
                long sendCpu = 0;
                long receiveCpu = 0;
                long n = 0;
                long end = deadline();
                long t0 = System.nanoTime();
                while (System.nanoTime() < end) {
                    b.clear();
                    long a = mx.getCurrentThreadCpuTime();
                    while (b.hasRemaining()) {
                        c.write(b);
                    }
                    long m = mx.getCurrentThreadCpuTime();
                    b.clear();
                    while (b.hasRemaining()) {
                        c.read(b);
                    }
                    long z = mx.getCurrentThreadCpuTime();
                    sendCpu += m - a;
                    receiveCpu += z - m;
                    n++;
                }
                double rt = (System.nanoTime() - t0) / (double) n;
                c.shutdownOutput();
                // The clock reads themselves are in the CPU times: a read of the thread's CPU clock costs ~0.3-1 µs.
                double clock = cpuClockNs(mx);
                return new double[] {Math.max(0, sendCpu / (double) n - clock),
                        Math.max(0, receiveCpu / (double) n - clock), rt};
            } finally {
                try {
                    echo.join(2_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static double cpuClockNs(ThreadMXBean mx) {
        long n = 20_000;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            mx.getCurrentThreadCpuTime();
        }
        return (System.nanoTime() - t0) / (double) n;
    }

    private static void joinAll(Thread[] ts) {
        for (Thread t : ts) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
