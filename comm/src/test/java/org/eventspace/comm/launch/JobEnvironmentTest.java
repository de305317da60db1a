package org.eventspace.comm.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.eventspace.comm.transport.tcp.JobSecret;
import org.junit.jupiter.api.Test;

class JobEnvironmentTest {
    private static final String SECRET = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    private static Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void ourOwnVariables() {
        JobEnvironment e = JobEnvironment.from(env("ES_HOST", "2", "ES_HOSTS", "4", "ES_RENDEZVOUS", "10.0.0.5:4711",
                "ES_SECRET", SECRET));
        assertThat(e.host()).isEqualTo(2);
        assertThat(e.hosts()).isEqualTo(4);
        assertThat(e.source()).isEqualTo("ES_HOST/ES_HOSTS");
        assertThat(e.rendezvous().getHostString()).isEqualTo("10.0.0.5");
        assertThat(e.rendezvous().getPort()).isEqualTo(4711);
        assertThat(e.startsRendezvous()).isFalse();
        assertThat(e.secret()).isEqualTo(JobSecret.fromHex(SECRET));
        assertThat(e.rendezvousTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(e.toString()).doesNotContain(SECRET);
    }

    @Test
    void openMpi() {
        JobEnvironment e = JobEnvironment.from(env("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2",
                "ES_RENDEZVOUS", "node7:5000", "ES_SECRET", SECRET));
        assertThat(e.host()).isEqualTo(1);
        assertThat(e.hosts()).isEqualTo(2);
        assertThat(e.source()).isEqualTo("OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE");
    }

    @Test
    void slurm() {
        JobEnvironment e = JobEnvironment.from(env("SLURM_PROCID", "0", "SLURM_NTASKS", "16", "ES_RENDEZVOUS", "[::1]:5000",
                "ES_SECRET", SECRET));
        assertThat(e.host()).isZero();
        assertThat(e.hosts()).isEqualTo(16);
        assertThat(e.source()).isEqualTo("SLURM_PROCID/SLURM_NTASKS");
        assertThat(e.rendezvous().getHostString()).isEqualTo("::1");
    }

    @Test
    void pmi() {
        JobEnvironment e = JobEnvironment.from(env("PMI_RANK", "3", "PMI_SIZE", "5", "ES_RENDEZVOUS", "h:1", "ES_SECRET", SECRET));
        assertThat(e.host()).isEqualTo(3);
        assertThat(e.source()).isEqualTo("PMI_RANK/PMI_SIZE");
    }

    @Test
    void ourVariablesWinOverTheLaunchersAndMpiOverSlurm() {
        assertThat(JobEnvironment.from(env("ES_HOST", "1", "ES_HOSTS", "2", "OMPI_COMM_WORLD_RANK", "0",
                "OMPI_COMM_WORLD_SIZE", "8", "ES_RENDEZVOUS", "h:1", "ES_SECRET", SECRET)).hosts()).isEqualTo(2);
        assertThat(JobEnvironment.from(env("SLURM_PROCID", "1", "SLURM_NTASKS", "4", "OMPI_COMM_WORLD_RANK", "0",
                "OMPI_COMM_WORLD_SIZE", "8", "ES_RENDEZVOUS", "h:1", "ES_SECRET", SECRET)).hosts()).isEqualTo(8);
    }

    @Test
    void processZeroStartsTheRendezvousWhenOnlyAPortIsGiven() {
        JobEnvironment zero = JobEnvironment.from(env("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2",
                "ES_RENDEZVOUS_PORT", "47000", "ES_SECRET", SECRET, "ES_RENDEZVOUS_TIMEOUT_MS", "1500"));
        assertThat(zero.startsRendezvous()).isTrue();
        assertThat(zero.rendezvous().getHostString()).isEqualTo("127.0.0.1");
        assertThat(zero.rendezvous().getPort()).isEqualTo(47000);
        assertThat(zero.rendezvousTimeout()).isEqualTo(Duration.ofMillis(1500));
        JobEnvironment one = JobEnvironment.from(env("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2",
                "ES_RENDEZVOUS_PORT", "47000", "ES_RENDEZVOUS_HOST", "node0", "ES_SECRET", SECRET));
        assertThat(one.startsRendezvous()).isFalse();
        assertThat(one.rendezvous().getHostString()).isEqualTo("node0");
    }

    @Test
    void theFlagWinsOverTheVariable() {
        JobEnvironment e = JobEnvironment.from(env("ES_HOST", "0", "ES_HOSTS", "1", "ES_RENDEZVOUS", "a:1", "ES_SECRET", SECRET), "b:2");
        assertThat(e.rendezvous().getHostString()).isEqualTo("b");
        assertThat(e.rendezvous().getPort()).isEqualTo(2);
    }

    @Test
    void forHostRoundTrips() {
        JobSecret secret = JobSecret.random();
        Map<String, String> vars = JobEnvironment.forHost(1, 3, new java.net.InetSocketAddress("127.0.0.1", 9999), secret);
        JobEnvironment e = JobEnvironment.from(vars);
        assertThat(e.host()).isEqualTo(1);
        assertThat(e.hosts()).isEqualTo(3);
        assertThat(e.rendezvous().getPort()).isEqualTo(9999);
        assertThat(e.secret()).isEqualTo(secret);
        assertThat(e.launcherPid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(e.rendezvousMayStartLate()).as("our launcher's rendezvous listens before its hosts start").isFalse();
    }

    @Test
    void aGarbledLauncherPidIsNamed() {
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_HOST", "0", "ES_HOSTS", "1", "ES_RENDEZVOUS", "h:1",
                "ES_SECRET", SECRET, "ES_LAUNCHER_PID", "-3")))
                .hasMessage("ES_LAUNCHER_PID='-3': expected a process id, an integer >= 1");
    }

    @Test
    void garbageNamesTheVariableAndWhatWasExpected() {
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_SECRET", SECRET, "ES_RENDEZVOUS", "h:1")))
                .hasMessageContaining("no rank and size").hasMessageContaining("OMPI_COMM_WORLD_RANK").hasMessageContaining("SLURM_PROCID");
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_HOST", "1", "ES_RENDEZVOUS", "h:1", "ES_SECRET", SECRET)))
                .hasMessage("ES_HOSTS is not set but ES_HOST is; both are needed");
        assertThatThrownBy(() -> JobEnvironment.from(env("SLURM_PROCID", "x1", "SLURM_NTASKS", "4", "ES_RENDEZVOUS", "h:1",
                "ES_SECRET", SECRET)))
                .hasMessage("SLURM_PROCID='x1': expected this process's rank, an integer in 0..3");
        assertThatThrownBy(() -> JobEnvironment.from(env("PMI_RANK", "4", "PMI_SIZE", "4", "ES_RENDEZVOUS", "h:1", "ES_SECRET", SECRET)))
                .hasMessageContaining("PMI_RANK=4: expected this process's rank, an integer in 0..3");
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_HOST", "0", "ES_HOSTS", "0", "ES_RENDEZVOUS", "h:1", "ES_SECRET", SECRET)))
                .hasMessageContaining("ES_HOSTS=0: expected the number of host processes, an integer >= 1");
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_HOST", "0", "ES_HOSTS", "2", "ES_RENDEZVOUS", "nohostport", "ES_SECRET", SECRET)))
                .hasMessageContaining("ES_RENDEZVOUS='nohostport': expected host:port");
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_HOST", "0", "ES_HOSTS", "2", "ES_RENDEZVOUS", "h:99999", "ES_SECRET", SECRET)))
                .hasMessageContaining("ES_RENDEZVOUS='h:99999'");
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_HOST", "0", "ES_HOSTS", "2", "ES_SECRET", SECRET)))
                .hasMessageContaining("no rendezvous").hasMessageContaining("ES_RENDEZVOUS_PORT");
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_HOST", "0", "ES_HOSTS", "2", "ES_RENDEZVOUS_PORT", "http", "ES_SECRET", SECRET)))
                .hasMessageContaining("ES_RENDEZVOUS_PORT='http': expected a TCP port");
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_HOST", "0", "ES_HOSTS", "2", "ES_RENDEZVOUS", "h:1")))
                .hasMessageContaining("ES_SECRET is not set: expected 64 hex digits");
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_HOST", "0", "ES_HOSTS", "2", "ES_RENDEZVOUS", "h:1", "ES_SECRET", "abc")))
                .hasMessageContaining("ES_SECRET: a job secret is 64 hex digits").hasMessageContaining("got 3 characters");
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_HOST", "0", "ES_HOSTS", "2", "ES_RENDEZVOUS", "h:1",
                "ES_SECRET", "z".repeat(64)))).hasMessageContaining("non-hex").hasMessageNotContaining("zzzz");
        assertThatThrownBy(() -> JobEnvironment.from(env("ES_HOST", "0", "ES_HOSTS", "2", "ES_RENDEZVOUS", "h:1", "ES_SECRET", SECRET,
                "ES_RENDEZVOUS_TIMEOUT_MS", "soon"))).hasMessageContaining("ES_RENDEZVOUS_TIMEOUT_MS='soon': expected milliseconds");
    }
}
