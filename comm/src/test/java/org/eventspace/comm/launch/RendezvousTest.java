package org.eventspace.comm.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
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
    void theAcceptAndMemberAgentsCanBeSteppedByHand() throws Exception {
        Rendezvous r = Rendezvous.unstarted("127.0.0.1", 0, secret, 1, Duration.ofSeconds(10));
        toClose.add(r);
        Agent acceptor = r.acceptor();
        assertThat(acceptor.roleName()).isEqualTo("es-rendezvous");
        Future<RendezvousClient> client = register(r, secret, 0, 1, Duration.ofSeconds(10));
        int accepted = 0;
        for (int cycle = 0; cycle < 200 && accepted == 0; cycle++) {
            accepted = acceptor.doWork();
        }
        assertThat(accepted).as("a duty cycle accepted the process (each waits at most 50 ms)").isEqualTo(1);
        assertThat(r.memberAgents()).hasSize(1);
        Agent member = r.memberAgents().get(0);
        assertThat(member.roleName()).startsWith("es-rendezvous-/127.0.0.1:");
        assertThat(member.doWork()).as("the registration").isEqualTo(1);
        RendezvousClient c = client.get(10, TimeUnit.SECONDS);
        assertThat(c.addresses()).extracting(InetSocketAddress::getPort).containsExactly(10_000);

        Future<?> done = pool.submit(() -> c.done("{\"by\":\"hand\"}"));
        assertThat(member.doWork()).as("one message: done").isEqualTo(1);
        done.get(10, TimeUnit.SECONDS);
        assertThat(r.allDone()).isTrue();
        assertThat(r.results()).containsExactly("{\"by\":\"hand\"}");
    }

    @Test
    void theAcceptAgentsIdleCycleRunsTheWatchdog() throws Exception {
        Rendezvous r = Rendezvous.unstarted("127.0.0.1", 0, secret, 2, Duration.ofMillis(100));
        toClose.add(r);
        Thread.sleep(150);
        assertThat(r.acceptor().doWork()).as("nobody connected; the watchdog aborted the job").isEqualTo(1);
        assertThat(r.failure()).hasValueSatisfying(f -> assertThat(f).contains("hosts [0, 1] of 2 did not register"));
        assertThat(r.acceptor().doWork()).as("nothing more to do").isZero();
    }

    @Test
    void closingEndsTheAgentThreadsWithinTheBound() throws Exception {
        Rendezvous r = rendezvous(2, Duration.ofSeconds(10));
        register(r, secret, 0, 2, Duration.ofSeconds(10));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (threadNames().stream().noneMatch(n -> n.startsWith("es-rendezvous-/")) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(threadNames()).contains("es-rendezvous").anyMatch(n -> n.startsWith("es-rendezvous-/"));
        long start = System.nanoTime();
        r.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        assertThat(threadNames()).noneMatch(n -> n.equals("es-rendezvous") || n.startsWith("es-rendezvous-/"));
    }

    private static List<String> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName).toList();
    }
}
