package org.eventspace.cli;

import java.nio.file.Path;

import org.eventspace.comm.pathmap.PathmapSpec;

/** Reads configuration files, turning their errors into usage errors (exit code 2). */
final class ConfigFiles {
    private ConfigFiles() {
    }

    static PathmapSpec readPathmap(Path file) {
        throw new UsageError(file + ": pathmap configuration files are not supported yet");
    }
}
