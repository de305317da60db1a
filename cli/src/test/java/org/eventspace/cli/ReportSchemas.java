package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

/**
 * The JSON Schemas of docs/schema (draft 2020-12, docs/REPORT-FORMAT.md) and the check of a real document against
 * one. Documents and schemas go to the validator as text: it reads them with its own Jackson.
 */
final class ReportSchemas {
    static final Path DIR = Repository.root().resolve("docs/schema");
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final ObjectMapper JSON = new ObjectMapper();

    private ReportSchemas() {
    }

    /** What {@code schemaFile} finds wrong with {@code document}; empty when it conforms. */
    static List<String> errors(String schemaFile, String document) {
        Schema schema = REGISTRY.getSchema(read(DIR.resolve(schemaFile)), InputFormat.JSON);
        return schema.validate(document, InputFormat.JSON).stream().map(Error::toString).toList();
    }

    /**
     * Asserts that {@code document} conforms to {@code schemaFile} and, when the schema fixes the {@code schema} field,
     * that the document names that version; returns the document.
     */
    static JsonNode assertConforms(String schemaFile, String document) {
        assertThat(errors(schemaFile, document)).as("%s against docs/schema/%s", abbreviate(document), schemaFile)
                .isEmpty();
        JsonNode doc = parse(document);
        JsonNode version = parse(read(DIR.resolve(schemaFile))).at("/properties/schema/const");
        if (!version.isMissingNode()) {
            assertThat(doc.path("schema").asText()).isEqualTo(version.asText());
        }
        return doc;
    }

    static JsonNode assertConforms(String schemaFile, Path document) {
        return assertConforms(schemaFile, read(document));
    }

    /** The schema file itself is a valid draft 2020-12 schema with the fields docs/REPORT-FORMAT.md promises. */
    static void assertValidSchema(String schemaFile) {
        String text = read(DIR.resolve(schemaFile));
        Schema meta = REGISTRY.getSchema(SchemaLocation.of(SpecificationVersion.DRAFT_2020_12.getDialectId()));
        assertThat(meta.validate(text, InputFormat.JSON)).as(schemaFile).isEmpty();
        JsonNode schema = parse(text);
        assertThat(schema.path("$schema").asText()).as(schemaFile).isEqualTo(SpecificationVersion.DRAFT_2020_12.getDialectId());
        assertThat(schema.path("$id").asText()).as(schemaFile).endsWith("/" + schemaFile);
        assertThat(schema.path("title").asText()).as(schemaFile).isNotBlank();
        assertThat(schema.path("description").asText()).as(schemaFile).isNotBlank();
        assertThat(schema.path("required")).as(schemaFile).isNotEmpty();
    }

    static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String abbreviate(String document) {
        return document.length() <= 400 ? document : document.substring(0, 400) + " …";
    }
}
