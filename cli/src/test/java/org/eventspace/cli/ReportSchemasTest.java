package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** docs/schema: every file a valid draft 2020-12 schema, and strict enough to catch a renamed or missing field. */
class ReportSchemasTest {
    @Test
    void everySchemaIsAValidDraft202012SchemaWithIdTitleAndRequiredFields() throws IOException {
        List<String> files;
        try (Stream<Path> s = Files.list(ReportSchemas.DIR)) {
            files = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".schema.json")).sorted().toList();
        }
        assertThat(files).contains("run-report.schema.json", "dashboard-frame.schema.json");
        assertThat(files.size()).isGreaterThan(15);
        files.forEach(ReportSchemas::assertValidSchema);
    }

    @Test
    void aRenamedOrMissingFieldOrAWrongTypeIsCaught() {
        ObjectNode health = (ObjectNode) ReportSchemas.parse("{\"status\":\"ok\",\"schema\":\"eventspace.dashboard/1\","
                + "\"api\":\"v1\",\"running\":true,\"frame\":3,\"uptime_s\":1.5,\"stream_clients\":0,\"server_threads\":4,"
                + "\"lowest_priority_threads\":4}");
        assertThat(ReportSchemas.errors("dashboard-health.schema.json", health.toString())).isEmpty();

        ObjectNode renamed = health.deepCopy();
        renamed.set("uptimeSeconds", renamed.remove("uptime_s"));
        assertThat(ReportSchemas.errors("dashboard-health.schema.json", renamed.toString())).singleElement()
                .asString().contains("uptime_s");
        ObjectNode wrongType = health.deepCopy().put("frame", "3");
        assertThat(ReportSchemas.errors("dashboard-health.schema.json", wrongType.toString())).isNotEmpty();
        ObjectNode otherVersion = health.deepCopy().put("schema", "eventspace.dashboard/2");
        assertThat(ReportSchemas.errors("dashboard-health.schema.json", otherVersion.toString())).isNotEmpty();
    }
}
