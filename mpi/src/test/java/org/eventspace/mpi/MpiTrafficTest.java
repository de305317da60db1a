package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mpirun --traffic}'s checks before the program runs, against a fake Open MPI: an {@code ompi_info} next to
 * {@code mpirun} that lists the PML monitoring component or does not, or none at all; and the removal of an earlier
 * run's files. Each fake {@code ompi_info} answers at once, and {@code check} waits at most 30 s for it.
 */
@Timeout(60)
class MpiTrafficTest {
    @TempDir
    Path dir;

    @Test
    void anOpenMpiThatListsPmlMonitoringPasses() throws Exception {
        Path mpirun = fakeOpenMpi("echo 'MCA pml monitoring: parameter \"pml_monitoring_enable\" (current value: \"0\")'");
        assertThatCode(() -> MpiTraffic.check("mpirun", mpirun)).doesNotThrowAnyException();
    }

    @Test
    void anOpenMpiWithoutPmlMonitoringIsRefusedNamingItsOmpiInfo() throws Exception {
        Path mpirun = fakeOpenMpi("echo 'MCA pml: ob1 (MCA v2.1.0)'");
        assertThatThrownBy(() -> MpiTraffic.check("mpirun", mpirun)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--traffic counts through Open MPI's PML monitoring component, which "
                        + mpirun.resolveSibling("ompi_info") + " does not list (Open MPI 2.1 or newer has it)");
    }

    @Test
    void anMpirunWithoutOmpiInfoOrNoMpirunAtAllIsRefused() throws Exception {
        Path mpirun = executable(dir.resolve("bin/mpirun"), "exit 0");
        assertThatThrownBy(() -> MpiTraffic.check("/opt/x/mpirun", mpirun)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--traffic counts through Open MPI's PML monitoring component, and there is no ompi_info "
                        + "next to /opt/x/mpirun (is this Open MPI?)");
        assertThatThrownBy(() -> MpiTraffic.check("mpirun", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("there is no ompi_info next to mpirun");
    }

    @Test
    void removeOldDeletesTheRanksFilesOfAnEarlierRunAndNothingElse() throws Exception {
        Path prefix = dir.resolve("pml");
        for (int r = 0; r < 3; r++) {
            Files.writeString(PmlTraffic.file(prefix, r), "# POINT TO POINT\n");
        }
        Path other = Files.writeString(dir.resolve("pml.txt"), "kept");

        MpiTraffic.removeOld(prefix, 2);

        assertThat(PmlTraffic.file(prefix, 0)).doesNotExist();
        assertThat(PmlTraffic.file(prefix, 1)).doesNotExist();
        assertThat(PmlTraffic.file(prefix, 2)).as("not a rank of this run").exists();
        assertThat(other).hasContent("kept");
    }

    /** A folder with {@code mpirun} and an {@code ompi_info} that runs {@code ompiInfoBody}; returns mpirun. */
    private Path fakeOpenMpi(String ompiInfoBody) throws Exception {
        executable(dir.resolve("bin/ompi_info"), ompiInfoBody);
        return executable(dir.resolve("bin/mpirun"), "exit 0");
    }

    private static Path executable(Path file, String body) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }
}
