package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The MPI test programs of native/test, compiled with mpicc for a test (skipped without Open MPI, except under CI);
 * or with MPICH's compiler as Debian names it beside Open MPI ({@link #MPICH_CC}, launcher {@link #MPICH_RUN}).
 */
final class NativePrograms {
    private NativePrograms() {
    }

    /** Skips the calling test without Open MPI, and fails it under CI, where .ci/run installs it. */
    static void requireMpi() {
        boolean mpi = onPath("mpicc") && onPath("mpirun");
        if (!mpi && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("mpicc/mpirun missing under CI: .ci/run should have installed Open MPI");
        }
        assumeTrue(mpi, "Open MPI not installed");
    }

    static final String MPICH_CC = "mpicc.mpich";
    static final String MPICH_RUN = "mpiexec.hydra";

    /** Skips the calling test without MPICH, and fails it under CI, where .ci/run installs it. */
    static void requireMpich() {
        boolean mpich = onPath(MPICH_CC) && onPath(MPICH_RUN);
        if (!mpich && "true".equals(System.getenv("CI"))) {
            throw new AssertionError(MPICH_CC + "/" + MPICH_RUN + " missing under CI: .ci/run should have installed MPICH");
        }
        assumeTrue(mpich, "MPICH not installed");
    }

    /** {@code native/test/NAME.c} compiled into {@code dir}. */
    static Path compile(String name, Path dir) throws Exception {
        requireMpi();
        return compile(name, dir, "mpicc");
    }

    /** {@code native/test/NAME.c} compiled into {@code dir} with {@code mpicc} (its checks are the caller's). */
    static Path compile(String name, Path dir, String mpicc) throws Exception {
        Path program = dir.resolve(name);
        Process cc = new ProcessBuilder(mpicc, "-O2", "-o", program.toString(),
                Path.of("..", "native", "test", name + ".c").toString()).redirectErrorStream(true).start();
        String out = new String(cc.getInputStream().readAllBytes());
        assertThat(cc.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(cc.exitValue()).as(out).isZero();
        return program;
    }

    static boolean onPath(String tool) {
        return org.eventspace.base.os.Executables.find(tool) != null;
    }
}
