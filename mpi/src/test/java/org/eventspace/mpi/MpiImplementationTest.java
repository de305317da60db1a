package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How each MPI implementation's launcher is driven and which compiler goes with it; no MPI needed. */
class MpiImplementationTest {
    @TempDir
    Path dir;

    @Test
    void hydraTakesEachVariableAsGenvAndNeedsNoOversubscribe() {
        MpiRunConfig config = new MpiRunConfig(64, "/opt/app", List.of("-n", "3"), dir, 1024, 2, 5, "mpiexec.hydra",
                "mpicc.mpich", List.of(), 60, Set.of("stats"), true, 0, null);
        List<String> c = new MpiRun(config).command(Path.of("/lib/libeventspace-mpi.so"), MpiImplementation.MPICH);
        assertThat(c).doesNotContain("-x", "--oversubscribe");
        assertThat(String.join(" ", c)).startsWith("mpiexec.hydra -np 64 -genv LD_PRELOAD /lib/libeventspace-mpi.so")
                .contains("-genv ES_MPI_DIR " + dir.toAbsolutePath() + " -genv ES_MPI_CAPACITY 1024")
                .contains("-genv ES_MPI_SIM_HOSTS 2 -genv ES_MPI_SIM_SKEW_NS 5")
                .endsWith("/opt/app -n 3");
        List<String> open = new MpiRun(config).command(Path.of("/lib/libeventspace-mpi.so"), MpiImplementation.OPENMPI);
        assertThat(String.join(" ", open)).contains("--oversubscribe").contains("-x ES_MPI_CAPACITY=1024");
    }

    @Test
    void theCompilerBesideALauncherIsTheOneOfItsSuffix() throws Exception {
        for (String tool : List.of("mpicc", "mpicc.mpich", "mpicc.openmpi", "mpirun.mpich", "mpiexec.hydra",
                "mpirun.openmpi", "mpirun")) {
            Path p = Files.createFile(dir.resolve(tool));
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        assertThat(MpiImplementation.MPICH.compilerBeside(dir.resolve("mpirun.mpich"))).isEqualTo(dir.resolve("mpicc.mpich").toString());
        assertThat(MpiImplementation.MPICH.compilerBeside(dir.resolve("mpiexec.hydra"))).isEqualTo(dir.resolve("mpicc.mpich").toString());
        assertThat(MpiImplementation.OPENMPI.compilerBeside(dir.resolve("mpirun.openmpi")))
                .isEqualTo(dir.resolve("mpicc.openmpi").toString());
        // a plain mpirun: the implementation's own compiler if there is one, else the plain mpicc
        assertThat(MpiImplementation.MPICH.compilerBeside(dir.resolve("mpirun"))).isEqualTo(dir.resolve("mpicc.mpich").toString());
        Files.delete(dir.resolve("mpicc.openmpi"));
        assertThat(MpiImplementation.OPENMPI.compilerBeside(dir.resolve("mpirun"))).isEqualTo(dir.resolve("mpicc").toString());
        assertThat(MpiImplementation.OPENMPI.compilerBeside(null)).isEqualTo("mpicc");
    }

    @Test
    void theFlagNamesOneOfTwoImplementations() throws Exception {
        assertThat(MpiImplementation.of("MPICH")).isEqualTo(MpiImplementation.MPICH);
        assertThat(MpiImplementation.of("openmpi")).isEqualTo(MpiImplementation.OPENMPI);
        assertThatThrownBy(() -> MpiImplementation.of("lam")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--mpi must be openmpi, mpich or auto, got 'lam'");
        Path script = dir.resolve("fake-mpirun");
        Files.writeString(script, "#!/bin/sh\necho 'some other launcher 1.0'\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThatThrownBy(() -> MpiImplementation.ofLauncher(script.toString())).isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("names neither Open MPI nor MPICH's Hydra: some other launcher 1.0");
        assertThatThrownBy(() -> MpiImplementation.ofLauncher(dir.resolve("missing").toString()))
                .isInstanceOf(java.io.IOException.class).hasMessageContaining("is MPI installed?");
    }
}
