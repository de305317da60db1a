package org.eventspace.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.eventspace.comm.path.WaitPolicy;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.transport.tcp.TcpOptions;
import org.eventspace.sim.Scheduler.Machine;
import org.eventspace.sim.Scheduler.SimThread;
import org.eventspace.sim.Scheduler.Waiting;

/**
 * gsum simulated event by event on the pathmap a run builds: every rank thread and every hop's service thread, each
 * gred's arrivals and releases, each hop's messages, each collector's work, on machines whose cores are shared the
 * way the operating system shares them ({@link Scheduler}).
 *
 * <p>The rules are the communication system's (dissertation §7.1, §7.3): a rank runs its path's wrappers in its own
 * thread; at a gred every arriver but the last waits, the last goes on down; a proxy hands the message to the service
 * thread of the host above, which runs the rest of the path there and waits like a rank would; the core stores the
 * result, and the result goes back up the same way, each last arriver waking its gred's waiters. A butterfly's
 * exchange is recursive doubling driven by the host's last arriver (with a fold-in step for hosts beyond the largest
 * power of two). How each thread waits is the product's own {@link WaitPolicy} and {@link TcpOptions} for the threads
 * its process (and machine) runs, so the model changes regime (spin, yield, park) where the product does.
 *
 * <p>Not thread-safe; one instance is one simulation.
 */
public final class AllreduceModel {
    public enum Transport { JVM, TCP }

    /**
     * One run to simulate.
     *
     * @param ranks           application ranks.
     * @param hosts           host processes (all in one JVM for {@code JVM}).
     * @param shape           the trees' shape, as {@code --tree}.
     * @param trees           identical trees the ranks alternate between (gsum: 2).
     * @param transport       in one JVM, or one process per host over TCP.
     * @param collectors      event collectors on every edge.
     * @param machines        machines the host processes are spread over (block); 1 = every host on one machine.
     * @param coresPerMachine cores of each machine.
     * @param iterations      allreduces per rank, the first {@code warmup} of which are not timed.
     * @param warmup          untimed allreduces.
     */
    public record Config(int ranks, int hosts, TreeShape shape, int trees, Transport transport, boolean collectors,
                         int machines, int coresPerMachine, int iterations, int warmup) {
        public Config {
            if (ranks < 1 || hosts < 1 || hosts > ranks) {
                throw new IllegalArgumentException("need 1 <= hosts <= ranks, ranks=" + ranks + ", hosts=" + hosts);
            }
            if (trees < 1 || machines < 1 || machines > hosts || coresPerMachine < 1) {
                throw new IllegalArgumentException("need trees >= 1, 1 <= machines <= hosts, cores >= 1, trees=" + trees
                        + ", machines=" + machines + ", hosts=" + hosts + ", cores=" + coresPerMachine);
            }
            if (iterations <= warmup || warmup < 0) {
                throw new IllegalArgumentException("need 0 <= warmup < iterations, warmup=" + warmup + ", iterations="
                        + iterations);
            }
        }

        public Config withCollectors(boolean on) {
            return new Config(ranks, hosts, shape, trees, transport, on, machines, coresPerMachine, iterations, warmup);
        }
    }

    /**
     * What the simulation gives.
     *
     * @param latencyNs        the slowest rank's timed time ÷ timed iterations (what a run reports as
     *                         {@code allreduce_us.mean}).
     * @param p50Ns            the median of rank 0's timed calls (a run's {@code allreduce_us.p50} is over every rank's).
     * @param p99Ns            their 99th percentile.
     * @param tuplesPerCall    collector tuples written per allreduce, all hosts (0 without collectors).
     * @param busiestHostTuples the most tuples one host writes per allreduce.
     * @param cpuShare         the busiest machine's CPU bursts ÷ (cores × simulated time): how loaded it was.
     * @param events           events the simulation processed.
     * @param completed        false if the event budget ran out before every rank finished.
     * @param switchesPerCall  context switches per call, all machines (as the kernel counts them: a core taking another
     *                         thread), to compare with {@code /proc}'s counts of a real run.
     * @param parksPerCall     parks per call (the kernel's voluntary switches).
     */
    public record Result(Config config, double latencyNs, double p50Ns, double p99Ns, int tuplesPerCall,
                         int busiestHostTuples, double cpuShare, long events, boolean completed, double switchesPerCall,
                         double parksPerCall) {
    }

