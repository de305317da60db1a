package org.eventspace.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.eventspace.net.Fabric;
import org.eventspace.net.HostMapping;
import org.eventspace.net.LinkLoads;
import org.eventspace.net.NetworkSvg;
import org.eventspace.net.TopologyFile;
import org.eventspace.net.TrafficMatrix;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code eventspace traffic}: a run's communication matrix over a network (ibprof + BoxFish). */
@Command(name = "traffic", mixinStandardHelpOptions = true, subcommands = {TrafficCommand.Map.class},
        description = "Map a run's communication matrix (run --traffic) over a network topology and its routing: the "
                + "traffic on every link in each direction (map).")
final class TrafficCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * {@code eventspace traffic map --topology TOPO [--mapping MAP] [--phase P] FILE --json OUT}: routes the host × host
     * bytes of FILE (as the senders counted them) over TOPO and writes {@code eventspace.link-loads/1}; prints the hottest
     * link halves. Exit 2 for a malformed file (file, line or field, what was expected) or a route the tables break.
     */
    @Command(name = "map", mixinStandardHelpOptions = true,
            description = "Route a traffic file's host x host bytes over a topology and write the bytes on every link in "
                    + "each direction (eventspace.link-loads/1); prints the hottest links.")
    static final class Map implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "An eventspace.traffic/1 file (run --traffic).")
        Path traffic;

        @Option(names = "--topology", required = true, paramLabel = "TOPO",
                description = "An eventspace-topology 1 file: fattree, torus, a graph with forwarding tables, or "
                        + "ibnetdiscover output (docs/TOPOLOGY-FORMAT.md; examples/topology/).")
        Path topology;

        @Option(names = "--mapping", paramLabel = "MAP", description = "An eventspace-mapping 1 file: host -> node. "
                + "Default: host i on the topology's node i.")
        Path mapping;

        @Option(names = "--phase", paramLabel = "P", description = "Only the bytes of this phase of the traffic file. "
                + "Default: every phase.")
        String phase;

        @Option(names = "--operation", paramLabel = "OP", description = "Only the bytes of this operation (send, allreduce, "
                + "…; an MPI run's send, collectives, one-sided), summed over the phases: where one collective's traffic goes. "
                + "Not with --phase (the file keeps the two apart). Default: every operation.")
        String operation;

        @Option(names = "--json", required = true, paramLabel = "OUT", description = "Write eventspace.link-loads/1 here.")
        Path json;

        @Option(names = "--svg", paramLabel = "FILE", description = "Also draw the network as SVG: nodes at the bottom, "
                + "switch levels above (a torus as a grid), each half of a link coloured by the bytes sent from its end, the "
                + "hottest links listed; click a link to select it.")
        Path svg;

        @Override
        public Integer call() throws IOException {
            OutputFiles.checkWritable(json, "--json");
            if (svg != null) {
                OutputFiles.checkWritable(svg, "--svg");
            }
            TrafficMatrix matrix;
            Fabric fabric;
            HostMapping hosts;
            int phaseIndex = -1;
            int operationIndex = -1;
            if (phase != null && operation != null) {
                throw new UsageError("traffic map: --phase and --operation: the traffic file keeps per phase and per operation "
                        + "apart, not both at once; give one");
            }
            try {
                matrix = TrafficMatrix.read(traffic);
                fabric = TopologyFile.read(topology);
                hosts = mapping != null ? HostMapping.read(mapping, matrix.hostNames(), fabric)
                        : HostMapping.inOrder(matrix.hostNames(), fabric);
                if (operation != null) {
                    operationIndex = matrix.operations().indexOf(operation);
                    if (operationIndex < 0) {
                        throw new IllegalArgumentException("--operation " + operation + ": " + traffic + " has the operations "
                                + matrix.operations());
                    }
                }
                if (phase != null) {
                    phaseIndex = matrix.phases().indexOf(phase);
                    if (phaseIndex < 0) {
                        throw new IllegalArgumentException("--phase " + phase + ": " + traffic + " has the phases "
                                + matrix.phases());
                    }
                }
            } catch (IllegalArgumentException e) {
                throw new UsageError("traffic map: " + e.getMessage(), e);
            }
            LinkLoads loads;
            try {
                loads = LinkLoads.route(fabric, operationIndex >= 0 ? matrix.hostMatrixOf(operationIndex, 0)
                        : matrix.hostMatrix(phaseIndex, 0), hosts);
            } catch (IllegalArgumentException e) {
                throw new UsageError("traffic map: " + topology + ": " + e.getMessage(), e);
            }
            ObjectMapper out = Json.mapper();
            com.fasterxml.jackson.databind.node.ObjectNode doc = loads.toJson(out, topology.toString(), traffic.toString(),
                    phase != null ? phase : operation != null ? "operation " + operation : "total");
            out.writerWithDefaultPrettyPrinter().writeValue(json.toFile(), doc);
            if (svg != null) {
                java.nio.file.Files.writeString(svg, NetworkSvg.render(doc));
            }
            PrintWriter w = spec.commandLine().getOut();
            w.printf(Locale.ROOT, "%s: %d hosts on %d nodes, %d links, %d B routed (%d B between hosts on one node), "
                            + "%d byte-hops%n", fabric.description(), matrix.hosts(), fabric.nodes().size(), fabric.links().size(),
                    loads.routedBytes(), loads.sameNodeBytes(), loads.byteHops());
            List<long[]> hot = loads.hottest(5);
            w.println("hottest link halves (bytes sent from the first end):");
            for (long[] h : hot) {
                Fabric.Link l = fabric.links().get((int) h[0]);
                String from = fabric.device(h[1] == 0 ? l.a() : l.b()).name();
                String to = fabric.device(h[1] == 0 ? l.b() : l.a()).name();
                w.printf(Locale.ROOT, "  %-20s -> %-20s %,d B%n", from, to, h[2]);
            }
            w.println("-> " + json + (svg != null ? ", " + svg : ""));
            w.flush();
            return EventSpaceCommand.EXIT_OK;
        }
    }
}
