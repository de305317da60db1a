package org.eventspace.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's root, found from a test's working directory (Surefire runs a module's tests in the module). */
final class Repository {
    private Repository() {
    }

    /** The nearest folder at or above the working directory that holds {@code mvnw} and {@code docs/}. */
    static Path root() {
        Path start = Path.of("").toAbsolutePath();
        for (Path p = start; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("mvnw")) && Files.isDirectory(p.resolve("docs"))) {
                return p;
            }
        }
        throw new IllegalStateException("no folder with mvnw and docs/ at or above " + start);
    }
}
