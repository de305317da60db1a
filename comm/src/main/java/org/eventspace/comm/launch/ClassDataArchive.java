package org.eventspace.comm.launch;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The class-data archive of the jar a job's host processes run from (JDK 17's dynamic application class-data sharing):
 * the classes a host process loads, parsed and verified once and mapped by every later process instead of read from
 * the jar again. A host process then reaches its hello on about a third less CPU (docs/RELIABILITY.md), which is what
 * the start of a job of many processes on few cores is made of.
 *
 * <p>The archive is made by the first job that finds none: its host 0 writes it when it exits
 * ({@code -XX:ArchiveClassesAtExit}) under a name of its own, and only once that process ended well is it moved to
 * {@code <jar without .jar>.jsa} beside the jar, with an identity file ({@code .jsa.id}) saying which JVM build, which
 * jar (size and time) and which archive size it belongs to. A later job uses it only while all three still hold: a
 * rebuilt jar or another JDK makes a new one instead of a JVM warning in every process, and a file that is not the
 * archive that was installed (a truncated copy would crash the JVM) is never handed to one. Nothing of this happens when
 * the class path is not one jar (the tests' directories of classes) or the jar's folder cannot be written.
 *
 * <p>Immutable; any thread. Two jobs that start at once may both write one; the last move wins, whole.
 */
final class ClassDataArchive {
    private final Path jar;
    private final Path archive;
    private final Path identityFile;

    private ClassDataArchive(Path jar) {
        this.jar = jar;
        String name = jar.getFileName().toString();
        Path folder = jar.toAbsolutePath().getParent();
        this.archive = folder.resolve(name.substring(0, name.length() - ".jar".length()) + ".jsa");
        this.identityFile = folder.resolve(archive.getFileName() + ".id");
    }

    /**
     * The archive of {@code command} when it runs this JVM's {@code java} with a class path of exactly one jar that
     * exists ({@link Launcher#javaCommand} makes such commands when this JVM runs from a jar); null otherwise, or when
     * the command already says something about class-data sharing.
     */
    static ClassDataArchive forCommand(List<String> command) {
        if (command.isEmpty() || !command.get(0).equals(javaExecutable())) {
            return null;
        }
        Path jar = null;
        for (int i = 1; i < command.size(); i++) {
            String word = command.get(i);
            if (word.startsWith("-XX:SharedArchiveFile") || word.startsWith("-XX:ArchiveClassesAtExit")
                    || word.startsWith("-Xshare")) {
                return null;
            }
            if ((word.equals("-cp") || word.equals("-classpath") || word.equals("--class-path")) && i + 1 < command.size()) {
                String path = command.get(i + 1);
                if (!path.endsWith(".jar") || path.contains(File.pathSeparator)) {
                    return null;
                }
                jar = Path.of(path);
                break;
            }
            if (!word.startsWith("-")) {
                return null; // The main class came first: no class path given.
            }
        }
        return jar != null && Files.isRegularFile(jar) ? new ClassDataArchive(jar) : null;
    }

    static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    Path archive() {
        return archive;
    }

    /** What the identity file says of an archive of {@code archiveBytes} made for this jar by this JVM build. */
    private String identity(long archiveBytes) throws IOException {
        return "vm=" + System.getProperty("java.vm.version") + " jar=" + Files.size(jar) + ":"
                + Files.getLastModifiedTime(jar).toMillis() + " archive=" + archiveBytes + "\n";
    }

    /** Whether the installed archive belongs to this jar and this JVM build, and is whole. */
    boolean usable() {
        try {
            return Files.isRegularFile(archive) && Files.isRegularFile(identityFile)
                    && Files.readString(identityFile, StandardCharsets.UTF_8).equals(identity(Files.size(archive)));
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether one can be made here: the jar's folder is writable. */
    boolean creatable() {
        return Files.isWritable(archive.getParent());
    }

    /** {@code command} mapping the archive, as a new list the caller may add to. */
    List<String> using(List<String> command) {
        return withOption(command, "-XX:SharedArchiveFile=" + archive);
    }

    /** {@code command} writing an archive to {@code draft} when its JVM exits. */
    List<String> dumpingTo(List<String> command, Path draft) {
        return withOption(command, "-XX:ArchiveClassesAtExit=" + draft);
    }

    /** A name of its own for the archive one process of this job writes. */
    Path draft() {
        return archive.resolveSibling(archive.getFileName() + ".draft-" + ProcessHandle.current().pid() + "-"
                + System.nanoTime());
    }

    /**
     * Installs the archive a process that ended well wrote to {@code draft}: its identity first, then the archive moved
     * into place. False (and the draft removed) when there is no draft or it cannot be installed: the next job tries again.
     */
    boolean install(Path draft) {
        try {
            if (!Files.isRegularFile(draft) || Files.size(draft) == 0) {
                return false;
            }
            Path id = identityFile.resolveSibling(draft.getFileName() + ".id");
            Files.writeString(id, identity(Files.size(draft)), StandardCharsets.UTF_8);
            // The identity is moved first: until the archive follows, the identity names a size the old archive (if
            // any) does not have, so no process uses a mix of the two.
            move(id, identityFile);
            move(draft, archive);
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            discard(draft);
        }
    }

    /** Removes a draft that will not be installed (its process failed), or what is left of one that was. */
    static void discard(Path draft) {
        try {
            Files.deleteIfExists(draft);
        } catch (IOException e) {
            // Left behind; named by its pid and never used.
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * {@code command} with {@code option} after the java executable, and the JVM's CDS log off: writing an archive warns
     * on stderr for every class it cannot hold (reflection's generated accessors, "Pre JDK 6 class not supported by
     * CDS"), which would be printed as the host's output. An archive that cannot be mapped is still refused quietly: the
     * JVM then loads classes the usual way.
     */
    private static List<String> withOption(List<String> command, String option) {
        List<String> with = new ArrayList<>(command.size() + 3);
        with.add(command.get(0));
        with.add(option);
        with.add("-Xlog:cds=off");
        with.add("-Xlog:cds+dynamic=off");
        with.addAll(command.subList(1, command.size()));
        return with;
    }
}
