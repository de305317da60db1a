package org.eventspace.cli;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.eventspace.base.json.Json;
import org.eventspace.base.os.Executables;
import org.eventspace.mpi.MpiImplementation;
import org.eventspace.mpi.MpiReplay;
import org.eventspace.mpi.MpiReplayProgram;
import org.eventspace.trace.Op;
import org.eventspace.trace.Trace;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine;

/**
 * The MPI branch of {@code trace replay}: an MPI program's trace re-issued on MPI under {@code mpirun}
 * ({@link MpiReplay}); prints each rank's wall time and the job's against the original's, and refuses before launch a
 * trace with calls the replayer cannot issue, naming each with its count.
 */
final class MpiTraceReplay {
    private final CommandLine.Model.CommandSpec spec;
    private final Path file;
    private final Trace trace;
    private final Path json;

    MpiTraceReplay(CommandLine.Model.CommandSpec spec, Path file, Trace trace, Path json) {
        this.spec = spec;
        this.file = file;
        this.trace = trace;
        this.json = json;
    }

    int run(String mpi, String mpirun, String mpicc, List<String> mpirunArgs, double timeoutSeconds) throws IOException {
        List<String> refused = MpiReplayProgram.refusals(trace);
        if (!refused.isEmpty()) {
            throw new UsageError("trace replay: " + file + ": the MPI replayer cannot issue these calls (nothing was "
                    + "started):\n  " + String.join("\n  ", refused));
        }
        if (json != null) {
            OutputFiles.checkWritable(json, "--json");
        }
        MpiImplementation declared;
        try {
            declared = mpi.equals("auto") ? null : MpiImplementation.of(mpi);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
        if (mpirun == null) {
            mpirun = declared != null ? declared.launcherOnPath() : "mpirun";
        }
        if (Executables.find(mpirun) == null) {
            throw new UsageError("--mpirun '" + mpirun + "' is not " + (mpirun.contains(File.separator)
                    ? "an executable file" : "on the PATH") + " (is MPI installed?)");
        }
        MpiImplementation implementation;
        try {
            if (mpicc == null) {
                MpiImplementation launcher = declared != null ? declared : MpiImplementation.ofLauncher(mpirun);
                mpicc = launcher.compilerBeside(Executables.find(mpirun));
            }
            implementation = MpiImplementation.matching(mpirun, mpicc, declared);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
        long timeoutS = Math.max(1, Math.round(timeoutSeconds));
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        err.println("eventspace: trace replay: " + file + ": " + trace.eventsRecorded() + " calls on " + trace.ranks()
                + " ranks, under " + mpirun + " (" + implementation.flag() + ")");
        err.flush();
        Path dir = Files.createTempDirectory("eventspace-mpi-replay");
        MpiReplay.Result result;
        try {
            result = MpiReplay.run(trace, dir, new MpiReplay.Launch(mpirun, mpicc, implementation, mpirunArgs, timeoutS));
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while replaying " + file, e);
        } finally {
            deleteTree(dir);
        }
        boolean complete = result.complete();
        long calls = 0;
        for (MpiReplay.RankReport r : result.ranks()) {
            calls += r.calls();
        }
        double replayS = result.wallNanos() / 1e9;
        double originalS = trace.wallNanos() / 1e9;
        double errorPct = originalS > 0 ? (replayS - originalS) / originalS * 100 : 0;
        out.printf("replay of %s: %d ranks under %s, %d calls re-issued (recorded %d)%n", file, trace.ranks(),
                implementation.flag(), calls, trace.eventsRecorded());
        for (MpiReplay.RankReport r : result.ranks()) {
            out.printf("  rank %d: wall %.3f s (MPI_Init to MPI_Finalize), compute waited %.3f s, %d calls%n", r.rank(),
                    r.wallNanos() / 1e9, r.computeNanos() / 1e9, r.calls());
        }
        if (complete) {
            out.printf("  wall time: replay %.3f s, original %.3f s, error %+.1f %%%n", replayS, originalS, errorPct);
        } else {
            out.printf("  wall time: not compared, the replay did not complete (exit %d, %d of %d ranks reported, "
                    + "calls per op %s); original %.3f s%n", result.exit(), result.ranks().size(), trace.ranks(),
                    result.ranks().size() == trace.ranks() ? "differ from the trace's" : "unknown", originalS);
        }
        out.flush();
        if (json != null) {
            ObjectNode o = Json.mapper().createObjectNode();
            o.put("schema", "eventspace.trace-replay/1");
            o.put("trace", file.toString());
            o.put("ranks", trace.ranks());
            o.put("transport", "mpi");
            o.put("mpi", implementation.flag());
            o.put("compute", "spin");
            o.put("time_encoding", trace.encoding().fileName());
            o.put("calls", calls);
            o.put("complete", complete);
            o.put("original_wall_s", originalS);
            if (complete) {
                o.put("replay_wall_s", replayS);
                o.put("error_pct", errorPct);
            }
            ArrayNode perRank = o.putArray("per_rank");
            for (MpiReplay.RankReport r : result.ranks()) {
                ObjectNode rank = perRank.addObject();
                rank.put("rank", r.rank());
                rank.put("wall_s", r.wallNanos() / 1e9);
                rank.put("compute_s", r.computeNanos() / 1e9);
                rank.put("calls", r.calls());
                ObjectNode byOp = rank.putObject("calls_by_op");
                r.byOp().forEach(byOp::put);
                ObjectNode expected = rank.putObject("recorded_by_op");
                Map<Op, Long> want = result.expected().get(r.rank());
                want.forEach((op, n) -> expected.put(op.fileName(), n));
            }
            OutputFiles.write(json, "--json", f -> Json.pretty().writeValue(f.toFile(), o));
        }
        if (!complete) {
            err.println("eventspace: trace replay: the replay did not re-issue exactly the trace's calls on every rank "
                    + "(launcher exit " + result.exit() + ")");
            return EventSpaceCommand.EXIT_FAILURE;
        }
        return EventSpaceCommand.EXIT_OK;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
