package org.eventspace.ui;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.eventspace.monitor.model.Coverage;
import org.eventspace.monitor.model.OperationRecord;
import org.eventspace.monitor.model.RankRecord;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.Verdict;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * The run model ({@link RunModel}) as Prometheus metrics, for {@code GET /metrics}: per rank its wait at collectives,
 * lateness, last arrivals, calls, bytes and point-to-point wait states; per operation its calls and time; the verdict
 * of {@code SlowestRankRule} and the machine's load; the coverage counters (what was not seen, counted); whether the
 * run still runs. Every figure is the model's as the sampler took it with its newest frame, so a scrape never reaches
 * the job (EventSpace paper §4.3: front-end readers of the newest state). Figures the model does not have (null: not
 * measured for this kind of run) have no sample, never a 0. Names and units follow Prometheus' conventions (base units:
 * seconds, bytes, ratios; a counter's samples end in {@code _total}); the Prometheus client library checks the names,
 * escapes the label values (a benchmark is a program's file name: anything may be in it) and writes the text.
 * docs/DASHBOARD.md lists every metric.
 *
 * <p>The snapshots and their text are made once per model and format; any thread.
 */
final class RunMetrics {
    private static final PrometheusTextFormatWriter PROMETHEUS = PrometheusTextFormatWriter.create();
    private static final OpenMetricsTextFormatWriter OPEN_METRICS = OpenMetricsTextFormatWriter.create();

    /** One scrape's answer: its content type and text, and what it was made of. */
    record Exposition(String contentType, byte[] bytes, boolean running, RunModel model) {
    }

    private volatile Exposition prometheus;
    private volatile Exposition openMetrics;

    /**
     * The answer to a scrape whose {@code Accept} header is {@code accept} (null: none), for {@code model} (the
     * sampler's newest, null when the source makes none): OpenMetrics 1.0 when the header names
     * {@code application/openmetrics-text}, else Prometheus' text format 0.0.4. Made once per model and format (the
     * sampler makes a new model object with every frame).
     */
    Exposition answer(String accept, boolean running, RunModel model) {
        boolean open = OPEN_METRICS.accepts(accept);
        Exposition cached = open ? openMetrics : prometheus;
        if (cached != null && cached.model() == model && cached.running() == running) {
            return cached;
        }
        ExpositionFormatWriter writer = open ? OPEN_METRICS : PROMETHEUS;
        Exposition made = new Exposition(writer.getContentType(), write(writer, snapshots(running, model)), running,
                model);
        if (open) {
            openMetrics = made;
        } else {
            prometheus = made;
        }
        return made;
    }

    private static byte[] write(ExpositionFormatWriter writer, MetricSnapshots snapshots) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        try {
            writer.write(out, snapshots);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return out.toByteArray();
    }

    /** The metrics of {@code model} (null: the source makes none, and only the run's state is exposed). */
    static MetricSnapshots snapshots(boolean running, RunModel model) {
        Families f = new Families();
        f.gauge("eventspace_run_running", "Whether the run still runs (1) or ended (0): after it ends the figures are final.",
                null, Labels.EMPTY, running ? 1 : 0);
        f.gauge("eventspace_run_model_available", "Whether the source made a run model (1); without one (0) no other "
                + "figure is exposed.", null, Labels.EMPTY, model == null ? 0 : 1);
        if (model == null) {
            return f.build();
        }
        f.out.metricSnapshot(InfoSnapshot.builder().name("eventspace_run")
                .help("What the run is: kind (workload or mpi), benchmark (the workload or the MPI program's file name) "
                        + "and transport (jvm, tcp or mpi); always 1.")
                .dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder().labels(Labels.of("kind", model.kind(),
                        "benchmark", model.benchmark(), "transport", model.transport())).build())
                .build());
        f.gauge("eventspace_run_ranks", "The run's ranks.", null, Labels.EMPTY, model.ranks());
        f.gauge("eventspace_run_hosts", "The run's hosts (host processes, or the MPI job's nodes).", null, Labels.EMPTY,
                model.hosts());
        f.gauge("eventspace_run_result_ok", "0 once something went wrong (a rank failed, a result did not check out; "
                + "eventspace_run_errors counts what), else 1.", null, Labels.EMPTY, model.resultOk() ? 1 : 0);
        f.gauge("eventspace_run_errors", "What went wrong, each error naming the rank or host it concerns, counted.",
                null, Labels.EMPTY, model.errors().size());
        if (model.wallS() != null) {
            f.gauge("eventspace_run_wall_seconds", "The run's wall time (our workloads: the timed part); only once it "
                    + "is known.", Unit.SECONDS, Labels.EMPTY, model.wallS());
        }
        ranks(f, model.perRank());
        operations(f, model.operations());
        verdict(f, model.verdict());
        coverage(f, model.coverage());
        return f.build();
    }

    private static void ranks(Families f, List<RankRecord> ranks) {
        f.perRank(ranks, "eventspace_rank_finished", false, "Whether the rank ended normally (1: its result arrived, "
                + "or MPI_Finalize and exit code 0); 0 while it runs.", null, r -> r.finished() ? 1.0 : 0.0);
        f.perRank(ranks, "eventspace_rank_calls", true, "The rank's calls (MPI functions, or our collectives).", null,
                r -> r.calls() == null ? null : r.calls().doubleValue());
        f.perRank(ranks, "eventspace_rank_sent_bytes", true, "The rank's point-to-point bytes sent.", Unit.BYTES,
                r -> r.bytesSent() == null ? null : r.bytesSent().doubleValue());
        f.perRank(ranks, "eventspace_rank_collective_wait_seconds", true, "The rank's wait at collectives: per "
                + "instance, the last arrival's entry minus its own, summed (Scalasca's wait at N×N).", Unit.SECONDS,
                r -> seconds(r.collectiveWaitUs()));
        f.perRank(ranks, "eventspace_rank_lateness_seconds", false, "The rank's total lateness at collectives: per "
                + "instance, the members' mean wait minus its own, summed; negative when it arrived early.", Unit.SECONDS,
                r -> seconds(r.latenessUs()));
        f.perRank(ranks, "eventspace_rank_last_arrivals", true, "The collective instances at which the rank came last "
                + "(the slowest-rank rule's k).", null, r -> r.lastArrivals() == null ? null : r.lastArrivals().doubleValue());
        f.perRank(ranks, "eventspace_rank_collective_instances", true, "The collective instances the rank took part in "
                + "with at least one other member (the slowest-rank rule's n).", null,
                r -> r.instances() == null ? null : r.instances().doubleValue());
        f.perRank(ranks, "eventspace_rank_late_sender_wait_seconds", true, "The rank's wait in receives for a late "
                + "sender.", Unit.SECONDS, r -> seconds(r.lateSenderUs()));
        f.perRank(ranks, "eventspace_rank_late_receiver_wait_seconds", true, "The rank's wait in sends for a late "
                + "receiver.", Unit.SECONDS, r -> seconds(r.lateReceiverUs()));
    }

    private static void operations(Families f, Map<String, OperationRecord> operations) {
        if (operations.isEmpty()) {
            return;
        }
        CounterSnapshot.Builder calls = CounterSnapshot.builder().name("eventspace_operation_calls")
                .help("An operation's calls over every rank.");
        CounterSnapshot.Builder time = CounterSnapshot.builder().name("eventspace_operation_time_seconds")
                .help("An operation's time over every rank, summed.").unit(Unit.SECONDS);
        GaugeSnapshot.Builder imbalance = GaugeSnapshot.builder().name("eventspace_operation_imbalance_ratio")
                .help("An operation's imbalance over the ranks: the largest rank's time over the mean, minus 1 "
                        + "(Pearce et al.; 0 when every rank spent the same).").unit(Unit.RATIO);
        for (Map.Entry<String, OperationRecord> e : new java.util.TreeMap<>(operations).entrySet()) {
            Labels op = Labels.of("operation", e.getKey());
            calls.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(op).value(e.getValue().calls()).build());
            time.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(op)
                    .value(seconds(e.getValue().timeUs())).build());
            imbalance.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(op)
                    .value(ratio(e.getValue().imbalancePct())).build());
        }
        f.out.metricSnapshot(calls.build());
        f.out.metricSnapshot(time.build());
        f.out.metricSnapshot(imbalance.build());
    }

    private static void verdict(Families f, Verdict verdict) {
        if (verdict == null) {
            return;
        }
        Verdict.SlowestRank s = verdict.slowestRank();
        if (s != null) {
            f.gauge("eventspace_slowest_rank", "The slowest-rank rule's candidate: the rank most often last against "
                    + "chance; -1 when no collective instance had two members. Named only when "
                    + "eventspace_slowest_rank_beyond_chance is 1.", null, Labels.EMPTY, s.rank() == null ? -1 : s.rank());
            if (s.z() != null) {
                f.gauge("eventspace_slowest_rank_z", "The candidate's z: its last arrivals against chance (one-sided "
                        + "binomial z-test).", null, Labels.EMPTY, s.z());
            }
            if (s.criticalZ() != null) {
                f.gauge("eventspace_slowest_rank_critical_z", "The z above which the candidate is significant (alpha "
                        + "over the ranks tested, Bonferroni).", null, Labels.EMPTY, s.criticalZ());
            }
            if (s.effectPct() != null) {
                f.gauge("eventspace_slowest_rank_effect_ratio", "The candidate's total lateness over the time span of "
                        + "its instances.", Unit.RATIO, Labels.EMPTY, ratio(s.effectPct()));
            }
            f.gauge("eventspace_slowest_rank_min_effect_ratio", "The smallest effect the rule names.", Unit.RATIO,
                    Labels.EMPTY, ratio(s.minEffectPct()));
            f.gauge("eventspace_slowest_rank_beyond_chance", "1 when the candidate is named: z above the critical value "
                    + "and an effect at least the smallest named; else 0 (within chance).", null, Labels.EMPTY,
                    s.beyondChance() ? 1 : 0);
        }
        Verdict.HeaviestPath h = verdict.heaviestPath();
        if (h != null) {
            f.gauge("eventspace_heaviest_path_rank", "The rank at the end of the load-balance tree's heaviest path, -1 "
                    + "when it ends at a wrapper.", null, Labels.EMPTY, h.rank() == null ? -1 : h.rank());
            f.gauge("eventspace_heaviest_path_weight", "The heaviest path's weight: per step, the share of calls in which "
                    + "it was the last arriver, multiplied.", null, Labels.EMPTY, h.weight());
        }
        Verdict.Load load = verdict.load();
        if (load != null) {
            f.gauge("eventspace_machine_oversubscribed", "1 when the ranks and the tool's busy threads outnumber the "
                    + "cores (ranks then wait for a core and arrive late without the program's help), else 0.", null,
                    Labels.EMPTY, load.oversubscribed() ? 1 : 0);
            f.gauge("eventspace_machine_cores", "The cores of the machine the ranks ran on.", null, Labels.EMPTY,
                    load.cores());
            f.gauge("eventspace_machine_ranks", "The ranks on that machine (the busiest host's).", null, Labels.EMPTY,
                    load.ranks());
            f.gauge("eventspace_machine_tool_threads", "The tool's own busy threads beside them.", null, Labels.EMPTY,
                    load.toolThreads());
        }
    }

    private static void coverage(Families f, Coverage c) {
        if (c == null) {
            return;
        }
        // Written is at least read + missed once counted; our workloads count it only at the end (the live model has 0).
        if (c.tuplesWritten() >= c.tuplesRead() + c.tuplesMissed()) {
            f.counter("eventspace_tuples_written", "Trace tuples the collectors or the MPI library wrote; absent while "
                    + "not counted (our workloads: until the run ended).", c.tuplesWritten());
        }
        f.counter("eventspace_tuples_read", "Of them, what the analysis read.", c.tuplesRead());
        f.counter("eventspace_tuples_missed", "Trace tuples the bounded buffers overwrote before they were read.",
                c.tuplesMissed());
        f.gauge("eventspace_gather_ratio", "The gather rate: tuples read over read plus missed (1 when none was written).",
                Unit.RATIO, Labels.EMPTY, c.gatherRate());
        f.counter("eventspace_untraced_calls", "MPI calls made on threads the library does not record.",
                c.untracedCalls());
        f.counter("eventspace_unknown_communicator_calls", "Collective calls on a communicator the library could not "
                + "name.", c.unknownCommunicatorCalls());
        f.counter("eventspace_incomplete_instances", "Collective instances some member never reached (a rank died, a "
                + "tuple was lost).", c.incompleteInstances());
        f.counter("eventspace_unmatched_point_to_point_calls", "Point-to-point calls without a partner.",
                c.unmatchedPointToPoint());
        f.counter("eventspace_calls_dropped", "Calls read but not joined (a collector's tuple of the call was lost).",
                c.callsDropped());
        f.counter("eventspace_unfinished_ranks", "Ranks that did not finish (known once the run ended).",
                c.unfinishedRanks().size());
    }

    /** µs as seconds, exactly as the decimal it was (0.1 µs stays 1.0E-7, not 1.0000000000000001E-7). */
    private static Double seconds(Double micros) {
        return micros == null ? null : BigDecimal.valueOf(micros).scaleByPowerOfTen(-6).doubleValue();
    }

    /** Per cent as a ratio, exactly as the decimal it was (2.6 % is 0.026, not 0.026000000000000002). */
    private static double ratio(double pct) {
        return BigDecimal.valueOf(pct).scaleByPowerOfTen(-2).doubleValue();
    }

    /** The snapshots being made, in order. */
    private static final class Families {
        final MetricSnapshots.Builder out = MetricSnapshots.builder();

        void gauge(String name, String help, Unit unit, Labels labels, double value) {
            GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help)
                    .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(value).build());
            out.metricSnapshot((unit == null ? b : b.unit(unit)).build());
        }

        void counter(String name, String help, double value) {
            out.metricSnapshot(CounterSnapshot.builder().name(name).help(help)
                    .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(value).build()).build());
        }

        /**
         * One sample per rank with the figure (labels rank, and host when the model knows it: a live MPI run learns
         * its ranks' hosts only at the end); no family when no rank has it.
         */
        void perRank(List<RankRecord> ranks, String name, boolean counter, String help, Unit unit,
                     Function<RankRecord, Double> figure) {
            CounterSnapshot.Builder c = CounterSnapshot.builder().name(name).help(help);
            GaugeSnapshot.Builder g = GaugeSnapshot.builder().name(name).help(help);
            boolean any = false;
            for (RankRecord r : ranks) {
                Double v = figure.apply(r);
                if (v == null) {
                    continue;
                }
                any = true;
                Labels labels = r.host() == null ? Labels.of("rank", Integer.toString(r.rank()))
                        : Labels.of("rank", Integer.toString(r.rank()), "host", Integer.toString(r.host()));
                if (counter) {
                    c.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(v).build());
                } else {
                    g.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(v).build());
                }
            }
            if (any) {
                out.metricSnapshot(counter ? (unit == null ? c : c.unit(unit)).build() : (unit == null ? g : g.unit(unit)).build());
            }
        }

        MetricSnapshots build() {
            return out.build();
        }
    }
}
