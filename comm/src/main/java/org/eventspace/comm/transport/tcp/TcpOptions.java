package org.eventspace.comm.transport.tcp;

import java.time.Duration;

import org.eventspace.comm.path.WaitPolicy;

/**
 * How a host's TCP hops are opened and how their threads wait for a frame. Immutable.
 *
 * <p>Waiting for a frame first busy-polls the non-blocking channel {@code spinReads} times, then polls it
 * {@code yieldReads} more times with a {@link Thread#yield()} before each read, then blocks in a selector.
 * Blocking costs kernel wake-ups on every hand-off: an 8-byte allreduce of 2 host processes × 1 rank over
 * loopback took 45–64 µs blocking against 19–23 µs yield-polling on this 2-core VM (Open MPI: 8 µs; 11–14 µs
 * once the JIT finished, see {@code TcpAllreduceLatency}). Busy-polling only pays when every polling thread has
 * a core of its own: that allreduce keeps three threads busy (the rank of each host and the root host's service
 * thread), and busy-polling the sockets made it 21–27 µs, spinning in the gred as well ~2 000 µs, because the
 * thread being waited for could not get a core. Yield-polling gives the core away whenever another thread wants
 * it, so it is the default; {@link #forThreads} adds busy-polling when the busy threads fit the cores.
 *
 * @param bindAddress        address a host's {@link TcpServer} listens on and tells the others to connect to;
 *                           must name this host (not a wildcard).
 * @param sendBufferBytes    SO_SNDBUF of every hop socket; 0 keeps the OS default.
 * @param receiveBufferBytes SO_RCVBUF of every hop socket; 0 keeps the OS default.
 * @param spinReads          non-blocking reads before yielding; 0 = none.
 * @param yieldReads         non-blocking reads with a {@link Thread#yield()} before each, before blocking; 0 = none.
 * @param connectTimeout     bound on connecting a hop and on its handshake.
 * @param initialFrameBytes  initial size of each hop's direct buffer; it grows when a larger message comes.
 * @param peerSpinReads      as {@code spinReads}, for a butterfly's exchange links ({@link TcpPeerLink}), which the
 *                           ranks drive themselves: no service thread of theirs needs the CPU the poll takes.
 * @param peerYieldReads     as {@code yieldReads}, for the exchange links.
 */
