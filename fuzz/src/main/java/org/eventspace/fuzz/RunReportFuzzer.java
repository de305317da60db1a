package org.eventspace.fuzz;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.eventspace.base.json.Json;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.RunText;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Run reports ({@code eventspace.run/2}, docs/REPORT-FORMAT.md), what {@code report}, {@code diff} and the dashboard of
 * a finished run read: each case takes a report {@link RecordedRuns} made in this JVM (gsum with monitors and a slowed
 * rank, SOR), damages its JSON with {@link JsonMutator} (a quarter of the cases: plausible values only, which often
 * stay valid), parses it and reads it with {@link RunModel#read}; a model it reads is written as the text summary
 * ({@link RunText#lines}) and back to JSON.
 *
 * <p>Passes if the document is refused only as JSON (a {@link JsonProcessingException}, what the commands report as
 * "not JSON") or by {@code RunModel.read} with an {@link IllegalArgumentException} that starts with the source's name,
 * has at most {@link FuzzCase#MAX_MESSAGE_CHARS} characters and wraps no programming error, and a model it reads
 * summarises and serialises without throwing. Stateless between cases.
 */
final class RunReportFuzzer implements Fuzzer {
    private static final String SOURCE = "fuzz-run.json";
    private static final ObjectMapper JSON = Json.mapper();

    private final List<String> templates = new ArrayList<>();
    private final List<JsonNode> trees = new ArrayList<>();

    RunReportFuzzer() throws IOException {
        for (byte[] r : RecordedRuns.get().reports()) {
            templates.add(new String(r, StandardCharsets.UTF_8));
            trees.add(JSON.readTree(r));
        }
    }

    @Override
    public String format() {
        return "run-report";
    }

    @Override
    public void run(FuzzCase c) {
        int t = c.random().nextInt(templates.size());
        c.note("template " + t);
        JsonMutator m = new JsonMutator(c, trees);
        String text = c.random().nextInt(4) == 0 ? m.mutatePlausibly(templates.get(t)) : m.mutate(templates.get(t));
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        c.input(SOURCE, bytes);
        JsonNode doc;
        try {
            doc = JSON.readTree(bytes);
        } catch (JsonProcessingException e) {
            c.refused();
            return;
        } catch (IOException e) {
            throw new IllegalStateException("reading bytes in memory failed", e);
        }
        RunModel model;
        try {
            model = RunModel.read(doc, SOURCE);
        } catch (IllegalArgumentException e) {
            FuzzCase.checkRefusal(e, FuzzCase.MAX_MESSAGE_CHARS);
            FuzzCase.check(e.getMessage().startsWith(SOURCE), "RunModel.read's IllegalArgumentException does not start "
                    + "with the source's name: " + FuzzCase.cut(e.getMessage(), 200));
            c.refused();
            return;
        }
        RunText.lines(model);
        model.toJson(JSON);
        c.accepted();
    }
}
