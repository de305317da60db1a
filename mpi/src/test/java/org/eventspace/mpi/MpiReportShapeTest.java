package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The field names and their order in the blocks an MPI run's report and live view hold ({@link MpiBlock},
 * {@link ClockBlock}, {@link MonitorsBlock}, {@link ProfileBlock}): docs, the dashboard and scripts read them by name,
 * so the records Jackson writes them from must keep the shape {@code eventspace mpirun --json} has always written.
 */
@Timeout(120)
class MpiReportShapeTest {
    @TempDir
    Path dir;

    @Test
    void aRunOnTwoSimulatedHostsWritesEveryBlockInItsShape() throws Exception {
        MpiPrograms.requireMpi();
        MpiPrograms.Run run = MpiPrograms.run(dir, 4, 2, 20_000_000L, MpiPrograms.program("es_stencil"), "20", "16");
        assertThat(run.result().exitCode()).isZero();

        JsonNode mpi = run.report().path("mpi");
        assertThat(names(mpi)).containsExactly("ranks", "ranks_traced", "hosts", "calls", "call_bytes", "calls_total",
                "bytes_sent", "tuples_written", "tuples_read", "tuples_missed", "untraced_calls", "unfinished_ranks",
                "rank_exits", "collectives", "point_to_point", "clock", "agents");
        assertThat(names(mpi.path("collectives"))).containsExactly("instances", "incomplete", "unknown_communicator_calls",
                "nonblocking_completed", "nonblocking_without_completion");
        assertThat(names(mpi.path("point_to_point"))).containsExactly("matched", "unmatched", "unmatched_no_partner",
                "unmatched_partner_overwritten", "receive_records", "completions_without_post", "posts_forgotten",
                "pending_bound_exceeded", "untracked_requests", "late_sender_wait_us", "late_sender_calls",
                "late_sender_caused_us", "late_receiver_wait_us");
        assertThat(names(mpi.at("/point_to_point/late_sender_wait_us"))).containsExactly("0", "1", "2", "3");
        assertThat(names(mpi.path("agents"))).containsExactly("where");
        JsonNode clock = mpi.path("clock");
        assertThat(names(clock)).containsExactly("time_base", "drift_applied", "tuples_mapped_with_drift",
                "tuples_mapped_init_offset_only", "ranks", "hosts", "cross_host_accuracy_ns", "cross_host_drift_ns");
        for (JsonNode rank : clock.path("ranks")) {
            List<String> expected = new ArrayList<>(List.of("rank", "host", "host_name", "sync_parent", "offset_init_ns",
                    "rtt_init_ns", "error_init_ns", "offset_finalize_ns", "rtt_finalize_ns", "error_finalize_ns",
                    "drift_ns", "drift_ppm", "error_bound_ns"));
            if (rank.path("host").asInt() == 1) {
                expected.add("simulated_skew_ns");
            }
            assertThat(names(rank)).as("rank %s", rank).containsExactlyElementsOf(expected);
        }
        for (JsonNode host : clock.path("hosts")) {
            assertThat(names(host)).containsExactly("host", "mapping", "offset_ns", "offset_init_ns", "offset_finalize_ns",
                    "drift_ns", "drift_ppm", "span_ns", "accuracy_ns", "error_bound_ns");
        }

        JsonNode monitors = run.report().path("monitors");
        assertThat(names(monitors)).containsExactly("kinds", "loadbalance", "stats", "profile");
        assertThat(names(monitors.path("loadbalance"))).containsExactly("slowest_rank", "slowest_rank_last_share",
                "slowest_rank_z", "slowest_rank_beyond_chance", "collective_instances", "wait_us", "wait_caused_us",
                "last_arrivals");
        assertThat(names(monitors.path("stats"))).containsExactly("call_duration_us");
        assertThat(names(monitors.at("/stats/call_duration_us/MPI_Allreduce"))).containsExactly("count", "mean", "sd",
                "min", "max");
        assertThat(names(monitors.path("profile"))).containsExactly("ranks", "operations");
        assertThat(names(monitors.at("/profile/ranks/0/MPI_Allreduce"))).containsExactly("calls", "time_us");
        assertThat(names(monitors.at("/profile/operations/MPI_Allreduce"))).containsExactly("ranks", "min_us", "min_rank",
                "mean_us", "max_us", "max_rank", "imbalance_pct");

        JsonNode live = run.live().monitors().orElseThrow();
        assertThat(names(live)).containsExactly("kinds", "loadbalance", "stats", "profile", "tuples_read", "tuples_missed",
                "gather_rate", "calls_joined", "analysis");
        assertThat(names(live.path("loadbalance"))).containsExactly("slowest_rank", "slowest_rank_last_share",
                "slowest_rank_z", "slowest_rank_beyond_chance", "collective_instances", "wait_us", "wait_caused_us",
                "last_arrivals", "greds", "slowest_rank_gred", "heaviest_path", "heaviest_path_weight",
                "heaviest_path_rank", "trees");
        String gred = run.live().tree().gred();
        assertThat(names(live.at("/loadbalance/greds/" + gred))).containsExactly("contributors", "last_arrivals",
                "mean_arrival_wait_us", "calls");
        assertThat(names(live.at("/loadbalance/trees/0"))).containsExactly("tree", "slowest_rank", "weight", "heaviest_path");
        assertThat(names(live.at("/stats/wrappers/" + gred))).containsExactly("host", "tree", "calls", "ports");
        assertThat(names(live.at("/stats/wrappers/" + gred + "/ports/0"))).containsExactly("port", "contributor",
                "arrival_wait", "total", "arrival_order", "departure_wait", "departure_order");
        assertThat(names(live.path("analysis"))).containsExactly("cpu_ms", "threads");
    }

    @Test
    void aProgramThatNeverCallsMpiLeavesOnlyWhatCanBeSaid() throws Exception {
        MpiPrograms.requireMpi();
        MpiPrograms.Run run = MpiPrograms.run(dir, 2, 0, 0, Path.of("/bin/true"));
        assertThat(run.result().exitCode()).isZero();

        assertThat(names(run.report().path("mpi"))).containsExactly("ranks", "ranks_traced", "hosts", "calls",
                "call_bytes", "calls_total", "bytes_sent", "tuples_written", "tuples_read", "tuples_missed", "untraced_calls",
                "unfinished_ranks", "rank_exits", "clock", "agents");
        assertThat(names(run.report().path("monitors"))).containsExactly("kinds");
        JsonNode live = run.live().monitors().orElseThrow();
        assertThat(names(live)).containsExactly("kinds", "tuples_read", "tuples_missed", "gather_rate", "calls_joined",
                "analysis");
        assertThat(live.path("calls_joined").asLong()).isZero();
        assertThat(run.result().summary().get(0)).startsWith("no rank wrote trace files");
    }

    private static List<String> names(JsonNode node) {
        assertThat(node.isObject()).as("an object: %s", node).isTrue();
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
