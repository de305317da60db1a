package org.eventspace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.eventspace.base.io.BoundedFiles;
import org.eventspace.base.io.InputLimitException;
import org.eventspace.monitor.RunDiff;
import org.eventspace.base.json.Json;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code eventspace diff A.json B.json}: two runs' models compared on a common scale (dissertation §7.1, the last step),
 * MPI runs and ours alike.
 */
@Command(name = "diff", mixinStandardHelpOptions = true,
        description = "Compare two run reports (eventspace.run/2, from run --json or mpirun --json) on a common scale: "
                + "each run's verdict, the rank whose wait changed most, per operation its calls, time per rank and "
                + "imbalance, per rank its wait, lateness, late-sender wait and calls, and for our workloads with "
                + "--monitor stats every gred's stages; only figures both runs have, the rest listed as not compared.")
final class DiffCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "A.json", description = "The first run's report.")
    Path a;

    @Parameters(index = "1", paramLabel = "B.json", description = "The second run's report.")
    Path b;

    @Option(names = "--json", paramLabel = "OUT", description = "Also write the eventspace.diff/2 document to this file.")
    Path json;

    @Override
    public Integer call() throws IOException {
        if (json != null) {
            OutputFiles.checkWritable(json, "--json");
        }
        ObjectMapper mapper = Json.mapper();
        RunDiff diff;
        try {
            diff = RunDiff.of(a.toString(), read(mapper, a), b.toString(), read(mapper, b));
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
        System.out.print(diff.text());
        if (json != null) {
            OutputFiles.write(json, "--json", file -> Json.pretty().writeValue(file.toFile(), diff.toJson(mapper)));
        }
        return EventSpaceCommand.EXIT_OK;
    }

    /** A report's tree, read bounded ({@link BoundedFiles}): a file over the input limit is refused before reading. */
    static JsonNode read(ObjectMapper mapper, Path file) {
        if (Files.isDirectory(file)) {
            throw new UsageError(file + ": a folder, not a run report (what run --json or mpirun --json writes)"
                    + MpirunCommand.recoverHint(file));
        }
        if (!Files.exists(file)) {
            throw new UsageError(file + ": no such file (expected a run report, what run --json or mpirun --json writes)");
        }
        try {
            return BoundedFiles.readTree(file);
        } catch (InputLimitException e) {
            throw new UsageError(e.getMessage());
        } catch (JsonProcessingException e) {
            throw new UsageError(file + ":" + e.getLocation().getLineNr() + ":" + e.getLocation().getColumnNr()
                    + ": not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UsageError(file + ": cannot read: " + e.getMessage());
        }
    }
}
