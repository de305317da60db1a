package org.eventspace.comm.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.Agent;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.transport.tcp.JobSecret;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RendezvousTest {
    private final JobSecret secret = JobSecret.random();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private Rendezvous rendezvous(int hosts, Duration timeout) {
        Rendezvous r = Rendezvous.start("127.0.0.1", 0, secret, hosts, timeout);
        toClose.add(r);
        return r;
    }

    private Future<RendezvousClient> register(Rendezvous r, JobSecret presented, int host, int hosts, Duration timeout) {
        return pool.submit(() -> {
            RendezvousClient c = RendezvousClient.register(r.address(), presented, host, hosts,
                    new InetSocketAddress("127.0.0.1", 10_000 + host), timeout);
            synchronized (toClose) {
                toClose.add(0, c);
            }
            return c;
        });
    }

    @Test
    void everyHostGetsTheTableThenBarriersAndResults() throws Exception {
        Rendezvous r = rendezvous(3, Duration.ofSeconds(10));
        List<Future<RendezvousClient>> futures = new ArrayList<>();
        for (int h = 2; h >= 0; h--) {
            futures.add(register(r, secret, h, 3, Duration.ofSeconds(10)));
        }
        List<Future<?>> done = new ArrayList<>();
        for (Future<RendezvousClient> f : futures) {
            RendezvousClient c = f.get(10, TimeUnit.SECONDS);
            assertThat(c.addresses()).extracting(InetSocketAddress::getPort).containsExactly(10_000, 10_001, 10_002);
            done.add(pool.submit(() -> {
                c.barrier("built");
                c.done("{\"port\":" + c.addresses().get(0).getPort() + "}");
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(10, TimeUnit.SECONDS);
        }
        assertThat(r.allDone()).isTrue();
        assertThat(r.results()).containsOnly("{\"port\":10000}").hasSize(3);
    }

    @Test
    void aResultLineLongerThanOneStringArrivesWholeInPieces() throws Exception {
        Rendezvous r = rendezvous(2, Duration.ofSeconds(20));
        // Three-byte characters laid so that the pieces' cuts (every MAX_STRING_BYTES bytes) fall inside characters.
        StringBuilder b = new StringBuilder("{\"x\":\"");
        while (b.length() < RendezvousProtocol.MAX_STRING_BYTES + 1_000) {
            b.append("a\u20ac");
        }
        String big = b.append(" end\"}").toString();
        assertThat(big.getBytes(StandardCharsets.UTF_8).length).isGreaterThan(2 * RendezvousProtocol.MAX_STRING_BYTES);
        Future<RendezvousClient> zeroRegistered = register(r, secret, 0, 2, Duration.ofSeconds(20));
        Future<RendezvousClient> oneRegistered = register(r, secret, 1, 2, Duration.ofSeconds(20));
        RendezvousClient zero = zeroRegistered.get(20, TimeUnit.SECONDS);
        RendezvousClient one = oneRegistered.get(20, TimeUnit.SECONDS);
        Future<?> small = pool.submit(() -> {
            one.done("{}");
            return null;
        });
        zero.done(big);
        small.get(20, TimeUnit.SECONDS);
        assertThat(r.results()).containsExactly(big, "{}");
    }

    @Test
    void aResultLineOverTheLimitIsRefusedBeforeAnythingIsSentAndASmallerOneStillArrives() throws Exception {
        Rendezvous r = rendezvous(1, Duration.ofSeconds(20));
        RendezvousClient c = register(r, secret, 0, 1, Duration.ofSeconds(20)).get(20, TimeUnit.SECONDS);
        String tooLong = "x".repeat(RendezvousProtocol.MAX_RESULT_BYTES + 1);
        assertThatThrownBy(() -> c.done(tooLong)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("host 0: a result line of " + (RendezvousProtocol.MAX_RESULT_BYTES + 1)
                        + " bytes exceeds the rendezvous limit of " + RendezvousProtocol.MAX_RESULT_BYTES);
        c.done("{\"kept\":true}");
        assertThat(r.results()).containsExactly("{\"kept\":true}");
    }

    @Test
    void piecesBeyondTheLimitBreakTheProtocolNamingTheHost() throws Exception {
        Rendezvous r = rendezvous(1, Duration.ofSeconds(20));
        try (java.net.Socket member = new java.net.Socket(r.address().getAddress(), r.address().getPort())) {
            DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(member.getOutputStream()));
            writeHello(out, secret, 0, 1);
            byte[] piece = new byte[RendezvousProtocol.MAX_STRING_BYTES];
            try {
                for (int i = 0; i <= RendezvousProtocol.MAX_RESULT_BYTES / piece.length; i++) {
                    out.writeInt(RendezvousProtocol.PART);
                    out.writeInt(piece.length);
                    out.write(piece);
                }
                out.flush();
            } catch (java.io.IOException closedByTheRendezvous) {
                // expected once the rendezvous refused the piece that crossed the limit
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (r.failure().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(r.failure()).hasValue("host 0 broke the rendezvous protocol: a result line of more than "
                    + RendezvousProtocol.MAX_RESULT_BYTES + " bytes");
        }
    }

    @Test
    void aHostThatNeverRegistersIsNamedToTheOthers() throws Exception {
        Rendezvous r = rendezvous(3, Duration.ofMillis(500));
        Future<RendezvousClient> zero = register(r, secret, 0, 3, Duration.ofMillis(500));
        Future<RendezvousClient> two = register(r, secret, 2, 3, Duration.ofMillis(500));
        for (Future<RendezvousClient> f : List.of(zero, two)) {
            assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(CommException.class)
                    .hasMessageContaining("hosts [1] of 3 did not register with the rendezvous")
                    .hasMessageContaining("within 500 ms");
        }
        assertThat(r.failure()).hasValueSatisfying(f -> assertThat(f).contains("hosts [1]"));
    }

    @Test
    void aHostThatNeverReachesABarrierIsNamed() throws Exception {
        Rendezvous r = rendezvous(2, Duration.ofMillis(700));
        Future<RendezvousClient> a = register(r, secret, 0, 2, Duration.ofMillis(700));
        Future<RendezvousClient> b = register(r, secret, 1, 2, Duration.ofMillis(700));
        RendezvousClient c0 = a.get(5, TimeUnit.SECONDS);
        b.get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> c0.barrier("built")).isInstanceOf(CommException.class)
                .hasMessageContaining("hosts [1] did not reach barrier 'built'");
    }

    @Test
    void aHostThatDisconnectsAbortsTheOthers() throws Exception {
        Rendezvous r = rendezvous(2, Duration.ofSeconds(10));
        Future<RendezvousClient> a = register(r, secret, 0, 2, Duration.ofSeconds(10));
        Future<RendezvousClient> b = register(r, secret, 1, 2, Duration.ofSeconds(10));
        RendezvousClient c0 = a.get(5, TimeUnit.SECONDS);
        List<String> heard = new ArrayList<>();
        c0.onAbort(reason -> {
            synchronized (heard) {
                heard.add(reason);
                heard.notifyAll();
            }
        });
        b.get(5, TimeUnit.SECONDS).close();
        synchronized (heard) {
            long deadline = System.currentTimeMillis() + 5_000;
            while (heard.isEmpty() && System.currentTimeMillis() < deadline) {
                heard.wait(100);
            }
        }
        assertThat(heard).singleElement().asString().contains("host 1 disconnected from the rendezvous before it finished");
        assertThatThrownBy(() -> c0.done("{}")).hasMessageContaining("job aborted: host 1 disconnected");
    }

    @Test
    void wrongSecretIsRefusedAndLogged() throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            Rendezvous r = rendezvous(1, Duration.ofSeconds(5));
            Future<RendezvousClient> f = register(r, JobSecret.random(), 0, 1, Duration.ofSeconds(5));
            assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(CommException.class)
                    .hasMessageContaining("closed the connection (wrong job secret?");
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("es-rendezvous: refused connection from /127.0.0.1:")
                    .contains(": wrong job secret");
            assertThat(r.results()).containsOnlyNulls();
        } finally {
            System.setErr(original);
        }
    }

    @Test
    void aTruncatedHelloIsRefusedAndLogged() throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            Rendezvous r = rendezvous(1, Duration.ofSeconds(5));
            try (java.net.Socket raw = new java.net.Socket(r.address().getAddress(), r.address().getPort());
                 java.io.DataOutputStream out = new java.io.DataOutputStream(raw.getOutputStream())) {
                out.writeInt(RendezvousProtocol.HELLO);
                out.writeInt(RendezvousProtocol.MAGIC);
                out.writeInt(RendezvousProtocol.VERSION);
                out.write(new byte[5]); // then the connection closes, mid-secret
                out.flush();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!err.toString(StandardCharsets.UTF_8).contains("truncated hello") && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("es-rendezvous: refused connection from /127.0.0.1:")
                    .contains("truncated hello");
            assertThat(r.results()).containsOnlyNulls();
        } finally {
            System.setErr(original);
        }
    }

    @Test
    void mismatchedJobSizeIsRefusedWithAReason() {
        Rendezvous r = rendezvous(2, Duration.ofSeconds(5));
        Future<RendezvousClient> f = register(r, secret, 0, 3, Duration.ofSeconds(5));
        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(CommException.class)
                .hasMessageContaining("host 0 thinks the job has 3 hosts, the rendezvous expects 2");
    }

    @Test
    void clientsRetryUntilTheRendezvousListens() throws Exception {
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        int p = port;
        Future<RendezvousClient> early = pool.submit(() -> {
            RendezvousClient c = RendezvousClient.register(InetSocketAddress.createUnresolved("127.0.0.1", p), secret, 0, 1,
                    new InetSocketAddress("127.0.0.1", 1), Duration.ofSeconds(5));
            synchronized (toClose) {
                toClose.add(0, c);
            }
            return c;
        });
        Thread.sleep(300);
        Rendezvous r = Rendezvous.start("127.0.0.1", port, secret, 1, Duration.ofSeconds(5));
        toClose.add(r);
        assertThat(early.get(10, TimeUnit.SECONDS).addresses()).hasSize(1);
    }

    @Test
    void theAgentCanBeSteppedByHand() throws Exception {
        Rendezvous r = Rendezvous.unstarted("127.0.0.1", 0, secret, 1, Duration.ofSeconds(10));
        toClose.add(r);
        Agent agent = r.agent();
        assertThat(agent.roleName()).isEqualTo("es-rendezvous");
        Future<RendezvousClient> client = register(r, secret, 0, 1, Duration.ofSeconds(10));
        for (int cycle = 0; cycle < 400 && !client.isDone(); cycle++) {
            agent.doWork(); // each cycle waits at most 50 ms for a ready socket
        }
        RendezvousClient c = client.get(10, TimeUnit.SECONDS);
        assertThat(c.addresses()).extracting(InetSocketAddress::getPort).containsExactly(10_000);

        Future<?> done = pool.submit(() -> c.done("{\"by\":\"hand\"}"));
        for (int cycle = 0; cycle < 400 && !done.isDone(); cycle++) {
            agent.doWork();
        }
        done.get(10, TimeUnit.SECONDS);
        assertThat(r.allDone()).isTrue();
        assertThat(r.results()).containsExactly("{\"by\":\"hand\"}");
    }

    @Test
    void theAgentsIdleCycleRunsTheWatchdog() throws Exception {
        Rendezvous r = Rendezvous.unstarted("127.0.0.1", 0, secret, 2, Duration.ofMillis(100));
        toClose.add(r);
        Thread.sleep(150);
        assertThat(r.agent().doWork()).as("nobody connected; the watchdog aborted the job").isEqualTo(1);
        assertThat(r.failure()).hasValueSatisfying(f -> assertThat(f).contains("hosts [0, 1] of 2 did not register"));
        assertThat(r.agent().doWork()).as("nothing more to do").isZero();
    }

    @Test
    void closingEndsTheAgentThreadWithinTheBound() throws Exception {
        Rendezvous r = rendezvous(2, Duration.ofSeconds(10));
        register(r, secret, 0, 2, Duration.ofSeconds(10));
        assertThat(threadNames()).contains("es-rendezvous");
        long start = System.nanoTime();
        r.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        assertThat(threadNames()).doesNotContain("es-rendezvous");
    }

    /** Strangers that connect and say nothing cost a socket each, not a thread, and are refused at the hello bound. */
    @Test
    void idleConnectionsHoldNoThreadAndAreRefusedAtTheHelloBound() throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        List<java.net.Socket> idle = new ArrayList<>();
        try {
            Rendezvous r = rendezvous(1, Duration.ofMillis(1_500));
            long threadsBefore = threadNames().size();
            for (int i = 0; i < 300; i++) {
                idle.add(new java.net.Socket(r.address().getAddress(), r.address().getPort()));
            }
            RendezvousClient c = register(r, secret, 0, 1, Duration.ofMillis(1_500)).get(10, TimeUnit.SECONDS);
            assertThat(c.addresses()).as("a real host registers while 300 strangers wait").hasSize(1);
            assertThat(threadNames().size() - threadsBefore).as("threads started for 300 idle connections and one host")
                    .isLessThanOrEqualTo(4);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (r.openConnections() > 1 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(r.openConnections()).as("the registered host's connection only").isEqualTo(1);
            for (java.net.Socket s : idle) {
                s.setSoTimeout(5_000);
                assertThat(s.getInputStream().read()).as("the rendezvous closed the idle connection").isEqualTo(-1);
            }
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("no hello within 1500 ms");
        } finally {
            for (java.net.Socket s : idle) {
                s.close();
            }
            System.setErr(original);
        }
    }

    /** A registered host that stops sending heartbeats (frozen) is named within the silence bound. */
    @Test
    void aSilentHostIsNamedWithinTheSilenceBound() throws Exception {
        Rendezvous r = rendezvous(2, Duration.ofSeconds(60));
        Future<RendezvousClient> zero = register(r, secret, 0, 2, Duration.ofSeconds(60));
        try (java.net.Socket frozen = new java.net.Socket(r.address().getAddress(), r.address().getPort())) {
            DataOutputStream out = new DataOutputStream(frozen.getOutputStream());
            writeHello(out, secret, 1, 2);
            RendezvousClient c0 = zero.get(10, TimeUnit.SECONDS);
            long registered = System.nanoTime();
            assertThatThrownBy(() -> c0.barrier("built")).isInstanceOf(CommException.class)
                    .hasMessageContaining("host 1 stopped answering the rendezvous: nothing heard from it for");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - registered);
            assertThat(millis).as("named after the silence bound, not the job's 60 s timeout")
                    .isBetween(RendezvousProtocol.SILENCE_MILLIS - 500, 30_000L);
        }
    }

    /** A client whose rendezvous stops answering (its process frozen) aborts its job naming the rendezvous. */
    @Test
    void aSilentRendezvousIsNamedByItsClients() throws Exception {
        try (java.net.ServerSocket fake = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Future<RendezvousClient> client = pool.submit(() -> {
                RendezvousClient c = RendezvousClient.register(new InetSocketAddress("127.0.0.1", fake.getLocalPort()), secret,
                        0, 1, new InetSocketAddress("127.0.0.1", 10_000), Duration.ofSeconds(60));
                synchronized (toClose) {
                    toClose.add(0, c);
                }
                return c;
            });
            try (java.net.Socket s = fake.accept()) {
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeInt(RendezvousProtocol.TABLE);
                out.writeInt(1);
                out.writeInt(9);
                out.write("127.0.0.1".getBytes(StandardCharsets.UTF_8));
                out.writeInt(10_000);
                out.flush();
                RendezvousClient c = client.get(10, TimeUnit.SECONDS);
                long start = System.nanoTime();
                assertThatThrownBy(() -> c.barrier("built")).isInstanceOf(CommException.class)
                        .hasMessageContaining("the rendezvous at 127.0.0.1:" + fake.getLocalPort() + " stopped answering");
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(30_000L);
            }
        }
    }

    /** A rendezvous that was itself not running (Ctrl-Z, a paused machine) does not blame the hosts for its silence. */
    @Test
    void silenceWhileTheRendezvousItselfWasStoppedIsForgiven() throws Exception {
        Rendezvous r = Rendezvous.unstarted("127.0.0.1", 0, secret, 1, Duration.ofSeconds(60));
        toClose.add(r);
        try (java.net.Socket member = new java.net.Socket(r.address().getAddress(), r.address().getPort())) {
            writeHello(new DataOutputStream(member.getOutputStream()), secret, 0, 1);
            for (int cycle = 0; cycle < 100 && r.unregistered().size() == 1; cycle++) {
                r.agent().doWork();
            }
            assertThat(r.unregistered()).isEmpty();
            Thread.sleep(RendezvousProtocol.SILENCE_MILLIS + 500); // the rendezvous "stopped": no duty cycle
            r.agent().doWork();
            r.agent().doWork();
            assertThat(r.failure()).as("the host is not blamed for the rendezvous' own pause").isEmpty();
        }
    }

    @Test
    void aMalformedMessageFromARegisteredHostAbortsTheJobNamingIt() throws Exception {
        Rendezvous r = rendezvous(1, Duration.ofSeconds(10));
        try (java.net.Socket member = new java.net.Socket(r.address().getAddress(), r.address().getPort())) {
            DataOutputStream out = new DataOutputStream(member.getOutputStream());
            writeHello(out, secret, 0, 1);
            out.writeInt(77);
            out.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (r.failure().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(r.failure()).hasValue("host 0 broke the rendezvous protocol: unknown message type 77");
        }
    }

    private static void writeHello(DataOutputStream out, JobSecret secret, int host, int hosts) throws java.io.IOException {
        out.writeInt(RendezvousProtocol.HELLO);
        out.writeInt(RendezvousProtocol.MAGIC);
        out.writeInt(RendezvousProtocol.VERSION);
        out.write(secret.bytes());
        out.writeInt(host);
        out.writeInt(hosts);
        out.writeInt(9);
        out.write("127.0.0.1".getBytes(StandardCharsets.UTF_8));
        out.writeInt(10_000 + host);
        out.flush();
    }

    private static List<String> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName).toList();
    }
}
