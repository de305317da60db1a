package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Open MPI's PML monitoring files as its 4.1 series writes them, read into matrices; damaged lines named. */
class PmlTrafficTest {
    @TempDir
    Path dir;

    @Test
    void linesBecomeMatricesPerOperationAndTheLibrarysSynchronisationIsTakenOut() throws Exception {
        Path prefix = dir.resolve("pml");
        Files.writeString(PmlTraffic.file(prefix, 0), """
                # POINT TO POINT
                E\t0\t1\t5120 bytes\t40 msgs sent\t0,0,0,6,41,0
                I\t0\t1\t352 bytes\t47 msgs sent
                # OSC
                S\t0\t1\t32 bytes\t2 msgs sent
                R\t0\t1\t16 bytes\t1 msgs sent
                # COLLECTIVES
                C\t0\t1\t352 bytes\t47 msgs sent
                D\tMPI_COMM_WORLD\tprocs: 0,1
                O2A\t0\t0 bytes\t0 msgs sent
                A2A\t0\t36 bytes\t3 msgs sent
                """);
        Files.writeString(PmlTraffic.file(prefix, 1), "# POINT TO POINT\nE\t1\t0\t480 bytes\t30 msgs sent\n");
        PmlTraffic.Counts c = PmlTraffic.read(prefix, 3);
        assertThat(c.ranksWithoutFile()).containsExactly(2);
        long[][][] send = c.byOperation().get(PmlTraffic.POINT_TO_POINT);
        assertThat(send[0][0][1]).isEqualTo(5120);
        assertThat(send[1][0][1]).isEqualTo(40);
        assertThat(send[2][0][1]).as("received, as the sender counted").isEqualTo(5120);
        assertThat(c.byOperation().get(PmlTraffic.COLLECTIVES)[0][0][1]).isEqualTo(352);
        long[][] oneSided = c.byOperation().get(PmlTraffic.ONE_SIDED)[0];
        assertThat(oneSided[0][1]).as("put into rank 1").isEqualTo(32);
        assertThat(oneSided[1][0]).as("got from rank 1").isEqualTo(16);
        // rank 1 synchronised its clock twice with its tree parent 0: 2 x 10 pings of 8 B, as many pongs of 24 B
        PmlTraffic.removeClockSync(c, new int[] {0, 2, 0});
        assertThat(send[0][0][1]).isEqualTo(5120 - 480);
        assertThat(send[1][0][1]).isEqualTo(20);
        assertThat(send[0][1][0]).isEqualTo(480 - 160);
        assertThat(send[3][1][0]).isEqualTo(10);
        assertThatThrownBy(() -> PmlTraffic.removeClockSync(c, new int[] {0, 2, 0}))
                .hasMessageContaining("hold fewer than the 20 clock-synchronisation messages");
    }

    @Test
    void aDamagedLineIsNamedWithItsFileAndLine() throws Exception {
        Path prefix = dir.resolve("pml");
        Files.writeString(PmlTraffic.file(prefix, 0), "# POINT TO POINT\nE\t0\t1\t5120 bites\t40 msgs sent\n");
        assertThatThrownBy(() -> PmlTraffic.read(prefix, 2)).hasMessageContaining("pml.0.prof:2: expected 'N bytes'");
        Files.writeString(PmlTraffic.file(prefix, 0), "E\t0\t7\t8 bytes\t1 msgs sent\n");
        assertThatThrownBy(() -> PmlTraffic.read(prefix, 2)).hasMessageContaining("pml.0.prof:1: expected a peer in 0..1");
        Files.writeString(PmlTraffic.file(prefix, 0), "E\t1\t0\t8 bytes\t1 msgs sent\n");
        assertThatThrownBy(() -> PmlTraffic.read(prefix, 2)).hasMessageContaining("expected rank 0 (the file's rank)");
        Files.writeString(PmlTraffic.file(prefix, 0), "Q\t0\t0\n");
        assertThatThrownBy(() -> PmlTraffic.read(prefix, 2)).hasMessageContaining("expected a line of kind E, I, S, R");
    }
}
