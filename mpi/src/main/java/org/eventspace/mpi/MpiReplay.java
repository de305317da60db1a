package org.eventspace.mpi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.eventspace.base.os.Executables;
import org.eventspace.base.os.NativeSources;
import org.eventspace.trace.Op;
import org.eventspace.trace.Trace;

/**
 * {@code trace replay} of an MPI program's trace on MPI itself: every rank's {@link MpiReplayProgram} is written to a
 * folder and interpreted by {@code es_replay} (native/replay/es_replay.c, built with {@code mpicc} on first use and
 * cached as {@link NativeLibrary} caches the interposition library: by implementation and the sources' and compiler's
 * SHA-256) under {@code mpirun -np <ranks>}, oversubscribed if the ranks outnumber the cores. Each rank reports its
 * wall time from MPI_Init to MPI_Finalize and its calls per op; {@link Result} sets them beside what the trace holds.
 */
public final class MpiReplay {
    static final String SOURCE = "es_replay.c";
    static final String EXECUTABLE = "es_replay";
    private static final long BUILD_TIMEOUT_S = 120;

    /** How the replay is launched: the MPI's launcher and compiler (checked to match) and more launcher arguments. */
    public record Launch(String mpirun, String mpicc, MpiImplementation mpi, List<String> mpirunArgs, long timeoutS) {
        public Launch {
            mpirunArgs = List.copyOf(mpirunArgs);
        }
    }

    /** One rank's report: wall time from before MPI_Init to after MPI_Finalize, compute waited, calls per op. */
    public record RankReport(int rank, long wallNanos, long computeNanos, long calls, Map<String, Long> byOp) {
    }

    /**
     * A replay's outcome: the launcher's exit code, each rank's report (missing ranks: none), and each rank's
     * expected calls per op (the programs'), for the comparison.
     */
    public record Result(int exit, List<RankReport> ranks, List<Map<Op, Long>> expected, List<String> command) {
        /** The longest rank's wall time: what the original's wall time ({@link Trace#wallNanos}) compares with. */
        public long wallNanos() {
            long w = 0;
            for (RankReport r : ranks) {
                w = Math.max(w, r.wallNanos());
            }
            return w;
        }

        /** Whether every rank reported and re-issued exactly its program's calls, op by op. */
        public boolean complete() {
            if (exit != 0 || ranks.size() != expected.size()) {
                return false;
            }
            for (RankReport r : ranks) {
                Map<String, Long> want = new LinkedHashMap<>();
                expected.get(r.rank()).forEach((op, n) -> want.put(op.fileName(), n));
                if (!want.equals(r.byOp())) {
                    return false;
                }
            }
            return true;
        }
    }

    private MpiReplay() {
    }

