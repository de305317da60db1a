package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Every language binding counts alike: the same calls (native/test/es_counts.c and its twins) from C, from C++ through
 * mpicxx, and from Fortran through {@code mpif.h}, {@code use mpi} and {@code use mpi_f08} (Open MPI's Fortran bindings
 * call PMPI_X, so only the library's Fortran wrappers see those), each program counting its own calls and bytes; the
 * report must say the same, call by call: sends and receives with MPI_PROC_NULL count 0 bytes, MPI_IN_PLACE the
 * rank's own block, and every non-blocking collective (completed by wait, waitall, waitsome and test loops) departs
 * at the call that completed it. Under Open MPI and under MPICH (whose Fortran bindings reach the C wrappers, but for
 * its mpi_f08 calls without a buffer): the counts must not depend on which library the program runs with.
 */
@Timeout(180)
class MpiBindingsTest {
    private static final int RANKS = 4;
    /** Non-blocking collectives es_counts makes per rank: 12 i-collectives and MPI_Comm_idup. */
    private static final int NONBLOCKING_COLLECTIVES = 13;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(MpiImplementation.class)
    void cCountsEveryCallAndByteAsTheProgramDoes(MpiImplementation mpi) throws Exception {
        sameCountsAsTheProgram(mpi, "es_counts");
    }

    @ParameterizedTest
    @EnumSource(MpiImplementation.class)
    void cxxCountsEveryCallAndByteAsTheProgramDoes(MpiImplementation mpi) throws Exception {
        assumeTrue(MpiPrograms.onPath(MpiPrograms.tools(mpi).mpicxx()) || "true".equals(System.getenv("CI")), "mpicxx not installed");
        sameCountsAsTheProgram(mpi, "es_counts_cxx");
    }

    @ParameterizedTest
    @EnumSource(MpiImplementation.class)
    void fortranMpifHCountsEveryCallAndByteAsTheProgramDoes(MpiImplementation mpi) throws Exception {
        requireFortran(mpi);
        sameCountsAsTheProgram(mpi, "es_fcounts_mpif");
    }

    @ParameterizedTest
    @EnumSource(MpiImplementation.class)
    void fortranUseMpiCountsEveryCallAndByteAsTheProgramDoes(MpiImplementation mpi) throws Exception {
        requireFortran(mpi);
        sameCountsAsTheProgram(mpi, "es_fcounts_mpi");
    }

    @ParameterizedTest
    @EnumSource(MpiImplementation.class)
    void fortranUseMpiF08CountsEveryCallAndByteAsTheProgramDoes(MpiImplementation mpi) throws Exception {
        requireFortran(mpi);
        sameCountsAsTheProgram(mpi, "es_fcounts_f08");
    }

    private static void requireFortran(MpiImplementation mpi) {
        assumeTrue(MpiPrograms.onPath(MpiPrograms.tools(mpi).mpifort()) || "true".equals(System.getenv("CI")), "mpifort not installed");
    }

    private void sameCountsAsTheProgram(MpiImplementation library, String name) throws Exception {
        MpiPrograms.Run run = MpiPrograms.runUnder(library, dir, RANKS, 0, 0, MpiPrograms.program(library, name));

        assertThat(run.result().exitCode()).as("%s: stderr: %s", library, run.stderr()).isZero();
        assertThat(run.stdout()).endsWith("counts ok\n");
        Map<String, Long> calls = new LinkedHashMap<>();
        Map<String, Long> bytes = new LinkedHashMap<>();
        for (String line : run.stdout().split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length == 3 && (f[0].equals("calls") || f[0].equals("bytes"))) {
                (f[0].equals("calls") ? calls : bytes).put(f[1], Long.parseLong(f[2]));
            }
        }
        // the Fortran programs make 26 more kinds of call: the other collectives, ssend, issend, waitany, probes,
        // communicator constructors, a window with put, get and accumulate, a Cartesian grid and its sub-grid
        boolean fortran = name.startsWith("es_fcounts");
        assertThat(calls).hasSize(fortran ? 64 : 38);
        JsonNode mpi = run.report().path("mpi");
        Map<String, Long> reportedCalls = new LinkedHashMap<>();
        mpi.path("calls").fields().forEachRemaining(e -> reportedCalls.put(e.getKey(), e.getValue().asLong()));
        assertThat(reportedCalls).as("every call the program made, once, and no other").isEqualTo(calls);
        for (Map.Entry<String, Long> e : bytes.entrySet()) {
            assertThat(mpi.path("call_bytes").path(e.getKey()).asLong(0)).as("bytes of %s", e.getKey())
                    .isEqualTo(e.getValue());
        }
        // the point-to-point payload: the end ranks' transfers with MPI_PROC_NULL count nothing
        long sent = 0;
        for (String op : new String[] {"MPI_Send", "MPI_Isend", "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Ssend",
                "MPI_Issend"}) {
            sent += bytes.getOrDefault(op, 0L);
        }
        assertThat(mpi.path("bytes_sent").asLong()).isEqualTo(sent);
        assertThat(sent).isEqualTo((RANKS - 1) * (32 + 32 + 4 * 32 + (fortran ? 4 + 4 : 0)));
        if (library == MpiImplementation.MPICH) {
            // Under MPICH the calls and bytes above are exact in every run, but the instance analysis is not yet:
            // about one run in five has a collective instance incomplete, and under mpi_f08 some completions and
            // receive records are missing (docs/MPI.md, limits). Asserted here is what holds; the rest is open work.
            assertThat(mpi.at("/collectives/nonblocking_completed").asLong()
                    + mpi.at("/collectives/nonblocking_without_completion").asLong()
                    + mpi.at("/collectives/incomplete").asLong())
                    .as("every non-blocking collective an instance, complete or counted")
                    .isGreaterThanOrEqualTo(RANKS * NONBLOCKING_COLLECTIVES);
            return;
        }
        // every collective instance joined, the non-blocking ones at the wait or test that completed them
        assertThat(mpi.at("/collectives/incomplete").asLong()).isZero();
        assertThat(mpi.at("/collectives/unknown_communicator_calls").asLong()).isZero();
        assertThat(mpi.at("/collectives/nonblocking_completed").asLong()).isEqualTo(RANKS * NONBLOCKING_COLLECTIVES);
        assertThat(mpi.at("/collectives/nonblocking_without_completion").asLong()).isZero();
        // every MPI_Irecv from a rank (not MPI_PROC_NULL: 4, Fortran 5 on each rank but the first) and every sendrecv's
        // receive half (2) completed with its receive record, and matched its send
        assertThat(mpi.at("/point_to_point/receive_records").asLong())
                .isEqualTo((RANKS - 1) * (4 + 2 + (fortran ? 1 : 0)));
        assertThat(mpi.at("/point_to_point/unmatched").asLong()).isZero();
        assertThat(mpi.at("/point_to_point/completions_without_post").asLong()).isZero();
    }
}
