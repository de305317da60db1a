package org.eventspace.mpi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.stream.Stream;

/**
 * A run's temporary trace folder ({@code eventspace-mpi-*} in the temporary folder): the ranks' rings and meta files
 * take 6–25 MB per run, so a folder nobody asked for is removed when the run's command ends ({@link #close}) — also
 * when the program failed, and on Ctrl-C, through a shutdown hook. Whatever needs the files after the run (the
 * post-mortem reread, the traffic matrix) runs before {@link #close}.
 */
public final class MpiTraceFolder implements AutoCloseable {
    private final Path path;
    private final Thread onExit;

    private MpiTraceFolder(Path path) {
        this.path = path;
        this.onExit = new Thread(() -> removeQuietly(path), "es-mpi-trace-folder-removal");
        Runtime.getRuntime().addShutdownHook(onExit);
    }

    /** A new empty folder, removed by {@link #close} or when the JVM exits, whichever comes first. */
    public static MpiTraceFolder temporary() throws IOException {
        return new MpiTraceFolder(Files.createTempDirectory("eventspace-mpi-"));
    }

    public Path path() {
        return path;
    }

    /** Removes the folder and everything in it. */
    @Override
    public void close() throws IOException {
        remove(path);
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs (or ran) anyway; the folder is gone either way
        }
    }

    /** Bytes of the files under {@code dir} (0 if it does not exist). */
    static long bytes(Path dir) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0; // removed while we walked
                }
            }).sum();
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    /** Removes {@code dir} and everything under it; a file already gone is fine. */
    static void remove(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** On exit: mpirun may still be ending (its ranks can create files meanwhile), so three tries 200 ms apart. */
    private static void removeQuietly(Path dir) {
        for (int attempt = 1; ; attempt++) {
            try {
                remove(dir);
                return;
            } catch (IOException e) {
                if (attempt == 3) {
                    System.err.println("eventspace: could not remove the temporary trace folder " + dir + ": " + e);
                    return;
                }
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