    private static final Duration TIMEOUT = WaitPolicy.DEFAULT_TIMEOUT;

    private final Costs costs;
    private final Config config;
    private final Pathmap pathmap;
    private final Scheduler sim = new Scheduler();
    private final Node[] nodes;
    private final int[] arrived;
    private final List<List<SimThread>> waiters;
    private final SimThread[] service;
    private final SimThread[] requester;
    private final Machine[] machines;
    private final long[] timedStart;
    private final long[] timedEnd;
    private int ranksDone;
    /** When rank 0 started each call (its calls' latencies, as a run's percentiles are). */
    private final long[] rank0Starts;
    private final boolean tcp;
    // Butterfly: each exchange node's place among its tree's exchanges, the exchange node at each place of each tree,
    // and per exchange node a mailbox per round (a count, so an early message of the next call is kept).
    private final int exchanges;
    private final int[] exchangeIndex;
    private final int[][] exchangeNodes;
    private final int[][] mailbox;
    private final SimThread[] exchangeWaiter;
    private final int[] exchangeWaitRound;

    private AllreduceModel(Costs costs, Config config) {
        this.costs = costs;
        this.config = config;
        this.tcp = config.transport() == Transport.TCP;
        PathmapSpec spec = PathmapSpec.of(Topology.simulated(1, config.hosts(), config.coresPerMachine()), config.ranks(),
                config.trees(), config.shape());
        this.pathmap = PathmapBuilder.build(spec);
        this.nodes = pathmap.nodes().toArray(new Node[0]);
        this.arrived = new int[nodes.length];
        this.waiters = new ArrayList<>(nodes.length);
        for (int i = 0; i < nodes.length; i++) {
            waiters.add(nodes[i].kind().equals(PathmapBuilder.GRED) && nodes[i].arity() > 1 ? new ArrayList<>(2) : null);
        }
        this.service = new SimThread[nodes.length];
        this.requester = new SimThread[nodes.length];
        this.machines = new Machine[config.machines()];
        for (int m = 0; m < machines.length; m++) {
            machines[m] = sim.new Machine(m, costs, config.coresPerMachine());
        }
        this.timedStart = new long[config.ranks()];
        this.timedEnd = new long[config.ranks()];
        this.rank0Starts = new long[config.iterations() + 1];
        int ex = 0;
        this.exchangeIndex = new int[nodes.length];
        for (Node n : nodes) {
            boolean exchange = n.kind().equals(PathmapBuilder.EXCHANGE);
            exchangeIndex[n.id()] = exchange ? Integer.parseInt(n.property(PathmapBuilder.EXCHANGE_INDEX)) : -1;
            if (exchange && n.tree() == 0) {
                ex++;
            }
        }
        this.exchanges = ex;
        this.exchangeNodes = new int[config.trees()][ex];
        for (Node n : nodes) {
            if (exchangeIndex[n.id()] >= 0) {
                exchangeNodes[n.tree()][exchangeIndex[n.id()]] = n.id();
            }
        }
        int rounds = ex <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(ex - 1) + 2;
        this.mailbox = new int[nodes.length][Math.max(rounds, 1)];
        this.exchangeWaiter = new SimThread[nodes.length];
        this.exchangeWaitRound = new int[nodes.length];
    }

    /** Simulates {@code config} with {@code costs}. */
    public static Result run(Costs costs, Config config) {
        return new AllreduceModel(costs, config).simulate();
    }

    private Machine machineOf(int host) {
        return machines[(int) ((long) host * machines.length / config.hosts())];
    }

