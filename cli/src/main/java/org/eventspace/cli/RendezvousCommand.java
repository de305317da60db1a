package org.eventspace.cli;

import java.time.Duration;
import java.util.concurrent.Callable;

import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.launch.Rendezvous;
import org.eventspace.comm.transport.tcp.JobSecret;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code eventspace rendezvous --hosts N}: a stand-alone rendezvous for jobs started by another launcher
 * across machines (Slurm, mpirun): prints the variables the host processes need, then serves them until
 * every host finished or the job aborted.
 */
@Command(name = "rendezvous", mixinStandardHelpOptions = true,
        description = "Run a job's rendezvous on its own (for host processes started by srun, mpirun or by hand).")
final class RendezvousCommand implements Callable<Integer> {
    @Option(names = "--hosts", required = true, description = "Host processes the job has.")
    int hosts;

    @Option(names = "--bind", defaultValue = "127.0.0.1", description = "Address to listen on. Default: ${DEFAULT-VALUE}.")
    String bind;

    @Option(names = "--port", defaultValue = "0", description = "Port to listen on; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(names = "--timeout", defaultValue = "3600", description = "Seconds to wait for the job to finish. Default: ${DEFAULT-VALUE}.")
    long timeoutSeconds;

    @Override
    public Integer call() throws InterruptedException {
        if (hosts < 1) {
            throw new UsageError("--hosts must be >= 1, got " + hosts);
        }
        if (port < 0 || port > 65_535) {
            throw new UsageError("--port must be 0..65535, got " + port);
        }
        if (timeoutSeconds < 1) {
            throw new UsageError("--timeout must be >= 1 second, got " + timeoutSeconds);
        }
        String given = System.getenv(JobEnvironment.ES_SECRET);
        JobSecret secret;
        try {
            secret = given != null ? JobSecret.fromHex(given) : JobSecret.random();
        } catch (IllegalArgumentException e) {
            throw new UsageError(JobEnvironment.ES_SECRET + ": " + e.getMessage());
        }
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        try (Rendezvous rendezvous = Rendezvous.start(bind, port, secret, hosts, timeout)) {
            System.out.println(JobEnvironment.ES_RENDEZVOUS + "=" + bind + ":" + rendezvous.address().getPort());
            if (given == null) {
                System.out.println(JobEnvironment.ES_SECRET + "=" + secret.toHex());
            }
            System.out.flush();
            boolean done = rendezvous.awaitAllDone(timeout);
            if (!done) {
                System.err.println("eventspace: job did not finish: " + rendezvous.failure().orElse("timed out after "
                        + timeoutSeconds + " s"));
                return EventSpaceCommand.EXIT_FAILURE;
            }
            System.err.println("eventspace: all " + hosts + " hosts finished");
            return EventSpaceCommand.EXIT_OK;
        }
    }
}
