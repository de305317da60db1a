package org.eventspace.trace;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.eventspace.base.os.Executables;
import org.eventspace.base.os.NativeSources;

/**
 * Writes a {@link CallTimeline} as an OTF2 archive ({@code DIR/traces.otf2}, {@code DIR/traces.def},
 * {@code DIR/traces/}) that {@code otf2-print}, Vampir and Scalasca read. The OTF2 library defines the archive's bytes
 * (its documentation describes the API, not the format), so the archive is written by that library: a small C
 * program ({@code native/otf2/es_otf2_writer.c}, in this jar under {@code /native/otf2/}) that maps the lines of a
 * versioned text stream ({@value #STREAM_VERSION}, docs/TRACE-FORMAT.md "OTF2 export") onto OTF2 calls, and does
 * nothing else. It is compiled on first use with {@code cc} and {@code otf2-config} into the cache the MPI library
 * uses ({@code $ES_MPI_CACHE}, else {@code ~/.cache/eventspace}), in a folder named by the SHA-256 of the source, the
 * compiler and the flags, so a changed source or library gives a new build; the build ends in a rename, so concurrent
 * first uses each end with a whole program.
 *
 * <p>Here because both sources of a timeline can reach it: {@code trace} (a compressed trace) and {@code mpi} (an MPI
 * run's rank files) — {@code trace} uses only {@code base} and {@code comm}, and {@code mpi} uses {@code trace}.
 */
public final class Otf2Writer {
    public static final String STREAM_VERSION = "es-otf2 1";
    static final String SOURCE = "es_otf2_writer.c";
    static final String PROGRAM = "es_otf2_writer";
    private static final long BUILD_TIMEOUT_S = 120;
    /** The writer's time limit: a fixed part for the library's start and files, and 1 s per million lines. */
    private static final long WRITE_TIMEOUT_BASE_S = 60;

    /**
     * What was written.
     *
     * @param archive the archive's anchor file ({@code DIR/traces.otf2})
     * @param counts  the events of each kind written
     * @param lines   lines of the stream the native writer read
     */
    public record Summary(Path archive, CallTimeline.Counts counts, long lines) {
    }

    private Otf2Writer() {
    }

    /**
     * Writes {@code timeline} into folder {@code dir}, which must not hold an archive named {@code traces} yet (the
     * caller decides whether to remove one). On failure nothing half-written is left: the archive's files are removed.
     *
     * @throws IOException          naming what is missing ({@code otf2-config}, {@code cc}), an archive already in
     *                              {@code dir}, or what the writer said
     * @throws IllegalStateException if the timeline is not a valid event trace ({@link CallTimeline#problems()})
     */
    public static Summary write(CallTimeline timeline, Path dir) throws IOException {
        List<String> problems = timeline.problems();
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the timeline is not a valid event trace: " + String.join("; ", problems));
        }
        for (Path p : archiveFiles(dir)) {
            if (Files.exists(p)) {
                throw new IOException(dir + " already holds an OTF2 archive (" + p.getFileName() + "); remove it first");
            }
        }
        Path program = ensureBuilt();
        Files.createDirectories(dir);
        Path stream = Files.createTempFile("eventspace-otf2-", ".txt");
        Path output = Files.createTempFile("eventspace-otf2-", ".log");
        try {
            long lines;
            try (Writer w = new BufferedWriter(Files.newBufferedWriter(stream, StandardCharsets.UTF_8), 1 << 16)) {
                lines = stream(timeline, w);
            }
            Process p = new ProcessBuilder(program.toString(), dir.toString())
                    .redirectInput(stream.toFile()).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            long timeoutS = WRITE_TIMEOUT_BASE_S + lines / 1_000_000;
            boolean done;
            try {
                done = p.waitFor(timeoutS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while writing the OTF2 archive in " + dir);
            }
            if (!done) {
                p.destroyForcibly();
                removeArchive(dir);
                throw new IOException("the OTF2 writer did not finish within " + timeoutS + " s writing " + dir);
            }
            if (p.exitValue() != 0) {
                String said = Files.readString(output, StandardCharsets.UTF_8).strip();
                removeArchive(dir);
                throw new IOException("the OTF2 writer failed (exit " + p.exitValue() + ") writing " + dir + ": " + said);
            }
            return new Summary(dir.resolve("traces.otf2"), timeline.counts(), lines);
        } finally {
            Files.deleteIfExists(stream);
            Files.deleteIfExists(output);
        }
    }

