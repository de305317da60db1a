package org.eventspace.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.eventspace.ui.RunReportPage;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code eventspace report RUN.json [B.json] -o report.html}: a finished run as one self-contained page. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Write a finished run (eventspace.run/2, from run --json or mpirun --json) as one self-contained HTML "
                + "page: its verdict and coverage and the dashboard's views, frozen; with a second run, the two compared "
                + "on a common scale as diff prints them.")
final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RUN.json", description = "The run's report.")
    Path a;

    @Parameters(index = "1", paramLabel = "B.json", arity = "0..1", description = "A second run to compare it with.")
    Path b;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "The page to write. Default: ${DEFAULT-VALUE}.",
            defaultValue = "report.html")
    Path output;

    @Option(names = "--network", paramLabel = "LOADS.json", description = "Also draw the network with its link traffic: "
            + "an eventspace.link-loads/1 file (traffic map --json).")
    Path network;

    @Override
    public Integer call() throws IOException {
        OutputFiles.checkWritable(output, "-o");
        ObjectMapper mapper = Json.mapper();
        JsonNode runA = DiffCommand.read(mapper, a);
        JsonNode runB = b != null ? DiffCommand.read(mapper, b) : null;
        String page;
        try {
            JsonNode loads = null;
            if (network != null) {
                if (!Files.isRegularFile(network)) {
                    throw new UsageError("--network " + network + ": no such file (expected eventspace.link-loads/1, what "
                            + "traffic map --json writes)");
                }
                loads = DiffCommand.read(mapper, network);
                if (!"eventspace.link-loads/1".equals(loads.path("schema").asText())) {
                    throw new UsageError("--network " + network + ": /schema: expected \"eventspace.link-loads/1\", got "
                            + loads.path("schema"));
                }
            }
            RunReportPage.checkSize(a.toString(), runA, Files.size(a));
            if (b != null) {
                RunReportPage.checkSize(b.toString(), runB, Files.size(b));
            }
            page = RunReportPage.html(a.getFileName().toString(), runA, b != null ? b.getFileName().toString() : null, runB,
                    loads);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
        String html = page;
        OutputFiles.write(output, "-o", file -> Files.writeString(file, html, StandardCharsets.UTF_8));
        System.out.println("wrote " + output + " (" + page.length() / 1024 + " KiB, self-contained: open it in a browser)");
        return EventSpaceCommand.EXIT_OK;
    }
}
