package org.eventspace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

import org.eventspace.comm.pathmap.PathmapConfig;
import org.eventspace.comm.pathmap.PathmapConfigException;
import org.eventspace.comm.pathmap.PathmapSpec;

/** Reads configuration files, turning their errors into usage errors (exit code 2) that name file and line. */
final class ConfigFiles {
    private ConfigFiles() {
    }

    static PathmapSpec readPathmap(Path file) {
        try {
            return PathmapConfig.read(file);
        } catch (PathmapConfigException e) {
            throw new UsageError(e.getMessage());
        } catch (NoSuchFileException e) {
            throw new UsageError(file + ": no such file");
        } catch (IOException e) {
            throw new UsageError(file + ": cannot read: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new UsageError(file + ": " + e.getMessage());
        }
    }

    /**
     * The nearest folder, from the working folder up to the root, that holds the regular file {@code relative} (a file
     * of this installation, such as {@code examples/wan/converging.input}, found when a command runs inside a clone);
     * empty if none does.
     */
    static Optional<Path> folderHolding(String relative) {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve(relative))) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
