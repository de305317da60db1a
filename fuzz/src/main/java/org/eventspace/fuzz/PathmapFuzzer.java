package org.eventspace.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import org.eventspace.base.json.Json;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapConfig;
import org.eventspace.comm.pathmap.PathmapConfigException;
import org.eventspace.comm.pathmap.PathmapSpec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Pathmap configuration files ({@code eventspace.pathmap/1}, docs/PATHMAP.md): a valid file damaged by
 * {@link JsonMutator} is parsed with {@link PathmapConfig#parse}, and a file that parses is built with
 * {@link PathmapBuilder#build}. Parsing may only refuse with a {@link PathmapConfigException} (file:line:col, at most
 * {@link FuzzCase#MAX_MESSAGE_CHARS} characters); building may only refuse with an {@link IllegalArgumentException}
 * whose message is as bounded, and a built pathmap has no more nodes than {@link PathmapBuilder#maxNodes} promised.
 *
 * <p>A spec that could need more than {@link PathmapBuilder#MAX_NODES} nodes must be refused by the builder before it
 * builds anything, so that is checked for every size; a spec within the limit is built only if it has at most
 * {@value #BUILD_NODES} nodes (2^20 ranks take 29 s and 4 GB to build, docs/RELIABILITY.md: not a fuzz case).
 */
final class PathmapFuzzer implements Fuzzer {
    /** Specs of at most this many nodes are built in a case. */
    static final long BUILD_NODES = 1 << 16;
    private static final String SOURCE = "fuzz.json";
    private static final ObjectMapper JSON = Json.mapper();

    /** Valid files: examples/pathmaps/two-clusters.json and the shapes of PathmapConfigTest. */
    static final List<String> TEMPLATES = List.of("""
            {
              "schema": "eventspace.pathmap/1",
              "topology": {
                "clusters": [
                  {"name": "tromso", "hosts": [{"name": "a0", "cpus": 2}, {"name": "a1", "cpus": 2},
                                               {"name": "a2", "cpus": 2}, {"name": "a3", "cpus": 2}]},
                  {"name": "trondheim", "hosts": [ {"prefix": "b", "count": 4, "cpus": 2} ]}
                ]
              },
              "application": {"ranks": 16, "trees": 2, "tree": "hier:2", "overrides": {"trondheim": "flat"}},
              "mapping": {"ranks": "block", "root": "a0", "resultWords": 16384}
            }
            """, """
            {"schema": "eventspace.pathmap/1",
             "topology": {"clusters": [{"name": "c0", "hosts": [{"name": "h0", "cpus": 2}, {"name": "h1", "cpus": 2}]}]},
             "application": {"ranks": 8, "trees": 2, "tree": "hier:2", "overrides": {"h1": "flat", "c0": "binary"}},
             "mapping": {"ranks": "block", "root": "h0", "resultWords": 16384}}
            """, """
            {"schema": "eventspace.pathmap/1",
             "topology": {"clusters": [
               {"name": "c0", "hosts": [{"name": "head", "cpus": 4}, {"prefix": "n", "count": 3, "cpus": 2}]},
               {"name": "c1", "hosts": [{"prefix": "m", "count": 2}]}]},
             "application": {"ranks": 6, "tree": "kary:3"},
             "mapping": {"ranks": "cyclic", "root": "m1"}}
            """, """
            {"schema": "eventspace.pathmap/1",
             "topology": {"clusters": [{"name": "c", "hosts": [{"prefix": "h", "count": 3}]}]},
             "application": {"ranks": 4, "tree": "binary"},
             "mapping": {"ranks": ["h2", "h0", "h2", "h1"]}}
            """, """
            {"schema": "eventspace.pathmap/1",
             "topology": {"clusters": [{"name": "c", "hosts": [{"name": "x"}, {"name": "y"}]}]},
             "application": {"ranks": 3, "tree": "flat"}}
            """);

    private final List<JsonNode> trees = new ArrayList<>();

    PathmapFuzzer() {
        for (String t : TEMPLATES) {
            try {
                trees.add(JSON.readTree(t));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public String format() {
        return "pathmap";
    }

    @Override
    public void run(FuzzCase c) {
        int template = c.random().nextInt(TEMPLATES.size());
        c.note("template " + template);
        JsonMutator mutator = new JsonMutator(c, trees);
        String text = c.random().nextInt(4) == 0 ? mutator.mutatePlausibly(TEMPLATES.get(template))
                : mutator.mutate(TEMPLATES.get(template));
        check(c, text);
    }

    /** Parses and, within the size above, builds {@code text}; the verdict and every check. */
    static void check(FuzzCase c, String text) {
        PathmapSpec spec;
        try {
            spec = PathmapConfig.parse(text, SOURCE);
        } catch (PathmapConfigException e) {
            FuzzCase.checkRefusal(e, FuzzCase.MAX_MESSAGE_CHARS);
            FuzzCase.check(e.getMessage().startsWith(SOURCE + ":" + e.line() + ":" + e.column() + ": ")
                    && e.line() >= 1 && e.column() >= 1, "PathmapConfigException does not start with file:line:col: "
                    + FuzzCase.cut(e.getMessage(), 200));
            c.refused();
            return;
        }
        long maxNodes = PathmapBuilder.maxNodes(spec);
        if (maxNodes > PathmapBuilder.MAX_NODES) {
            try {
                PathmapBuilder.build(spec);
            } catch (IllegalArgumentException e) {
                FuzzCase.checkRefusal(e, FuzzCase.MAX_MESSAGE_CHARS);
                c.refused();
                return;
            }
            throw new FuzzCase.CheckFailed("the builder built a pathmap of up to " + maxNodes + " nodes, more than its "
                    + "limit of " + PathmapBuilder.MAX_NODES);
        }
        if (maxNodes > BUILD_NODES) {
            c.note("parsed; up to " + maxNodes + " nodes, too many to build in a case");
            c.accepted();
            return;
        }
        Pathmap pathmap;
        try {
            pathmap = PathmapBuilder.build(spec);
        } catch (IllegalArgumentException e) {
            FuzzCase.checkRefusal(e, FuzzCase.MAX_MESSAGE_CHARS);
            c.refused();
            return;
        }
        FuzzCase.check(pathmap.nodes().size() <= maxNodes, "the pathmap has " + pathmap.nodes().size()
                + " nodes, more than the " + maxNodes + " PathmapBuilder.maxNodes promised");
        // Writing the spec back reads it again (PathmapConfig.write checks its own round trip).
        try {
            PathmapConfig.write(spec);
        } catch (IllegalArgumentException e) {
            FuzzCase.checkRefusal(e, FuzzCase.MAX_MESSAGE_CHARS);
        }
        c.accepted();
    }
}
