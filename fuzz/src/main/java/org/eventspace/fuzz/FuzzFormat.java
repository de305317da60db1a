package org.eventspace.fuzz;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.eventspace.run.Workload;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunConfigCodec;
import org.eventspace.comm.pathmap.PathmapConfig;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorSettings;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobConfigCodec;
import org.eventspace.job.JobTransport;
import org.eventspace.job.PollMode;
import org.eventspace.job.ScopeSettings;

/** The input formats the suite fuzzes, by their command-line names, and how to open each one's {@link Fuzzer}. */
public enum FuzzFormat {
    /** Pathmap configuration files ({@link PathmapFuzzer}). */
    PATHMAP("pathmap"),
    /** The job's configuration line a host process gets ({@link JobConfigCodec}). */
    JOB_CONFIG("job-config"),
    /** A benchmark run's configuration line ({@link RunConfigCodec}). */
    RUN_CONFIG("run-config"),
    /** Post-mortem trace dumps ({@link TraceDumpFuzzer}). */
    TRACE_DUMP("trace-dump"),
    /** TCP hop handshakes and frames, against a real server ({@link TcpFuzzer}). */
    TCP("tcp"),
    /** Rendezvous hellos and messages, against a real rendezvous ({@link RendezvousFuzzer}). */
    RENDEZVOUS("rendezvous"),
    /** WAN link files and their series files ({@link WanFileFuzzer}). */
    WAN("wan"),
    /** ScalaTrace-style trace files, JSON and CBOR ({@link TraceFileFuzzer}). */
    TRACE_FILE("trace-file"),
    /** Run reports, {@code eventspace.run/2} ({@link RunReportFuzzer}). */
    RUN_REPORT("run-report"),
    /** Topology files and the ibnetdiscover and forwarding-table files they name ({@link TopologyFuzzer}). */
    TOPOLOGY("topology"),
    /** The dashboard's HTTP API, raw requests against a live server ({@link HttpFuzzer}). */
    HTTP("http");

    private final String label;

    FuzzFormat(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** @throws IllegalArgumentException naming the text and every format. */
    public static FuzzFormat parse(String text) {
        for (FuzzFormat f : values()) {
            if (f.label.equals(text.toLowerCase(Locale.ROOT))) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown format '" + FuzzCase.cut(text, 40) + "'; expected all, "
                + String.join(", ", labels()));
    }

    static List<String> labels() {
        return Arrays.stream(values()).map(FuzzFormat::label).toList();
    }

    /** Opens this format's fuzzer; {@code work} is a directory it may use for files (deleted afterwards). */
    Fuzzer open(Path work) throws IOException {
        return switch (this) {
            case PATHMAP -> new PathmapFuzzer();
            case JOB_CONFIG -> new ConfigLineFuzzer<>(label, jobTemplates(), "/pathmap", JobConfigCodec::decode,
                    JobConfigCodec::encode);
            case RUN_CONFIG -> new ConfigLineFuzzer<>(label, runTemplates(), "/job/pathmap", RunConfigCodec::decode,
                    RunConfigCodec::encode);
            case TRACE_DUMP -> new TraceDumpFuzzer(work);
            case TCP -> new TcpFuzzer();
            case RENDEZVOUS -> new RendezvousFuzzer();
            case WAN -> new WanFileFuzzer(work);
            case TRACE_FILE -> new TraceFileFuzzer(work);
            case RUN_REPORT -> new RunReportFuzzer();
            case TOPOLOGY -> new TopologyFuzzer(work);
            case HTTP -> new HttpFuzzer();
        };
    }

    /** Valid jobs: a TCP shortcut job; one with a scope, a trace dump and selected collectors; one without collectors. */
    static List<JobConfig> jobTemplates() {
        PathmapSpec clusters = PathmapConfig.parse(PathmapFuzzer.TEMPLATES.get(0), "two-clusters.json");
        PathmapSpec mapped = PathmapConfig.parse(PathmapFuzzer.TEMPLATES.get(3), "mapped.json");
        return List.of(
                JobConfig.of(JobConfig.shortcut(4, 2, 1, TreeShape.hier(2)), JobTransport.TCP),
                JobConfig.of(clusters, JobTransport.JVM)
                        .withCollectorSettings(new CollectorSettings(Set.of("gred", "proxy"), Set.of(0, 1), 64))
                        .withScope(ScopeSettings.parse("hier:2", "par:2", "hist:16", 100))
                        .withTraceDump(Path.of("/tmp/es-fuzz-dump")),
                new JobConfig(mapped, JobTransport.TCP, Duration.ofMillis(1500), PollMode.BLOCK, 65_536, false, null,
                        CollectorSettings.ALL, null),
                JobConfig.of(JobConfig.shortcut(8, 4, 2, TreeShape.kary(3)), JobTransport.TCP)
                        .withScope(ScopeSettings.parse("flat", "seq", "class:MPI_.*", ScopeSettings.ADAPTIVE)));
    }

    /** Valid runs of each benchmark, on the jobs above. */
    static List<RunConfig> runTemplates() {
        List<JobConfig> jobs = jobTemplates();
        return List.of(
                new RunConfig(Workload.GSUM, jobs.get(0), 1000, 100, RunConfig.DEFAULT_WARMUP_TIME, 1, 0),
                new RunConfig(Workload.PINGPONG, jobs.get(2), 10, 1, Duration.ZERO, 16, 0),
                new RunConfig(Workload.COMPUTE_GSUM, jobs.get(1), 500, 50, Duration.ofSeconds(2), 4, 4096),
                new RunConfig(Workload.GSUM, jobs.get(3), 200, 20, Duration.ofMillis(10), 1, 0));
    }
}
