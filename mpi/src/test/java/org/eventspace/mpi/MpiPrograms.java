package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The C (and Fortran) MPI test programs of native/test, built with mpicc into target/native-test, and runs of them
 * through {@link MpiRun}. Without mpicc the tests are skipped, except under CI (CI=true), where .ci/run installs
 * Open MPI and MPICH and a missing compiler or launcher is a failure. Open MPI is the default {@code mpicc} and
 * {@code mpirun}; MPICH is used through Debian's explicit names ({@link #tools}), as it sits beside Open MPI.
 */
final class MpiPrograms {
    static final Path SOURCES = Path.of("..", "native", "test").toAbsolutePath().normalize();
    static final Path BUILD = Path.of("target", "native-test").toAbsolutePath();
    static final ObjectMapper JSON = new ObjectMapper();

    private MpiPrograms() {
    }

    static boolean onPath(String tool) {
        return org.eventspace.base.os.Executables.find(tool) != null;
    }

    /** Skips (or under CI fails) when Open MPI's compiler is missing. */
    static void requireMpi() {
        boolean present = onPath("mpicc") && onPath("mpirun");
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("mpicc/mpirun missing under CI: .ci/run should have installed Open MPI");
        }
        assumeTrue(present, "Open MPI (mpicc, mpirun) not installed");
    }

    /** An implementation's launcher, C compiler and Fortran compiler as this machine (Debian) names them. */
    record Tools(String mpirun, String mpicc, String mpicxx, String mpifort) {
    }

    static Tools tools(MpiImplementation mpi) {
        return mpi == MpiImplementation.OPENMPI ? new Tools("mpirun", "mpicc", "mpicxx", "mpifort")
                : new Tools("mpiexec.hydra", "mpicc.mpich", "mpicxx.mpich", "mpifort.mpich");
    }

    /** Skips (or under CI fails) when {@code mpi}'s compiler or launcher is missing. */
    static void requireMpi(MpiImplementation mpi) {
        Tools t = tools(mpi);
        boolean present = onPath(t.mpicc()) && onPath(t.mpirun());
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new AssertionError(t.mpicc() + "/" + t.mpirun() + " missing under CI: .ci/run should have installed "
                    + mpi.flag());
        }
        assumeTrue(present, mpi.flag() + " (" + t.mpicc() + ", " + t.mpirun() + ") not installed");
    }

    /**
     * The program built from native/test/NAME.c (or NAME.cpp with mpicxx, NAME.f90 with mpifort), rebuilt when its
     * source is newer. Fortran with -fallow-argument-mismatch: an mpif.h program passes buffers of many types to one
     * external procedure, which gfortran 10 and later refuse without it.
     */
    static Path program(String name) throws IOException, InterruptedException {
        return program(MpiImplementation.OPENMPI, name);
    }

    /** The program built against {@code mpi} (a folder per implementation: their binaries do not mix). */
    static Path program(MpiImplementation mpi, String name) throws IOException, InterruptedException {
        requireMpi(mpi);
        Path build = mpi == MpiImplementation.OPENMPI ? BUILD : BUILD.resolve(mpi.flag());
        Files.createDirectories(build);
        Path c = SOURCES.resolve(name + ".c");
        Path cxx = SOURCES.resolve(name + ".cpp");
        boolean fortran = !Files.exists(c) && !Files.exists(cxx);
        Path source = fortran ? SOURCES.resolve(name + ".f90") : Files.exists(c) ? c : cxx;
        Path out = build.resolve(name);
        if (Files.exists(out) && Files.getLastModifiedTime(out).compareTo(newest(source)) > 0) {
            return out;
        }
        Tools t = tools(mpi);
        List<String> command = fortran ? List.of(t.mpifort(), "-O2", "-fallow-argument-mismatch", "-o", out.toString(),
                source.toString())
                : source == cxx ? List.of(t.mpicxx(), "-O2", "-o", out.toString(), source.toString())
                : List.of(t.mpicc(), "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-o", out.toString(), source.toString(), "-lm");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("compiling %s", name).isTrue();
        assertThat(p.exitValue()).as("compiling %s: %s", name, text).isZero();
        return out;
    }

    /** The newest modification time of native/test's sources (a program may include another file there). */
    private static java.nio.file.attribute.FileTime newest(Path source) throws IOException {
        java.nio.file.attribute.FileTime t = Files.getLastModifiedTime(source);
        try (var files = Files.list(SOURCES)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                java.nio.file.attribute.FileTime f = Files.getLastModifiedTime(p);
                t = f.compareTo(t) > 0 ? f : t;
            }
        }
        return t;
    }

    /** A run's result, its report as JSON and the program's own stdout. */
    record Run(MpiRunResult result, JsonNode report, String stdout, String stderr, MpiLiveView live) {
        long calls(String op) {
            return report.path("mpi").path("calls").path(op).asLong(0);
        }
    }

    static Run run(Path traceDir, int np, int simHosts, long skewNs, Path program, String... args)
            throws IOException, InterruptedException {
        return run(null, traceDir, np, simHosts, skewNs, program, args);
    }

    static Run run(org.eventspace.scope.filter.FilterSpec filter, Path traceDir, int np, int simHosts, long skewNs,
                   Path program, String... args) throws IOException, InterruptedException {
        return run(filter, List.of(), traceDir, np, simHosts, skewNs, program, args);
    }

    /** As {@link #run}, with more arguments for mpirun (e.g. {@code -x ES_MPI_SIM_DRIFT_PPM=…}). */
    static Run run(org.eventspace.scope.filter.FilterSpec filter, List<String> mpirunArgs, Path traceDir, int np,
                   int simHosts, long skewNs, Path program, String... args) throws IOException, InterruptedException {
        return run(MpiRunConfig.Agents.THREAD, filter, mpirunArgs, traceDir, np, simHosts, skewNs, program, args);
    }

    /** As {@link #run(Path, int, int, long, Path, String...)}, under {@code mpi}'s launcher with the library built by its compiler. */
    static Run runUnder(MpiImplementation mpi, Path traceDir, int np, int simHosts, long skewNs, Path program, String... args)
            throws IOException, InterruptedException {
        MpiRunConfig config = config(MpiRunConfig.Agents.THREAD, null, List.of(), traceDir, np, simHosts, skewNs, program,
                args);
        if (mpi != MpiImplementation.OPENMPI) {
            Tools t = tools(mpi);
            // Open MPI's transport choice (--mca btl) means nothing to Hydra
            config = config.under(mpi, t.mpirun(), t.mpicc(), List.of());
        }
        return run(new MpiRun(config), traceDir);
    }

    /** As {@link #run}, with the node agents where {@code agents} says. */
    static Run run(MpiRunConfig.Agents agents, org.eventspace.scope.filter.FilterSpec filter, List<String> mpirunArgs,
                   Path traceDir, int np, int simHosts, long skewNs, Path program, String... args)
            throws IOException, InterruptedException {
        return run(new MpiRun(config(agents, filter, mpirunArgs, traceDir, np, simHosts, skewNs, program, args)), traceDir);
    }

    /** The configuration {@link #run} uses. */
    static MpiRunConfig config(MpiRunConfig.Agents agents, org.eventspace.scope.filter.FilterSpec filter,
                               List<String> mpirunArgs, Path traceDir, int np, int simHosts, long skewNs, Path program,
                               String... args) throws IOException {
        Files.createDirectories(traceDir);
        List<String> extra = new ArrayList<>(List.of("--mca", "btl", "self,vader"));
        extra.addAll(mpirunArgs);
        return new MpiRunConfig(np, program.toString(), List.of(args), traceDir,
                MpiRunConfig.DEFAULT_CAPACITY, simHosts, skewNs, "mpirun", "mpicc",
                extra, 60, Set.of("loadbalance", "stats"), true, 0, filter, agents);
    }

    /** Runs {@code mpiRun} (made of a {@link #config}) with the program's output into files of {@code traceDir}. */
    static Run run(MpiRun mpiRun, Path traceDir) throws IOException, InterruptedException {
        Path out = traceDir.resolve("stdout.txt");
        Path err = traceDir.resolve("stderr.txt");
        MpiRunResult result = mpiRun.output(ProcessBuilder.Redirect.to(out.toFile()), ProcessBuilder.Redirect.to(err.toFile()))
                .input(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).run();
        return new Run(result, JSON.valueToTree(result.toJson(JSON)), Files.readString(out), Files.readString(err), mpiRun.live());
    }

    /** The same program under plain mpirun, without the library: its own output, for comparison. */
    static String bare(int np, Path program, String... args) throws IOException, InterruptedException {
        return plain(np, program, List.of(), args);
    }

    /** Plain {@code mpirun -x LD_PRELOAD=library -x ES_MPI_DIR=dir}, as the docs tell users, with no agent running. */
    static String preloaded(int np, Path program, Path library, String traceDir, String... args)
            throws IOException, InterruptedException {
        return plain(np, program, List.of("-x", "LD_PRELOAD=" + library, "-x", "ES_MPI_DIR=" + traceDir), args);
    }

    private static String plain(int np, Path program, List<String> extra, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("mpirun", "-np", String.valueOf(np), "--oversubscribe", "--mca",
                "btl", "self,vader"));
        command.addAll(extra);
        command.add(program.toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("bare run of " + program + " did not end within 60 s");
        }
        return out;
    }
}
