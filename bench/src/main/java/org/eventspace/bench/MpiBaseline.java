package org.eventspace.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.base.json.Json;
import org.eventspace.comm.launch.CpuBinding;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Runs the Open MPI baseline ({@code bench/mpi/run-baseline.sh}, which installs Open MPI and builds the C
 * programs when needed) and reads the one JSON line it prints.
 */
public final class MpiBaseline {
    private final Path script;

    public MpiBaseline(Path projectHome) {
        this.script = projectHome.resolve("bench/mpi/run-baseline.sh");
        if (!Files.isRegularFile(script)) {
            throw new IllegalArgumentException("Open MPI baseline script not found at " + script
                    + " (set ES_HOME to the project folder)");
        }
    }

    /**
     * Runs one configuration.
     *
     * @param benchmark {@code allreduce} or {@code pingpong}.
     * @param btl       {@code shm} or {@code tcp}.
     */
    public JsonNode run(String benchmark, int processes, String btl, int iterations) {
        return run(benchmark, processes, btl, iterations, null);
    }

    /** As above, with mpirun binding the ranks as {@code binding} says ({@code --bind-to core} or {@code none}); null: mpirun's default. */
    public JsonNode run(String benchmark, int processes, String btl, int iterations, CpuBinding binding) {
        List<String> command = new ArrayList<>(List.of("bash", script.toString(), benchmark, "--np",
                Integer.toString(processes), "--btl", btl, "--iterations", Integer.toString(iterations)));
        if (binding != null) {
            command.addAll(List.of("--bind", binding.label()));
        }
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(10, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException("Open MPI baseline did not finish in 10 minutes: " + command);
            }
            String text = new String(out, StandardCharsets.UTF_8).trim();
            if (process.exitValue() != 0 || text.isEmpty()) {
                throw new IllegalStateException("Open MPI baseline failed (exit " + process.exitValue() + "): " + command);
            }
            String last = text.substring(text.lastIndexOf('\n') + 1);
            return Json.mapper().readTree(last);
        } catch (IOException e) {
            throw new IllegalStateException("could not run " + command + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running the Open MPI baseline", e);
        }
    }
}
