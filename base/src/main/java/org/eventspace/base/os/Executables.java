package org.eventspace.base.os;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** Finding a program as a shell would: a name with a separator is a path, a bare name is looked up on the PATH. */
public final class Executables {
    private Executables() {
    }

    /** The executable {@code name} stands for, or null if there is none. */
    public static Path find(String name) {
        if (name.contains(File.separator)) {
            Path p = Path.of(name);
            return Files.isExecutable(p) ? p.toAbsolutePath() : null;
        }
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) {
                return p.toAbsolutePath();
            }
        }
        return null;
    }
}
