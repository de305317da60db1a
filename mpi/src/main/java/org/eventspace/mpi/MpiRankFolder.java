package org.eventspace.mpi;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The rank files of one run's {@code mpirun --trace-dir} folder, opened together: each rank's files by its rank, the
 * hosts' clocks, the world's size. What both exact exports (the Perfetto timeline, {@link MpiTimeline}, and OTF2,
 * {@link MpiOtf2Export}) read. Closing it closes every file it opened.
 *
 * @param byRank    every rank's files, by world rank
 * @param clocks    the hosts' clock offsets, as the analysis maps them
 * @param worldSize the size of MPI_COMM_WORLD the files name
 */
record MpiRankFolder(TreeMap<Integer, MpiRankFiles> byRank, HostClocks clocks, int worldSize, List<MpiRankFiles> opened)
        implements AutoCloseable {

    /**
     * Opens every {@code host-*}/{@code rank-*.meta} under {@code dir}.
     *
     * @throws IOException naming the folder if it holds no rank files or a rank twice, or a file that is not one of
     *                     this version (every file opened so far is closed).
     */
    static MpiRankFolder open(Path dir) throws IOException {
        TreeMap<Integer, MpiRankFiles> byRank = new TreeMap<>();
        HostClocks clocks = new HostClocks();
        int worldSize = 0;
        int notStarted = 0;
        List<MpiRankFiles> opened = new ArrayList<>();
        try {
            int host = -1;
            for (Path hostDir : hostFolders(dir)) {
                host++;
                List<Path> metas = new ArrayList<>();
                try (DirectoryStream<Path> files = Files.newDirectoryStream(hostDir, "rank-*.meta")) {
                    files.forEach(metas::add);
                }
                metas.sort(null);
                for (Path meta : metas) {
                    MpiRankFiles f = MpiRankFiles.open(meta, host);
                    if (f == null) {
                        notStarted++;
                        continue;
                    }
                    opened.add(f);
                    if (f.rank() < 0 || f.rank() >= f.size()) {
                        throw new IOException("MPI rank meta file " + meta + " says rank " + f.rank() + " of " + f.size()
                                + "; expected 0 <= rank < size");
                    }
                    if (byRank.put(f.rank(), f) != null) {
                        throw new IOException(dir + " holds rank " + f.rank() + " more than once; expected one "
                                + "rank-<R>.meta per rank (the folder of one run)");
                    }
                    worldSize = Math.max(worldSize, f.size());
                    clocks.add(host, f);
                }
            }
            if (byRank.isEmpty()) {
                throw new IOException(dir + " holds no MPI rank files: expected host-<h>/rank-<R>.meta and .trace, as "
                        + "eventspace mpirun --trace-dir DIR writes them"
                        + (notStarted > 0 ? " (" + notStarted + " meta files had no header yet)" : ""));
            }
            return new MpiRankFolder(byRank, clocks, worldSize, opened);
        } catch (IOException | RuntimeException e) {
            opened.forEach(MpiRankFiles::close);
            throw e;
        }
    }

    @Override
    public void close() {
        opened.forEach(MpiRankFiles::close);
    }

    /**
     * The host folders, {@code host-<host>} (a number with simulated hosts, else the host's name), sorted by name; a
     * host whose files only its agent process pulled here ({@code mirror/host-<host>}) is read from the copy.
     */
    static List<Path> hostFolders(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException(dir + " is not a folder; expected the folder of eventspace mpirun --trace-dir");
        }
        TreeMap<String, Path> hosts = new TreeMap<>();
        for (Path parent : List.of(dir.resolve(MpiRun.MIRROR), dir)) {
            if (!Files.isDirectory(parent)) {
                continue;
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(parent, "host-*")) {
                for (Path h : ds) {
                    if (Files.isDirectory(h)) {
                        hosts.put(h.getFileName().toString(), h);
                    }
                }
            }
        }
        return new ArrayList<>(hosts.values());
    }
}
