package org.eventspace.mpi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.base.os.Executables;
import org.eventspace.base.os.NativeSources;

/**
 * The interposition library, built on first use: the C sources travel in this jar ({@code /native/}, copied from
 * the repository's {@code native/} by the build); they are written to a cache folder named by the MPI implementation
 * and the SHA-256 of the sources and the compiler ({@code mpi-<openmpi|mpich>-<sha>}) and compiled there once with
 * {@code mpicc} (so a changed source or another compiler gives a new build, and the MPI the library is built against
 * is the one the program runs with: Open MPI's and MPICH's ABIs differ). Cache: {@code $ES_MPI_CACHE}, else
 * {@code ~/.cache/eventspace}. Thread-safe: a build is done under a file rename, so concurrent first uses each end
 * with a whole library.
 */
public final class NativeLibrary {
    static final String[] SOURCES = {"es_mpi.c", "es_mpi_fortran.c", "es_mpi_layout.h"};
    public static final String LIBRARY = "libeventspace-mpi.so";
    private static final long BUILD_TIMEOUT_S = 120;

    private NativeLibrary() {
    }

    /** The cache folder. */
    static Path cacheRoot() {
        return NativeSources.cacheRoot();
    }

    /**
     * The library's path, building it with {@code mpicc} if this version of the sources was not built yet with it.
     *
     * @throws IOException if {@code mpicc} is missing or fails (its output is in the message).
     */
    public static Path ensureBuilt(String mpicc) throws IOException {
        return ensureBuilt(mpicc, MpiImplementation.ofCompiler(mpicc));
    }

    /**
     * As {@link #ensureBuilt(String)}, for a compiler already known to build against {@code mpi}.
     *
     * @throws IOException if {@code mpicc} is missing or fails (its output is in the message).
     */
    public static Path ensureBuilt(String mpicc, MpiImplementation mpi) throws IOException {
        NativeSources sources = NativeSources.read(NativeLibrary.class, "/native/", SOURCES);
        // the compiler as the PATH finds it, through its links: mpicc and mpicc.openmpi are one build
        Path compiler = Executables.find(mpicc);
        Path dir = sources.folder("mpi-" + mpi.flag(), mpi.flag() + "\0" + (compiler != null ? compiler.toRealPath() : mpicc));
        Path library = dir.resolve(LIBRARY);
        if (Files.isRegularFile(library)) {
            return library;
        }
        sources.writeTo(dir);
        Path partial = Files.createTempFile(dir, LIBRARY, ".partial");
        List<String> command = new ArrayList<>(List.of(mpicc, "-O2", "-std=c11", "-fPIC", "-shared", "-o",
                partial.toString(), dir.resolve("es_mpi.c").toString()));
        // Open MPI's Fortran bindings, so the Fortran wrappers' pmpi_*_ calls resolve; without them (an MPI built without
        // Fortran) those references are weak and the C part still works. MPICH needs none (es_mpi.c has no Fortran
        // wrappers for it).
        String fortran = mpi.fortranLibrary();
        if (fortran == null || run(command, dir, fortran, "-ldl", "-lpthread") != null) {
            String second = run(command, dir, "-ldl", "-lpthread");
            if (second != null) {
                Files.deleteIfExists(partial);
                throw new IOException("building the MPI interposition library for " + mpi.flag() + " failed: "
                        + String.join(" ", command) + " -ldl -lpthread\n" + second);
            }
        }
        Files.move(partial, library, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return library;
    }

    /** Runs the compiler; null on success, else what it printed. */
    private static String run(List<String> base, Path dir, String... libs) throws IOException {
        List<String> command = new ArrayList<>(base);
        command.addAll(List.of(libs));
        Process p;
        try {
            p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot run " + command.get(0) + " to build the MPI interposition library (is MPI"
                    + " installed? apt-get install openmpi-bin libopenmpi-dev, or mpich libmpich-dev): " + e.getMessage(), e);
        }
        try {
            byte[] output = p.getInputStream().readAllBytes();
            if (!p.waitFor(BUILD_TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return command.get(0) + " did not finish within " + BUILD_TIMEOUT_S + " s";
            }
            return p.exitValue() == 0 ? null : new String(output, StandardCharsets.UTF_8);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while building the MPI library"));
        }
    }
}
