package org.eventspace.comm.launch;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.transport.tcp.JobSecret;

/**
 * Who this process is in a job and how it finds the others, read once from the environment at the edge.
 *
 * <p><b>Rank and size</b> of this host process come from the first of these pairs that is set:
 * <ol>
 *   <li>{@code ES_HOST} / {@code ES_HOSTS} — set by our {@link Launcher};</li>
 *   <li>{@code OMPI_COMM_WORLD_RANK} / {@code OMPI_COMM_WORLD_SIZE} — Open MPI's {@code mpirun};</li>
 *   <li>{@code SLURM_PROCID} / {@code SLURM_NTASKS} — Slurm's {@code srun};</li>
 *   <li>{@code PMI_RANK} / {@code PMI_SIZE} — MPICH/Hydra and other PMI launchers.</li>
 * </ol>
 * A pair with only one variable set, a non-integer, a size below 1 or a rank outside {@code 0..size-1} is
 * an error naming the variable.
 *
 * <p><b>Rendezvous</b>: the {@code --rendezvous host:port} flag if given, else {@code ES_RENDEZVOUS}
 * ({@code host:port}, IPv6 as {@code [addr]:port}). If neither is set but {@code ES_RENDEZVOUS_PORT} is — the
 * usual case under {@code mpirun} or {@code srun}, which cannot hand every process an address chosen at run
 * time — process 0 starts the rendezvous itself on that port, bound to {@code ES_RENDEZVOUS_HOST} (default
 * {@code 127.0.0.1}, i.e. a one-machine job; set it to process 0's address for several machines), and every
 * process connects there. Late starters are fine: clients retry until the rendezvous listens.
 * {@code ES_RENDEZVOUS_TIMEOUT_MS} bounds every rendezvous wait (default 60 000). {@code ES_LAUNCHER_PID}, set by our
 * {@link Launcher}, says the rendezvous listened before this process started: a refused connection then means the
 * launcher has ended, and is not retried.
 *
 * <p><b>Secret</b>: {@code ES_SECRET}, 64 hex digits, the same for every process (e.g.
 * {@code mpirun -x ES_SECRET=$(openssl rand -hex 32)}); always required.
 *
 * @param host              this process's host id, 0..hosts-1.
 * @param hosts             host processes in the job.
 * @param source            the variables rank and size came from, e.g. {@code "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE"}.
 * @param rendezvous        where to register (unresolved; resolved when connecting).
 * @param startsRendezvous  true if this process must start the rendezvous on {@code rendezvous}'s port.
 * @param secret            the job secret.
 * @param rendezvousTimeout bound on every rendezvous wait.
 * @param launcherPid       the process id of the {@link Launcher} that started this process, or 0 if another launcher did.
 */