    private Result simulate() {
        int hosts = config.hosts();
        int[] ranksOnHost = new int[hosts];
        for (int r = 0; r < config.ranks(); r++) {
            ranksOnHost[pathmap.spec().hostOf(r)]++;
        }
        int[] serviceOnHost = new int[hosts];
        for (Node n : nodes) {
            if (n.kind().equals(PathmapBuilder.PROXY)) {
                serviceOnHost[nodes[n.parent()].host()]++;
            }
        }
        int[] machineBusy = new int[machines.length];
        for (int h = 0; h < hosts; h++) {
            machineBusy[machineOf(h).id] += ranksOnHost[h] + serviceOnHost[h];
        }
        int cores = config.coresPerMachine();
        // One JVM holds every simulated host: its ranks and hop threads are one process's busy threads.
        int jvmBusy = config.ranks() + sumOf(serviceOnHost);
        for (int i = 0; i < nodes.length; i++) {
            Node n = nodes[i];
            if (!n.kind().equals(PathmapBuilder.PROXY)) {
                continue;
            }
            int serverHost = nodes[n.parent()].host();
            Machine m = machineOf(serverHost);
            int busy = tcp ? ranksOnHost[serverHost] + serviceOnHost[serverHost] : jvmBusy;
            Waiting join = rankWaiting(busy, cores);
            // A TCP hop's service thread reads its socket with the transport's polling; in one JVM it waits on the
            // link's signal with the process's policy.
            Waiting read = tcp ? tcpWaiting(machineBusy[m.id], cores, false) : join;
            SimThread s = sim.thread("serve-" + n.name(), m, read);
            s.owner = new PathState(-1, i, join, read, read);
            service[i] = s;
            final int proxy = i;
            sim.start(s, () -> serve(s, proxy));
        }
        for (int r = 0; r < config.ranks(); r++) {
            int host = pathmap.spec().hostOf(r);
            Machine m = machineOf(host);
            int busy = tcp ? ranksOnHost[host] + serviceOnHost[host] : jvmBusy;
            Waiting join = rankWaiting(busy, cores);
            SimThread t = sim.thread("rank-" + r, m, join);
            // A rank waits at a gred with its process's policy, for a TCP hop's reply and a butterfly's partner with the
            // transport's reads.
            t.owner = new PathState(r, -1, join, tcp ? tcpWaiting(machineBusy[m.id], cores, false) : join,
                    tcp ? tcpWaiting(machineBusy[m.id], cores, true) : join);
            sim.start(t, () -> startIteration(t));
        }
        long budget = Math.max(50_000_000L, 400L * config.ranks() * config.iterations());
        boolean completed = sim.run(budget, () -> ranksDone == config.ranks());
        completed &= ranksDone == config.ranks();
        double worst = 0;
        for (int r = 0; r < config.ranks(); r++) {
            worst = Math.max(worst, timedEnd[r] - timedStart[r]);
        }
        double latency = worst / (config.iterations() - config.warmup());
        double share = 0;
        for (Machine m : machines) {
            share = Math.max(share, sim.now() == 0 ? 0 : m.busyNs / ((double) config.coresPerMachine() * sim.now()));
        }
        int[] tuples = tuplesPerCall();
        long[] calls = new long[config.iterations() - config.warmup()];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = rank0Starts[config.warmup() + i + 1] - rank0Starts[config.warmup() + i];
        }
        Arrays.sort(calls);
        double p50 = calls[calls.length / 2];
        double p99 = calls[Math.min(calls.length - 1, (int) Math.ceil(calls.length * 0.99) - 1)];
        return new Result(config, latency, p50, p99, tuples[0], tuples[1], share, sim.eventsProcessed(), completed,
                sim.switches / (double) config.iterations(), sim.parks / (double) config.iterations());
    }

    /** Collector tuples per call, all hosts and the busiest host: one per wrapper a path passes (one per edge). */
    private int[] tuplesPerCall() {
        return config.collectors() ? tuplesPerCall(pathmap) : new int[] {0, 0};
    }

    /**
     * Collector tuples one call writes with collectors on every edge of {@code shape}'s tree of {@code ranks} ranks
     * over {@code hosts} hosts: {all hosts, the busiest host}. A host's collectors are as many per tree.
     */
    public static int[] tuplesPerCall(int ranks, int hosts, TreeShape shape) {
        return tuplesPerCall(PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, hosts, 1), ranks, 1, shape)));
    }

    private static int[] tuplesPerCall(Pathmap pathmap) {
        int[] perHost = new int[pathmap.spec().topology().size()];
        int all = 0;
        for (Node n : pathmap.nodes()) {
            if (n.tree() != 0) {
                continue;
            }
            // Each wrapper is fed through one collector per port (ranks and children), i.e. its arity in edges.
            int edges = n.kind().equals(PathmapBuilder.GRED) ? n.arity() : 1;
            perHost[n.host()] += edges;
            all += edges;
        }
        int busiest = 0;
        for (int v : perHost) {
            busiest = Math.max(busiest, v);
        }
        return new int[] {all, busiest};
    }

    private static int sumOf(int[] a) {
        int s = 0;
        for (int v : a) {
            s += v;
        }
        return s;
    }

    private static Waiting rankWaiting(int busyThreads, int cores) {
        WaitPolicy p = WaitPolicy.forThreads(busyThreads, cores, TIMEOUT);
        return new Waiting(p.spins(), p.yields());
    }

    /**
     * A TCP read's wait ({@code peer}: a butterfly's exchange link): busy reads (about 0.5 µs each, counted here as
     * spins), then yielding reads, then blocking.
     */
    private Waiting tcpWaiting(int machineBusy, int cores, boolean peer) {
        TcpOptions o = TcpOptions.forThreads(machineBusy, machineBusy, cores);
        int reads = peer ? o.peerSpinReads() : o.spinReads();
        int spins = (int) Math.min(Integer.MAX_VALUE, Math.round(reads * 500.0 / Math.max(1e-3, costs.spinNs())));
        return new Waiting(spins, peer ? o.peerYieldReads() : o.yieldReads());
    }

    /** What a thread carries along its path: the greds it arrived at last, to release on its way back. */
    private static final class PathState {
        final int rank;
        final int proxy;
        /** How it waits at a gred, for a hop's reply (or request), for an exchange partner. */
        final Waiting join;
        final Waiting read;
        final Waiting peer;
        int[] stack = new int[8];
        int depth;
        int iteration;

        PathState(int rank, int proxy, Waiting join, Waiting read, Waiting peer) {
            this.rank = rank;
            this.proxy = proxy;
            this.join = join;
            this.read = read;
            this.peer = peer;
        }

        void push(int node) {
            if (depth == stack.length) {
                stack = Arrays.copyOf(stack, depth * 2);
            }
            stack[depth++] = node;
        }
    }

    private void startIteration(SimThread t) {
        PathState p = (PathState) t.owner;
        if (p.rank == 0) {
            rank0Starts[p.iteration] = sim.now();
        }
        if (p.iteration == config.warmup()) {
            timedStart[p.rank] = sim.now();
        }
        if (p.iteration == config.iterations()) {
            timedEnd[p.rank] = sim.now();
            ranksDone++;
            sim.finish(t);
            return;
        }
        int tree = p.iteration % config.trees();
        var entry = pathmap.entry(tree, p.rank);
        down(t, entry.node());
    }

    private double collector() {
        return config.collectors() ? costs.collectorNs() : 0;
    }

    private void down(SimThread t, int id) {
        Node n = nodes[id];
        PathState p = (PathState) t.owner;
        switch (n.kind()) {
            case PathmapBuilder.GRED -> sim.cpu(t, collector() + costs.joinNs(), () -> {
                if (++arrived[id] < n.arity()) {
                    waiters.get(id).add(t);
                    sim.await(t, p.join, () -> up(t));
                } else {
                    p.push(id);
                    down(t, n.parent());
                }
            });
            case PathmapBuilder.PROXY -> sim.cpu(t, collector() + (tcp ? costs.sendNs() : costs.hopNs()), () -> {
                requester[id] = t;
                deliver(t, service[id], () -> sim.await(t, p.read,
                        () -> sim.cpu(t, tcp ? costs.receiveNs() : costs.hopNs(), () -> up(t))));
            });
            case PathmapBuilder.CORE -> sim.cpu(t, collector() + costs.coreNs(), () -> up(t));
            case PathmapBuilder.EXCHANGE -> sim.cpu(t, collector(), () -> exchange(t, id, 0));
            default -> throw new IllegalStateException("the model has no rule for wrapper kind " + n.kind() + " ("
                    + n.name() + ")");
        }
    }

    /**
     * Hands {@code target} a message from {@code from}: in one JVM at once, the sender paying the wake-up; over TCP after
     * the wire's latency, the kernel waking a blocked reader. Then {@code from} goes on with {@code then}.
     */
    private void deliver(SimThread from, SimThread target, Runnable then) {
        if (tcp) {
            long arrive = sim.now() + Math.round(costs.wireNs());
            sim.at(arrive, () -> sim.signal(target));
            then.run();
        } else {
            sim.cpu(from, sim.signal(target), then);
        }
    }

    private void up(SimThread t) {
        PathState p = (PathState) t.owner;
        if (p.depth > 0) {
            int id = p.stack[--p.depth];
            List<SimThread> w = waiters.get(id);
            arrived[id] = 0;
            double cost = 0;
            if (w != null) {
                for (SimThread x : w) {
                    cost += sim.signal(x);
                }
                w.clear();
            }
            sim.cpu(t, cost, () -> up(t));
            return;
        }
        if (p.rank >= 0) {
            p.iteration++;
            startIteration(t);
        } else {
            // A service thread back at its hop: the reply goes to the caller below, then it waits for the next request.
            SimThread caller = requester[p.proxy];
            sim.cpu(t, tcp ? costs.sendNs() : costs.hopNs(), () -> deliver(t, caller, () -> serve(t, p.proxy)));
        }
    }

    private void serve(SimThread s, int proxy) {
        sim.await(s, ((PathState) s.owner).read, () -> sim.cpu(s, tcp ? costs.receiveNs() : costs.hopNs(),
                () -> down(s, nodes[proxy].parent())));
    }

    // --- butterfly: recursive doubling between the hosts' exchanges ---

    /**
     * Round {@code round} of host {@code id}'s exchange. With n exchanges and p the largest power of two ≤ n: an
     * index ≥ p first sends to index − p and waits for the result (round 0 and the last); the others, after taking in
     * their extra's contribution, exchange with index XOR 2^k in rounds 1 … log₂ p, then send the result on.
     */
    private void exchange(SimThread t, int id, int round) {
        int n = exchanges;
        int me = exchangeIndex[id];
        int tree = nodes[id].tree();
        int pow = Integer.highestOneBit(Math.max(1, n));
        int steps = Integer.numberOfTrailingZeros(pow);
        int last = steps + 1;
        if (n == 1) {
            down(t, nodes[id].parent());
            return;
        }
        if (me >= pow) {
            if (round == 0) {
                send(t, exchangeNodes[tree][me - pow], 0, () -> receive(t, id, last, () -> down(t, nodes[id].parent())));
            }
            return;
        }
        if (round == 0) {
            if (me + pow < n) {
                receive(t, id, 0, () -> exchange(t, id, 1));
            } else {
                exchange(t, id, 1);
            }
            return;
        }
        if (round <= steps) {
            int partner = me ^ (1 << (round - 1));
            send(t, exchangeNodes[tree][partner], round, () -> receive(t, id, round, () -> exchange(t, id, round + 1)));
            return;
        }
        if (me + pow < n) {
            send(t, exchangeNodes[tree][me + pow], last, () -> down(t, nodes[id].parent()));
        } else {
            down(t, nodes[id].parent());
        }
    }

    private void send(SimThread t, int to, int round, Runnable then) {
        sim.cpu(t, tcp ? costs.sendNs() : costs.hopNs(), () -> {
            Runnable arrive = () -> {
                mailbox[to][round]++;
                SimThread w = exchangeWaiter[to];
                if (w != null && exchangeWaitRound[to] == round) {
                    exchangeWaiter[to] = null;
                    sim.signal(w);
                }
            };
            if (tcp) {
                sim.at(sim.now() + Math.round(costs.wireNs()), arrive);
                then.run();
            } else {
                arrive.run();
                then.run();
            }
        });
    }

    private void receive(SimThread t, int id, int round, Runnable then) {
        Runnable take = () -> sim.cpu(t, tcp ? costs.receiveNs() : costs.hopNs(), then);
        if (mailbox[id][round] > 0) {
            mailbox[id][round]--;
            take.run();
            return;
        }
        exchangeWaiter[id] = t;
        exchangeWaitRound[id] = round;
        sim.await(t, ((PathState) t.owner).peer, () -> {
            mailbox[id][round]--;
            take.run();
        });
    }
}
