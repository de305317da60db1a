package org.eventspace.comm.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The class-data archive of a jar, made by the first job's host 0 and mapped by the next jobs' processes, over real
 * JVMs: a probe class in a jar of its own, whose class loading the JVM logs to a file.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClassDataArchiveTest {
    @TempDir
    Path dir;

    /**
     * What the jar runs: little, so that each JVM is as short as can be. It calls a method by reflection often enough
     * for the JVM to generate an accessor class, which an archive cannot hold: writing the archive then has something
     * to warn about.
     */
    public static final class Probe {
        public static void main(String[] args) throws Exception {
            Method ran = Probe.class.getMethod("ran");
            for (int i = 0; i < 40; i++) {
                ran.invoke(null);
            }
            System.out.println("probe ran");
        }

        public static void ran() {
        }
    }

    private Path jar() throws IOException {
        Path jar = dir.resolve("probe.jar");
        String entry = Probe.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
             InputStream in = Probe.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }

    private Launcher.Result launch(Path jar, Path classLog) {
        List<String> command = List.of(ClassDataArchive.javaExecutable(), "-Xlog:class+load=info:file=" + classLog,
                "-cp", jar.toString(), Probe.class.getName());
        return Launcher.launch(1, command, Map.of(), Duration.ofSeconds(60));
    }

    private static boolean probeShared(Path classLog) throws IOException {
        return Files.readAllLines(classLog).stream()
                .anyMatch(l -> l.contains(Probe.class.getName() + " source: shared objects file"));
    }

    @Test
    void theFirstJobWritesTheArchiveAndTheNextMapsItUntilTheJarChanges() throws Exception {
        Path jar = jar();
        ClassDataArchive archive = ClassDataArchive.forCommand(List.of(ClassDataArchive.javaExecutable(), "-cp",
                jar.toString(), Probe.class.getName()));
        assertThat(archive).isNotNull();
        assertThat(archive.usable()).isFalse();

        // The JVM's log writes its warnings to stdout, which the launcher copies to ours.
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        Launcher.Result first;
        try {
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            first = launch(jar, dir.resolve("first.log"));
        } finally {
            System.setOut(stdout);
        }
        assertThat(first.exitCode()).isZero();
        String output = printed.toString(StandardCharsets.UTF_8) + String.join("\n", first.hosts().get(0).stderrTail());
        assertThat(output).as("writing the archive prints nothing the user did not ask for").contains("probe ran")
                .doesNotContain("CDS").doesNotContain("[cds");
        assertThat(archive.archive()).isRegularFile().isEqualTo(dir.resolve("probe.jsa"));
        assertThat(dir.resolve("probe.jsa.id")).isRegularFile();
        assertThat(archive.usable()).isTrue();
        assertThat(probeShared(dir.resolve("first.log"))).as("the first job read the probe from the jar").isFalse();
        try (var left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString())).as("no draft left behind")
                    .noneMatch(name -> name.contains("draft"));
        }

        assertThat(launch(jar, dir.resolve("second.log")).exitCode()).isZero();
        assertThat(probeShared(dir.resolve("second.log"))).as("the second job mapped it from the archive").isTrue();

        // A rebuilt jar: the archive is not this jar's any more; the next job makes a new one instead of using it.
        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 2_000));
        assertThat(archive.usable()).isFalse();
        assertThat(launch(jar, dir.resolve("third.log")).exitCode()).isZero();
        assertThat(probeShared(dir.resolve("third.log"))).isFalse();
        assertThat(archive.usable()).isTrue();
    }

    @Test
    void anArchiveThatIsNotTheOneInstalledIsNeverHandedToAJvm() throws Exception {
        Path jar = jar();
        assertThat(launch(jar, dir.resolve("first.log")).exitCode()).isZero();
        ClassDataArchive archive = ClassDataArchive.forCommand(List.of(ClassDataArchive.javaExecutable(), "-cp",
                jar.toString(), Probe.class.getName()));
        assertThat(archive.usable()).isTrue();
        // Cut short (a JVM given such a file dies of SIGBUS): not used, and the job that finds it runs and mends it.
        byte[] whole = Files.readAllBytes(archive.archive());
        archive.archive().toFile().setWritable(true);
        Files.write(archive.archive(), java.util.Arrays.copyOf(whole, 1_000));
        assertThat(archive.usable()).isFalse();
        Launcher.Result result = launch(jar, dir.resolve("second.log"));
        assertThat(result.exitCode()).as(String.join("\n", result.hosts().get(0).stderrTail())).isZero();
        assertThat(Files.size(archive.archive())).isGreaterThan(1_000);
        assertThat(archive.usable()).isTrue();
    }

    @Test
    void onlyOurJavaWithOneJarHasAnArchive() throws Exception {
        Path jar = jar();
        String java = ClassDataArchive.javaExecutable();
        assertThat(ClassDataArchive.forCommand(List.of(java, "-Xmx64m", "-cp", jar.toString(), "Main"))).isNotNull();
        assertThat(ClassDataArchive.forCommand(List.of("/usr/bin/env", "java", "-cp", jar.toString(), "Main"))).isNull();
        assertThat(ClassDataArchive.forCommand(List.of(java, "-cp", jar + File.pathSeparator + jar, "Main"))).isNull();
        assertThat(ClassDataArchive.forCommand(List.of(java, "-cp", dir.toString(), "Main"))).as("classes in a folder").isNull();
        assertThat(ClassDataArchive.forCommand(List.of(java, "-Xshare:off", "-cp", jar.toString(), "Main")))
                .as("the user said otherwise").isNull();
        assertThat(ClassDataArchive.forCommand(List.of(java, "-cp", dir.resolve("none.jar").toString(), "Main"))).isNull();
        assertThat(ClassDataArchive.forCommand(List.of(java, "Main", "-cp", jar.toString()))).isNull();
    }
}