public record TcpOptions(String bindAddress, int sendBufferBytes, int receiveBufferBytes, int spinReads,
                         int yieldReads, Duration connectTimeout, int initialFrameBytes, int peerSpinReads,
                         int peerYieldReads) {
    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
    /** Busy reads (~0.5 µs each) when cores are free: covers a loopback round trip several times over. */
    public static final int DEFAULT_SPIN_READS = 2_000;
    /** Yielding reads (~1-3 µs each): about a millisecond, long enough for a collective's round trip, not a pause. */
    public static final int DEFAULT_YIELD_READS = 500;
    /** Busy threads a core beyond which a host's reads block at once ({@link #forThreads(int, int)}). */
    public static final int BLOCK_BEYOND_THREADS_PER_CORE = 64;

    public TcpOptions {
        if (bindAddress == null || bindAddress.isBlank()) {
            throw new IllegalArgumentException("bindAddress must be an address, bindAddress='" + bindAddress + "'");
        }
        if (sendBufferBytes < 0 || receiveBufferBytes < 0) {
            throw new IllegalArgumentException("socket buffer sizes must be >= 0 (0 = OS default), sendBufferBytes="
                    + sendBufferBytes + ", receiveBufferBytes=" + receiveBufferBytes);
        }
        if (spinReads < 0 || yieldReads < 0 || peerSpinReads < 0 || peerYieldReads < 0) {
            throw new IllegalArgumentException("spin and yield reads must be >= 0, spinReads=" + spinReads
                    + ", yieldReads=" + yieldReads + ", peerSpinReads=" + peerSpinReads + ", peerYieldReads=" + peerYieldReads);
        }
        if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connectTimeout must be > 0, connectTimeout=" + connectTimeout);
        }
        if (initialFrameBytes < FrameLayout.HEADER_LENGTH + 8 || initialFrameBytes > FrameLayout.MAX_FRAME_LENGTH) {
            throw new IllegalArgumentException("initialFrameBytes must be in " + (FrameLayout.HEADER_LENGTH + 8) + ".."
                    + FrameLayout.MAX_FRAME_LENGTH + ", initialFrameBytes=" + initialFrameBytes);
        }
    }

    /** Loopback, OS buffer sizes, yield-polling then blocking, 10 s to connect, 4 KiB frames to start. */
    public static TcpOptions defaults() {
        return new TcpOptions(DEFAULT_BIND_ADDRESS, 0, 0, 0, DEFAULT_YIELD_READS, Duration.ofSeconds(10), 4096, 0,
                DEFAULT_YIELD_READS);
    }

    /** As {@link #defaults()} but blocking at once: the least CPU, two kernel wake-ups per round trip. */
    public static TcpOptions blocking() {
        return defaults().withPolling(0, 0);
    }

    /**
     * Adds busy-polling to the defaults if {@code busyThreads}, the threads of the whole machine that may be
     * running or polling at once (ranks and service threads of every process on it), fit its cores; yields, never
     * spins, in a process that may use one CPU only.
     */
    public static TcpOptions forThreads(int busyThreads) {
        return forThreads(busyThreads, busyThreads);
    }

    /**
     * As {@link #forThreads(int)} for the hops, with {@code hopBusy} busy threads (ranks, and the service threads of
     * tree hops and point-to-point links), and for a butterfly's exchange links, with {@code exchangeBusy} (the ranks
     * and tree hops' threads alone: an exchange has no service thread). A process bound to one CPU polls its exchange
     * links too, as long as the job's {@code exchangeBusy} threads fit the machine's CPUs (else other host processes
     * share its CPU, and it polls with yields).
     */
    public static TcpOptions forThreads(int hopBusy, int exchangeBusy) {
        return forThreads(hopBusy, exchangeBusy, Runtime.getRuntime().availableProcessors());
    }

    /** As {@link #forThreads(int, int)} for a process that may use {@code cores} CPUs (the simulator's hosts). */
    public static TcpOptions forThreads(int hopBusy, int exchangeBusy, int cores) {
        TcpOptions hops;
        if (hopBusy > BLOCK_BEYOND_THREADS_PER_CORE * cores) {
            // Hundreds of threads a core: a yield hands the core to another poller, not to the thread with the frame, and
            // the yielding readers starve everything else of the process (1 024 ranks in 64 processes on 2 cores: its
            // heartbeats went 5 s unsent, and the rendezvous took the hosts for frozen). Block, as --poll block does.
            return blocking();
        } else if (cores == 1) {
            // A process bound to one CPU (--bind-to core, taskset, a one-CPU container): never spin, since a spin keeps
            // the CPU from this process's other threads, but yield rather than block. A yield gives the CPU to the
            // service thread that has the frame at once and costs nothing when no other thread wants it; a block
            // costs a kernel wake-up on each side of every hop. Measured bound on 2 CPUs: ping-pong 47 → 9.3 µs
            // one-way, a hier:8 allreduce of 2 processes 69 → 9.6 µs (docs/BENCHMARKS.md).
            hops = defaults();
        } else {
            hops = hopBusy <= cores ? defaults().withPolling(DEFAULT_SPIN_READS, DEFAULT_YIELD_READS) : defaults();
        }
        boolean spin = exchangeBusy <= (cores == 1 ? machineCpus() : cores);
        return hops.withPeerPolling(spin ? DEFAULT_SPIN_READS : 0, DEFAULT_YIELD_READS);
    }

    /**
     * CPUs online on the machine, whatever this process is bound to ({@code /sys/devices/system/cpu/online}, e.g.
     * {@code 0-1,4}); this process's count where that file cannot be read.
     */
    static int machineCpus() {
        try {
            String online = java.nio.file.Files.readString(java.nio.file.Path.of("/sys/devices/system/cpu/online")).trim();
            int n = 0;
            for (String range : online.split(",")) {
                int dash = range.indexOf('-');
                n += dash < 0 ? 1 : Integer.parseInt(range.substring(dash + 1)) - Integer.parseInt(range.substring(0, dash)) + 1;
            }
            return Math.max(1, n);
        } catch (java.io.IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    /**
     * How a hop's thread waits for bytes, as the wait policy every waiter of comm shares: {@code spinReads} and
     * {@code yieldReads} are its spin and yield phases, blocking in the selector its park phase. Its timeout is
     * the connect timeout, the bound of the handshake; a served hop waits for its next frame without one.
     */
    public WaitPolicy readWaitPolicy() {
        return new WaitPolicy(spinReads, yieldReads, connectTimeout.toNanos());
    }

    /** How an exchange link's calling thread waits for the partner's bytes ({@link #readWaitPolicy()}'s counterpart). */
    public WaitPolicy peerReadWaitPolicy() {
        return new WaitPolicy(peerSpinReads, peerYieldReads, connectTimeout.toNanos());
    }

    /** Hops and exchange links alike poll {@code spins} times, then yield {@code yields} times, then block. */
    public TcpOptions withPolling(int spins, int yields) {
        return new TcpOptions(bindAddress, sendBufferBytes, receiveBufferBytes, spins, yields, connectTimeout, initialFrameBytes,
                spins, yields);
    }

    /** Only the exchange links poll so. */
    public TcpOptions withPeerPolling(int spins, int yields) {
        return new TcpOptions(bindAddress, sendBufferBytes, receiveBufferBytes, spinReads, yieldReads, connectTimeout,
                initialFrameBytes, spins, yields);
    }

    public TcpOptions withBindAddress(String address) {
        return new TcpOptions(address, sendBufferBytes, receiveBufferBytes, spinReads, yieldReads, connectTimeout, initialFrameBytes,
                peerSpinReads, peerYieldReads);
    }

    public TcpOptions withSocketBuffers(int sendBytes, int receiveBytes) {
        return new TcpOptions(bindAddress, sendBytes, receiveBytes, spinReads, yieldReads, connectTimeout, initialFrameBytes,
                peerSpinReads, peerYieldReads);
    }

    public TcpOptions withConnectTimeout(Duration timeout) {
        return new TcpOptions(bindAddress, sendBufferBytes, receiveBufferBytes, spinReads, yieldReads, timeout, initialFrameBytes,
                peerSpinReads, peerYieldReads);
    }
}