    /**
     * Compiles {@code trace} into one program per rank in {@code dir}, builds the replayer if needed and runs it.
     *
     * @throws IllegalArgumentException if the trace holds a call the replayer cannot issue (every refusal named, with
     *                                  its count), or the launcher and compiler belong to different MPIs.
     * @throws IOException              if the replayer cannot be built or mpirun started.
     */
    public static Result run(Trace trace, Path dir, Launch launch) throws IOException, InterruptedException {
        List<String> refused = MpiReplayProgram.refusals(trace);
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException("the MPI replayer cannot issue " + String.join("; ", refused));
        }
        MpiImplementation mpi = MpiImplementation.matching(launch.mpirun(), launch.mpicc(), launch.mpi());
        Path replayer = ensureBuilt(launch.mpicc(), mpi);
        Files.createDirectories(dir);
        List<Map<Op, Long>> expected = new ArrayList<>();
        for (int r = 0; r < trace.ranks(); r++) {
            MpiReplayProgram p = MpiReplayProgram.of(trace, r);
            Files.writeString(dir.resolve("rank-" + r + ".program"), p.text());
            Files.deleteIfExists(dir.resolve("rank-" + r + ".report"));
            expected.add(p.calls());
        }
        List<String> command = new ArrayList<>(List.of(launch.mpirun(), "-np", String.valueOf(trace.ranks())));
        if (mpi.needsOversubscribe() && trace.ranks() > Runtime.getRuntime().availableProcessors()
                && !launch.mpirunArgs().contains("--oversubscribe")) {
            command.add("--oversubscribe");
        }
        command.addAll(launch.mpirunArgs());
        command.add(replayer.toString());
        command.add(dir.toAbsolutePath().toString());
        ProcessBuilder pb = new ProcessBuilder(JobControl.ownSession(command)).inheritIO()
                .redirectOutput(ProcessBuilder.Redirect.INHERIT);
        MpiRun.allowRoot(pb, mpi);
        Process p = pb.start();
        int exit;
        try {
            if (!p.waitFor(launch.timeoutS(), TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                throw new IOException("the replay did not end within " + launch.timeoutS() + " s: " + String.join(" ", command));
            }
            exit = p.exitValue();
        } catch (InterruptedException e) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw e;
        }
        List<RankReport> reports = new ArrayList<>();
        for (int r = 0; r < trace.ranks(); r++) {
            Path f = dir.resolve("rank-" + r + ".report");
            if (Files.isRegularFile(f)) {
                reports.add(report(f));
            }
        }
        return new Result(exit, reports, expected, command);
    }

    /** Reads one rank's report ({@code eventspace.mpi-replay-report/1}, written by es_replay.c). */
    static RankReport report(Path f) throws IOException {
        List<String> lines = Files.readAllLines(f);
        if (lines.isEmpty() || !lines.get(0).equals("eventspace.mpi-replay-report/1")) {
            throw new IOException(f + ": line 1: expected eventspace.mpi-replay-report/1");
        }
        int rank = -1;
        long wall = -1, compute = -1, calls = -1;
        Map<String, Long> byOp = new LinkedHashMap<>();
        for (int i = 1; i < lines.size(); i++) {
            String[] w = lines.get(i).trim().split("\\s+");
            try {
                switch (w[0]) {
                    case "rank" -> rank = Integer.parseInt(w[1]);
                    case "wall_ns" -> wall = Long.parseLong(w[1]);
                    case "compute_ns" -> compute = Long.parseLong(w[1]);
                    case "calls" -> calls = Long.parseLong(w[1]);
                    case "op" -> byOp.put(w[1], Long.parseLong(w[2]));
                    default -> throw new IOException(f + ": line " + (i + 1) + ": expected rank, wall_ns, compute_ns, calls "
                            + "or op, got '" + lines.get(i) + "'");
                }
            } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
                throw new IOException(f + ": line " + (i + 1) + ": expected a name and an integer, got '" + lines.get(i) + "'");
            }
        }
        if (rank < 0 || wall < 0 || compute < 0 || calls < 0) {
            throw new IOException(f + ": expected rank, wall_ns, compute_ns and calls");
        }
        return new RankReport(rank, wall, compute, calls, byOp);
    }

    /**
     * The replayer's path, built with {@code mpicc} into the cache ({@link NativeLibrary#cacheRoot}) if this source was
     * not built with this compiler yet.
     *
     * @throws IOException if {@code mpicc} is missing or fails (its output is in the message).
     */
    static Path ensureBuilt(String mpicc, MpiImplementation mpi) throws IOException {
        NativeSources sources = NativeSources.read(MpiReplay.class, "/native/replay/", SOURCE);
        Path compiler = Executables.find(mpicc);
        Path dir = sources.folder("replay-" + mpi.flag(), mpi.flag() + "\0" + (compiler != null ? compiler.toRealPath() : mpicc));
        Path executable = dir.resolve(EXECUTABLE);
        if (Files.isExecutable(executable)) {
            return executable;
        }
        sources.writeTo(dir);
        Path partial = Files.createTempFile(dir, EXECUTABLE, ".partial");
        List<String> command = List.of(mpicc, "-O2", "-std=c11", "-o", partial.toString(), dir.resolve(SOURCE).toString());
        Process p;
        try {
            p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot run " + mpicc + " to build the MPI replayer (is MPI installed?): " + e.getMessage(), e);
        }
        try {
            byte[] output = p.getInputStream().readAllBytes();
            if (!p.waitFor(BUILD_TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(mpicc + " did not build the MPI replayer within " + BUILD_TIMEOUT_S + " s");
            }
            if (p.exitValue() != 0) {
                Files.deleteIfExists(partial);
                throw new IOException("building the MPI replayer failed: " + String.join(" ", command) + "\n"
                        + new String(output, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while building the MPI replayer", e);
        }
        if (!partial.toFile().setExecutable(true)) {
            throw new IOException("cannot make " + partial + " executable");
        }
        Files.move(partial, executable, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return executable;
    }
}