    /** The files of an archive named {@code traces} in {@code dir}: what {@link #write} makes. */
    public static List<Path> archiveFiles(Path dir) {
        return List.of(dir.resolve("traces.otf2"), dir.resolve("traces.def"), dir.resolve("traces"));
    }

    /** Removes the archive's files from {@code dir} (nothing else in it). */
    public static void removeArchive(Path dir) throws IOException {
        for (Path p : archiveFiles(dir)) {
            if (Files.isDirectory(p)) {
                try (var walk = Files.walk(p)) {
                    for (Path f : walk.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(f);
                    }
                }
            } else {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * The stream of {@code timeline} in the {@value #STREAM_VERSION} form; returns its line count. Names go last on
     * their line, with line breaks replaced by spaces.
     */
    static long stream(CallTimeline t, Writer w) throws IOException {
        long lines = 0;
        w.write(STREAM_VERSION + "\n");
        w.write("clock " + t.originNs() + " " + t.lengthNs() + "\n");
        w.write("node 0 -1 machine " + name(t.jobName()) + "\n");
        List<String> hosts = t.hosts();
        for (int h = 0; h < hosts.size(); h++) {
            w.write("node " + (h + 1) + " 0 node " + name(hosts.get(h)) + "\n");
        }
        lines += 3 + hosts.size();
        for (int r = 0; r < t.ranks(); r++) {
            w.write("group " + r + " " + (t.hostOf(r) + 1) + " rank " + r + "\n");
            lines++;
        }
        int[] threads = new int[t.ranks()];
        for (int loc = 0; loc < t.locations(); loc++) {
            int r = t.rankOf(loc);
            w.write("location " + loc + " " + r + " rank " + r + (loc < t.ranks() ? "" : " thread " + ++threads[r]) + "\n");
            lines++;
        }
        List<CallTimeline.Region> regions = t.regions();
        for (int i = 0; i < regions.size(); i++) {
            CallTimeline.Region region = regions.get(i);
            w.write("region " + i + " " + region.role().name().toLowerCase(Locale.ROOT) + " "
                    + (region.mpi() ? "mpi" : "user") + " " + name(region.name()) + "\n");
            lines++;
        }
        for (CallTimeline.Communicator c : t.communicators().values()) {
            StringBuilder b = new StringBuilder("comm ").append(c.id()).append(' ').append(c.members().size());
            for (int m : c.members()) {
                b.append(' ').append(m);
            }
            w.write(b.append(' ').append(name(c.name())).append('\n').toString());
            lines++;
        }
        w.write("events\n");
        lines++;
        for (int loc = 0; loc < t.locations(); loc++) {
            for (CallTimeline.Event e : t.events(loc)) {
                w.write(line(loc, e));
                w.write('\n');
                lines++;
            }
        }
        w.write("end\n");
        return lines + 1;
    }

    private static String line(int loc, CallTimeline.Event e) {
        String at = loc + " " + e.timeNs();
        if (e instanceof CallTimeline.Enter x) {
            return "e " + at + " " + x.region();
        } else if (e instanceof CallTimeline.Leave x) {
            return "l " + at + " " + x.region();
        } else if (e instanceof CallTimeline.Send x) {
            return "s " + at + " " + x.peer() + " " + x.comm() + " " + x.tag() + " " + x.bytes();
        } else if (e instanceof CallTimeline.Receive x) {
            return "r " + at + " " + x.peer() + " " + x.comm() + " " + x.tag() + " " + x.bytes();
        } else if (e instanceof CallTimeline.Isend x) {
            return "is " + at + " " + x.peer() + " " + x.comm() + " " + x.tag() + " " + x.bytes() + " " + x.request();
        } else if (e instanceof CallTimeline.IsendComplete x) {
            return "ic " + at + " " + x.request();
        } else if (e instanceof CallTimeline.IrecvRequest x) {
            return "ir " + at + " " + x.request();
        } else if (e instanceof CallTimeline.Irecv x) {
            return "iv " + at + " " + x.peer() + " " + x.comm() + " " + x.tag() + " " + x.bytes() + " " + x.request();
        } else if (e instanceof CallTimeline.CollectiveBegin) {
            return "cb " + at;
        }
        CallTimeline.CollectiveEnd x = (CallTimeline.CollectiveEnd) e;
        return "ce " + at + " " + x.kind() + " " + x.comm() + " " + x.root() + " " + x.sentBytes() + " "
                + x.receivedBytes();
    }

    private static String name(String s) {
        String n = s.replace('\n', ' ').replace('\r', ' ').strip();
        return n.isEmpty() ? "-" : n;
    }

    /**
     * The native writer's path, compiling it if this source was not built yet with this compiler and these flags.
     *
     * @throws IOException naming the missing tool ({@code otf2-config}: install libotf2-trace-dev) or the compiler's
     *                     output
     */
    static Path ensureBuilt() throws IOException {
        if (Executables.find("otf2-config") == null) {
            throw new IOException("otf2-config is not on the PATH: the OTF2 export is written by the OTF2 library; "
                    + "install it (Debian/Ubuntu: apt-get install libotf2-trace-dev otf2-tools)");
        }
        Path cc = Executables.find("cc");
        if (cc == null) {
            throw new IOException("cc is not on the PATH: the OTF2 writer is compiled on first use; install a C "
                    + "compiler (Debian/Ubuntu: apt-get install gcc)");
        }
        List<String> flags = new ArrayList<>();
        for (String what : List.of("--cflags", "--ldflags", "--libs")) {
            for (String f : run(List.of("otf2-config", what), null).strip().split("\\s+")) {
                if (!f.isEmpty()) {
                    flags.add(f);
                }
            }
        }
        NativeSources sources = NativeSources.read(Otf2Writer.class, "/native/otf2/", SOURCE);
        Path dir = sources.folder("otf2", cc.toRealPath() + "\0" + String.join(" ", flags));
        Path program = dir.resolve(PROGRAM);
        if (Files.isExecutable(program)) {
            return program;
        }
        sources.writeTo(dir);
        Path partial = Files.createTempFile(dir, PROGRAM, ".partial");
        List<String> command = new ArrayList<>(List.of(cc.toString(), "-O2", "-std=c11", "-o", partial.toString(),
                dir.resolve(SOURCE).toString()));
        command.addAll(flags);
        try {
            run(command, dir);
        } catch (IOException e) {
            Files.deleteIfExists(partial);
            throw new IOException("building the OTF2 writer failed: " + String.join(" ", command) + "\n"
                    + e.getMessage(), e);
        }
        Files.move(partial, program, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return program;
    }

    static Path cacheRoot() {
        return NativeSources.cacheRoot();
    }

    /** Runs a short command; its output, or an IOException with it if it failed or did not end in time. */
    private static String run(List<String> command, Path dir) throws IOException {
        Path output = Files.createTempFile("eventspace-otf2-build-", ".log");
        try {
            ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
            if (dir != null) {
                b.directory(dir.toFile());
            }
            Process p = b.start();
            try {
                if (!p.waitFor(BUILD_TIMEOUT_S, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(command.get(0) + " did not finish within " + BUILD_TIMEOUT_S + " s");
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while running " + command.get(0));
            }
            String said = Files.readString(output, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": " + said.strip());
            }
            return said;
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
