package org.eventspace.cli;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Every output file a command writes ({@code --json}, {@code --traffic}, {@code --trace}, {@code --trace-dir},
 * {@code report -o}, {@code export --out}, …) is checked here before the job starts, and named here when a write
 * after it fails. A report that cannot be written after a long run is lost, so the check does what the write will
 * do: it opens the file (creating it, then removing it again, if it did not exist), because permission bits do not
 * tell: root may "write" anywhere by them, yet {@code /proc/x.json} cannot be created.
 */
final class OutputFiles {
    private OutputFiles() {
    }

    /**
     * Refuses, as a usage error naming {@code flag} and {@code file}, a file that cannot be written: a folder, one in a
     * folder that does not exist, one that cannot be created or opened for writing. An existing file is opened without
     * being truncated; a device or pipe (say {@code /dev/stdout}) is not opened (a pipe would block), only its
     * permission is checked.
     */
    static void checkWritable(Path file, String flag) {
        Path absolute = file.toAbsolutePath();
        Path dir = absolute.getParent();
        if (Files.isDirectory(absolute)) {
            throw new UsageError(flag + " " + file + " is a folder; give a file name");
        }
        if (dir == null || !Files.isDirectory(dir)) {
            throw new UsageError(flag + " " + file + ": folder " + dir + " does not exist");
        }
        if (Files.exists(absolute) && !Files.isRegularFile(absolute)) {
            if (!Files.isWritable(absolute)) {
                throw new UsageError(flag + " " + file + ": cannot write there (permission denied)");
            }
            return;
        }
        boolean existed = Files.exists(absolute);
        try (FileChannel probe = existed ? FileChannel.open(absolute, StandardOpenOption.WRITE)
                : FileChannel.open(absolute, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW)) {
            // opened: the write after the run will open it the same way
        } catch (IOException e) {
            throw new UsageError(flag + " " + file + ": cannot write there (" + reason(e) + ")");
        }
        if (!existed) {
            try {
                Files.deleteIfExists(absolute);
            } catch (IOException e) {
                throw new UsageError(flag + " " + file + ": could create it but not remove the empty file again ("
                        + reason(e) + ")");
            }
        }
    }

    /**
     * Makes folder {@code dir} (as the run would) and checks that a file can be created in it; refuses, as a usage
     * error naming {@code flag}, a path that is a file or a folder that cannot be made or written.
     */
    static void checkFolder(Path dir, String flag) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new UsageError(flag + " " + dir + " is a file; give a folder");
        }
        try {
            Files.createDirectories(dir);
            Files.delete(Files.createTempFile(dir, ".eventspace-probe-", ""));
        } catch (IOException e) {
            throw new UsageError(flag + " " + dir + ": cannot write files there (" + reason(e) + ")");
        }
    }

    /** Writes the output of {@code flag}; a failure names the flag and the file. */
    interface Write {
        void to(Path file) throws IOException;
    }

    /**
     * Runs {@code write} on {@code file}; an {@link IOException} becomes one naming what was written: {@code writing
     * --json /dev/full: No space left on device}.
     */
    static void write(Path file, String flag, Write write) throws IOException {
        try {
            write.to(file);
        } catch (IOException e) {
            throw new IOException("writing " + flag + " " + file + ": " + reason(e), e);
        }
    }

    /** What went wrong, without the file name a {@link FileSystemException} repeats. */
    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file or folder";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