public record JobEnvironment(int host, int hosts, String source, InetSocketAddress rendezvous, boolean startsRendezvous,
                             JobSecret secret, Duration rendezvousTimeout, long launcherPid) {
    public static final String ES_HOST = "ES_HOST";
    public static final String ES_HOSTS = "ES_HOSTS";
    public static final String ES_RENDEZVOUS = "ES_RENDEZVOUS";
    public static final String ES_RENDEZVOUS_PORT = "ES_RENDEZVOUS_PORT";
    public static final String ES_RENDEZVOUS_HOST = "ES_RENDEZVOUS_HOST";
    public static final String ES_RENDEZVOUS_TIMEOUT_MS = "ES_RENDEZVOUS_TIMEOUT_MS";
    public static final String ES_SECRET = "ES_SECRET";
    public static final String ES_LAUNCHER_PID = "ES_LAUNCHER_PID";
    public static final Duration DEFAULT_RENDEZVOUS_TIMEOUT = Duration.ofSeconds(60);

    /** Rank/size variable pairs in the order they are tried. */
    public static final List<List<String>> RANK_SIZE_VARIABLES = List.of(
            List.of(ES_HOST, ES_HOSTS),
            List.of("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
            List.of("SLURM_PROCID", "SLURM_NTASKS"),
            List.of("PMI_RANK", "PMI_SIZE"));

    public JobEnvironment {
        if (hosts < 1 || host < 0 || host >= hosts) {
            throw new IllegalArgumentException("host must be in 0..hosts-1 and hosts >= 1, host=" + host + ", hosts=" + hosts);
        }
        if (rendezvous == null || secret == null || rendezvousTimeout == null) {
            throw new IllegalArgumentException("rendezvous, secret and rendezvousTimeout are required");
        }
    }

    /** This process's environment, no flag. */
    public static JobEnvironment current() {
        return from(System.getenv(), null);
    }

    public static JobEnvironment from(Map<String, String> env) {
        return from(env, null);
    }

    /**
     * Reads the job environment from {@code env}; a pure function of its arguments.
     *
     * @param rendezvousFlag the {@code --rendezvous host:port} flag, or null if not given; wins over the variables.
     * @throws IllegalArgumentException naming the variable that is missing or garbled and what was expected.
     */
    public static JobEnvironment from(Map<String, String> env, String rendezvousFlag) {
        int host = -1;
        int hosts = -1;
        String source = null;
        for (List<String> pair : RANK_SIZE_VARIABLES) {
            String rankVar = pair.get(0);
            String sizeVar = pair.get(1);
            String rank = env.get(rankVar);
            String size = env.get(sizeVar);
            if (rank == null && size == null) {
                continue;
            }
            if (rank == null || size == null) {
                String missing = rank == null ? rankVar : sizeVar;
                String present = rank == null ? sizeVar : rankVar;
                throw new IllegalArgumentException(missing + " is not set but " + present + " is; both are needed");
            }
            hosts = integer(sizeVar, size, "the number of host processes, an integer >= 1");
            host = integer(rankVar, rank, "this process's rank, an integer in 0.." + (hosts - 1));
            if (hosts < 1) {
                throw new IllegalArgumentException(sizeVar + "=" + size + ": expected the number of host processes, an integer >= 1");
            }
            if (host < 0 || host >= hosts) {
                throw new IllegalArgumentException(rankVar + "=" + rank + ": expected this process's rank, an integer in 0.."
                        + (hosts - 1) + " (" + sizeVar + "=" + size + ")");
            }
            source = rankVar + "/" + sizeVar;
            break;
        }
        if (source == null) {
            throw new IllegalArgumentException("no rank and size in the environment: expected one of ES_HOST/ES_HOSTS "
                    + "(eventspace launcher), OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE (mpirun), SLURM_PROCID/SLURM_NTASKS "
                    + "(srun) or PMI_RANK/PMI_SIZE");
        }

        InetSocketAddress rendezvous;
        boolean starts = false;
        if (rendezvousFlag != null) {
            rendezvous = hostPort("--rendezvous", rendezvousFlag);
        } else if (env.get(ES_RENDEZVOUS) != null) {
            rendezvous = hostPort(ES_RENDEZVOUS, env.get(ES_RENDEZVOUS));
        } else if (env.get(ES_RENDEZVOUS_PORT) != null) {
            int port = integer(ES_RENDEZVOUS_PORT, env.get(ES_RENDEZVOUS_PORT), "a TCP port, 1..65535");
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException(ES_RENDEZVOUS_PORT + "=" + port + ": expected a TCP port, 1..65535");
            }
            String at = env.getOrDefault(ES_RENDEZVOUS_HOST, "127.0.0.1");
            if (at.isBlank()) {
                throw new IllegalArgumentException(ES_RENDEZVOUS_HOST + " is empty: expected process 0's address");
            }
            rendezvous = InetSocketAddress.createUnresolved(at, port);
            starts = host == 0;
        } else {
            throw new IllegalArgumentException("no rendezvous: expected --rendezvous host:port, " + ES_RENDEZVOUS
                    + "=host:port, or " + ES_RENDEZVOUS_PORT + "=port for process 0 to start one");
        }

        String hex = env.get(ES_SECRET);
        if (hex == null) {
            throw new IllegalArgumentException(ES_SECRET + " is not set: expected " + 2 * JobSecret.LENGTH
                    + " hex digits shared by every process of the job (e.g. $(openssl rand -hex " + JobSecret.LENGTH + "))");
        }
        JobSecret secret;
        try {
            secret = JobSecret.fromHex(hex.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(ES_SECRET + ": " + e.getMessage());
        }

        Duration timeout = DEFAULT_RENDEZVOUS_TIMEOUT;
        String timeoutText = env.get(ES_RENDEZVOUS_TIMEOUT_MS);
        if (timeoutText != null) {
            int ms = integer(ES_RENDEZVOUS_TIMEOUT_MS, timeoutText, "milliseconds, an integer >= 1");
            if (ms < 1) {
                throw new IllegalArgumentException(ES_RENDEZVOUS_TIMEOUT_MS + "=" + ms + ": expected milliseconds, an integer >= 1");
            }
            timeout = Duration.ofMillis(ms);
        }
        long launcherPid = 0;
        String pidText = env.get(ES_LAUNCHER_PID);
        if (pidText != null) {
            try {
                launcherPid = Long.parseLong(pidText.trim());
            } catch (NumberFormatException e) {
                launcherPid = -1;
            }
            if (launcherPid < 1) {
                throw new IllegalArgumentException(ES_LAUNCHER_PID + "='" + pidText + "': expected a process id, an integer >= 1");
            }
        }
        return new JobEnvironment(host, hosts, source, rendezvous, starts, secret, timeout, launcherPid);
    }

    /** True if the rendezvous may not listen yet when this process starts, so a refused connection is worth retrying. */
    public boolean rendezvousMayStartLate() {
        return launcherPid == 0;
    }

    /** The variables the {@link Launcher} gives host {@code host} of {@code hosts}. */
    public static Map<String, String> forHost(int host, int hosts, InetSocketAddress rendezvous, JobSecret secret) {
        return Map.of(ES_HOST, Integer.toString(host), ES_HOSTS, Integer.toString(hosts),
                ES_RENDEZVOUS, formatHostPort(rendezvous), ES_SECRET, secret.toHex(),
                ES_LAUNCHER_PID, Long.toString(ProcessHandle.current().pid()));
    }

    static String formatHostPort(InetSocketAddress address) {
        String h = address.getHostString();
        return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + address.getPort();
    }

    private static int integer(String variable, String text, String expected) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(variable + "='" + text + "': expected " + expected);
        }
    }

    private static InetSocketAddress hostPort(String variable, String text) {
        String t = text.trim();
        String expected = "expected host:port (IPv6 as [addr]:port) with a port in 1..65535";
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new IllegalArgumentException(variable + "='" + text + "': " + expected);
        }
        String h = t.substring(0, colon);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        } else if (h.indexOf(':') >= 0) {
            throw new IllegalArgumentException(variable + "='" + text + "': " + expected);
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (h.isEmpty() || port < 1 || port > 65_535) {
            throw new IllegalArgumentException(variable + "='" + text + "': " + expected);
        }
        return InetSocketAddress.createUnresolved(h, port);
    }

    @Override
    public String toString() {
        return "JobEnvironment{host=" + host + ", hosts=" + hosts + ", from " + source + ", rendezvous="
                + formatHostPort(rendezvous) + (startsRendezvous ? " (started here)" : "") + ", secret=" + secret + '}';
    }
}
