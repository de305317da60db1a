package org.eventspace.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.PathComm;
import org.eventspace.comm.runtime.WrapperKind;
import org.eventspace.comm.runtime.WrapperKinds;
import org.eventspace.comm.transport.tcp.JobSecret;
import org.eventspace.comm.transport.tcp.TcpOptions;
import org.eventspace.comm.transport.tcp.TcpServer;
import org.eventspace.comm.transport.tcp.TcpTransport;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.EventSpace;
import org.eventspace.base.stats.StatisticsSummary;
import org.eventspace.scope.filter.Packet;
import org.eventspace.scope.filter.ScopeRecord;
import org.eventspace.scope.filter.StatsResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An event scope over real TCP sockets on loopback: three hosts in this JVM, each with its own {@link TcpServer}
 * (ephemeral port) and {@link HostRuntime}, joined by a {@link TcpTransport} the way {@code TcpHost} joins host
 * processes. The {@code kary:2} scope over h0, h1, h2 with its front-end on h0 is {@code root(h0) ← [gather(h0) ←
 * [leaf h0, leaf h1], leaf h2]}: the root's and the gather's remote children are reached through hops of their
 * own, one connection and one service thread each, opened with the application's hops.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpScopeTest {
    private static final int HOSTS = 3;
    private static final int RANKS = 6;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<TcpServer> servers = new ArrayList<>();
    private final List<HostRuntime> hosts = new ArrayList<>();
    private EventSpace[] spaces;
    private PushBuffer[] pushes;

    @AfterEach
    void closeEverything() throws Exception {
        servers.forEach(TcpServer::expectDisconnects);
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        assertThat(ScopedJob.awaitNoScopeHelpers()).isEmpty();
    }

    private Pathmap startHosts(String gather) {
        return startHosts(gather, leaf -> leaf);
    }

    private Pathmap startHosts(String gather, Function<ScopeLeafKind, WrapperKind> leafKind) {
        Pathmap pathmap = ScopedJob.pathmap(HOSTS, RANKS, ScopeSpec.of("kary:2", gather, "stats", 0));
        spaces = new EventSpace[HOSTS];
        pushes = new PushBuffer[HOSTS];
        for (int h = 0; h < HOSTS; h++) {
            spaces[h] = EventSpace.direct("h" + h, 32L << 20, 4096);
            pushes[h] = new PushBuffer("h" + h, 1024, PushBuffer.Policy.DROP, Duration.ofSeconds(1));
            toClose.add(spaces[h]);
        }
        WrapperKinds kinds = WrapperKinds.builtIn().with(new CollectorKind(host -> spaces[host.host()]))
                .with(new ScopeGatherKind())
                .with(leafKind.apply(new ScopeLeafKind(host -> new ScopeHost(spaces[host.host()], pushes[host.host()]))));
        CommOptions options = CommOptions.defaults(pathmap.busyThreads()).withTimeout(ScopedJob.TIMEOUT).withKinds(kinds);
        JobSecret secret = JobSecret.random();
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (int h = 0; h < HOSTS; h++) {
            HostRuntime host = new HostRuntime(pathmap, h, options);
            TcpServer server = TcpServer.start(host, secret, TcpOptions.defaults());
            hosts.add(host);
            servers.add(server);
            toClose.add(server);
            toClose.add(host);
            addresses.add(server.address());
        }
        // Phase 1 on every host before any hop opens, as TcpHost's "built" barrier ensures across processes.
        hosts.forEach(HostRuntime::build);
        TcpTransport transport = new TcpTransport(addresses, secret, TcpOptions.defaults());
        toClose.add(transport);
        for (HostRuntime host : hosts) {
            host.connect(transport);
        }
        return pathmap;
    }

    @ParameterizedTest
    @ValueSource(strings = {"seq", "par:2"})
    void roundsPulledOverTcpGatherEveryTupleAndEveryPushedRecord(String gather) throws Exception {
        Pathmap pathmap = startHosts(gather);
        Node root = ScopeBuilder.root(pathmap, "scope");
        assertThat(Arrays.stream(ScopeBuilder.children(root)).mapToObj(id -> pathmap.node(id).name()))
                .containsExactly("scope.gather.h0.0", "scope.leaf.h2");
        EventScope scope = EventScope.on(hosts.get(0));
        toClose.add(scope);
        scope.open();
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .contains("es-serve-h0->h2:scope.leaf.h2[0]", "es-serve-h0->h1:scope.leaf.h1[0]");

        ExecutorService ranks = ScopedJob.daemons("tcp-rank", RANKS);
        List<ScopeRound> rounds = new ArrayList<>();
        try {
            List<Future<Long>> results = new ArrayList<>();
            for (int r = 0; r < RANKS; r++) {
                Comm comm = new PathComm(r, hosts.get(pathmap.spec().hostOf(r)));
                int rank = r;
                PushBuffer push = pushes[pathmap.spec().hostOf(r)];
                results.add(ranks.submit(() -> {
                    long last = 0;
                    for (int i = 0; i < 200; i++) {
                        last = comm.allreduce(1L, ReduceOp.SUM);
                        push.offer(new ScopeRecord(rank, "iteration", i, i));
                    }
                    return last;
                }));
            }
            while (!results.stream().allMatch(Future::isDone)) {
                rounds.add(scope.pull());
                Thread.sleep(2);
            }
            for (Future<Long> f : results) {
                assertThat(f.get(1, TimeUnit.SECONDS)).isEqualTo(RANKS);
            }
        } finally {
            ScopedJob.stop(ranks);
        }
        rounds.add(scope.pull());

        long written = 0;
        for (EventSpace s : spaces) {
            written += s.tuplesWritten();
        }
        long pushed = (long) RANKS * 200;
        long pushDrops = 0;
        for (PushBuffer p : pushes) {
            pushDrops += p.dropped();
        }
        assertThat(rounds.stream().mapToLong(ScopeRound::recordsProduced).sum()).isEqualTo(written + pushed);
        assertThat(rounds.stream().mapToLong(ScopeRound::recordsDropped).sum()).isEqualTo(pushDrops).isZero();
        assertThat(rounds.stream().mapToLong(ScopeRound::recordsGathered).sum()).isEqualTo(written + pushed);
        ScopeRound last = rounds.get(rounds.size() - 1);
        assertThat(last.bytesPerLevel()).hasSize(3);
        // The statistics of "iteration" over all rounds count every pushed record once.
        long iterations = 0;
        for (ScopeRound r : rounds) {
            Map<String, StatisticsSummary> events = ((StatsResult) r.result()).events();
            if (events.containsKey("iteration")) {
                iterations += events.get("iteration").count();
            }
        }
        assertThat(iterations).isEqualTo(pushed);
        scope.close();
    }

    @Test
    void aRemoteLeafThatThrowsIsNamedAcrossTheWireAndDoesNotHang() {
        Pathmap pathmap = startHosts("par:2", real -> new InJvmScopeTest.FailingLeafKind(real, 2, Packet.PULL, Duration.ZERO));
        EventScope scope = EventScope.on(hosts.get(0));
        toClose.add(scope);
        scope.open();
        long start = System.nanoTime();
        assertThatThrownBy(scope::pull).isInstanceOf(CommException.class)
                .hasMessageStartingWith("scope gather scope.root.h0: child scope.leaf.h2 on host h2 failed: ")
                .hasMessageEndingWith("hop h0->h2:scope.leaf.h2[0] failed on host h2: leaf h2 is on fire");
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
        assertThat(pathmap.node(ScopeBuilder.children(ScopeBuilder.root(pathmap, "scope"))[1]).host()).isEqualTo(2);
        // The hop lives on: FIN reaches the leaf over it, and the scope can open and fail again.
        scope.close();
        scope.open();
        assertThatThrownBy(scope::pull).hasMessageContaining("leaf h2 is on fire");
        scope.close();
    }
}
