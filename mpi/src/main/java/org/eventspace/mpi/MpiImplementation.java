package org.eventspace.mpi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.eventspace.base.os.Executables;

/**
 * The two families of MPI the interposition library is built for and launched under. They differ where the PMPI
 * interface leaves room: handle types (Open MPI's are pointers, MPICH's ints; {@code es_mpi.c} hashes either), the
 * Fortran bindings' library, how the launcher passes a variable to the ranks, and whether the launcher needs to be
 * told to run more ranks than cores. A library built against one cannot run under the other's launcher (the ABIs
 * differ), so a run refuses the mismatch before it starts anything.
 */
public enum MpiImplementation {
    /** Open MPI: {@code mpirun -x VAR=VALUE}, {@code --oversubscribe}, Fortran bindings in {@code libmpi_mpifh}. */
    OPENMPI("openmpi", "-lmpi_mpifh"),
    /**
     * MPICH and its derivatives (Intel MPI, MVAPICH, Cray MPICH): Hydra's {@code mpiexec -genv VAR VALUE}, which
     * oversubscribes as it is. Its Fortran bindings call the C {@code MPI_} entry points, which the library wraps
     * already: no Fortran wrappers, no Fortran library to link ({@code es_mpi.c} leaves them out).
     */
    MPICH("mpich", null);

    private static final long ASK_TIMEOUT_S = 30;

    private final String flag;
    private final String fortranLibrary;

    MpiImplementation(String flag, String fortranLibrary) {
        this.flag = flag;
        this.fortranLibrary = fortranLibrary;
    }

    /** The name {@code --mpi} takes and the library's cache folder carries. */
    public String flag() {
        return flag;
    }

    /**
     * The Fortran bindings' library to link, so the Fortran wrappers' {@code pmpi_*_} calls resolve; null: this
     * implementation needs no Fortran wrappers.
     */
    String fortranLibrary() {
        return fortranLibrary;
    }

    /**
     * {@code openmpi} or {@code mpich}.
     *
     * @throws IllegalArgumentException naming what was expected.
     */
    public static MpiImplementation of(String flag) {
        for (MpiImplementation m : values()) {
            if (m.flag.equals(flag.toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        throw new IllegalArgumentException("--mpi must be openmpi, mpich or auto, got '" + flag + "'");
    }

    /** The launcher's arguments that give every rank {@code name=value}. */
    List<String> environment(String name, String value) {
        return this == OPENMPI ? List.of("-x", name + "=" + value) : List.of("-genv", name, value);
    }

    /** Whether the launcher must be told to start more ranks than there are cores (Hydra does so unasked). */
    boolean needsOversubscribe() {
        return this == OPENMPI;
    }

    /**
     * The implementation a compiler wrapper builds against: Open MPI's {@code mpicc} answers {@code -showme}, an
     * MPICH-derived one {@code -show} (its link line names {@code -lmpich}, or {@code -lmpi} for Intel MPI).
     *
     * @throws IOException naming the compiler if it is missing or answers neither.
     */
    static MpiImplementation ofCompiler(String mpicc) throws IOException {
        Answer showme = ask(List.of(mpicc, "-showme:version"));
        if (showme.exit == 0) {
            return OPENMPI;
        }
        Answer show = ask(List.of(mpicc, "-show"));
        if (show.exit == 0 && (show.text.contains("-lmpich") || show.text.contains("-lmpi"))) {
            return MPICH;
        }
        throw new IOException(mpicc + " is neither Open MPI's compiler wrapper (-showme) nor an MPICH-derived one"
                + " (-show naming -lmpich); its answer: " + show.text.strip());
    }

    /**
     * The implementation a launcher belongs to, from its {@code --version}: Open MPI's {@code mpirun} names
     * "Open MPI" (or its runtime, OpenRTE/PRRTE), Hydra's {@code mpiexec} "HYDRA" (MPICH, MVAPICH, Intel MPI).
     *
     * @throws IOException naming the launcher if it is missing or names neither.
     */
    public static MpiImplementation ofLauncher(String mpirun) throws IOException {
        Answer v = ask(List.of(mpirun, "--version"));
        String text = v.text.toLowerCase(Locale.ROOT);
        if (text.contains("open mpi") || text.contains("openrte") || text.contains("prrte")) {
            return OPENMPI;
        }
        if (text.contains("hydra") || text.contains("mpich") || text.contains("intel(r) mpi")) {
            return MPICH;
        }
        throw new IOException(mpirun + " --version names neither Open MPI nor MPICH's Hydra: " + v.text.strip());
    }

    /**
     * The compiler that goes with a launcher: the {@code mpicc} of the same suffix beside it ({@code mpirun.mpich}
     * → {@code mpicc.mpich}, {@code mpiexec.hydra} → {@code mpicc.mpich}), else this implementation's
     * {@code mpicc.<flag>} beside it, else the {@code mpicc} beside it, else {@code mpicc} as the PATH finds it. Debian installs both families side by side and keeps one the default
     * through alternatives, so the plain names may belong to the other family.
     *
     * @param launcher the launcher's executable (resolved through the PATH), or null if unknown.
     */
    public String compilerBeside(Path launcher) {
        if (launcher == null || launcher.getParent() == null) {
            return "mpicc";
        }
        Path dir = launcher.getParent();
        String name = launcher.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String suffix = dot > 0 ? name.substring(dot) : "";
        if (suffix.equals(".hydra")) {
            suffix = ".mpich";
        }
        for (String candidate : suffix.isEmpty() ? List.of("mpicc." + flag, "mpicc")
                : List.of("mpicc" + suffix, "mpicc." + flag, "mpicc")) {
            if (Files.isExecutable(dir.resolve(candidate))) {
                return dir.resolve(candidate).toString();
            }
        }
        return "mpicc";
    }

    /**
     * The implementation {@code mpirun} belongs to, checked against what the user declared ({@code --mpi}; null:
     * nothing) and against the compiler that builds the library, before anything is built or started.
     *
     * @throws IllegalArgumentException naming both sides and what to give instead, on a mismatch.
     * @throws IOException              if either tool is missing or names neither implementation.
     */
    public static MpiImplementation matching(String mpirun, String mpicc, MpiImplementation declared) throws IOException {
        MpiImplementation launcher = ofLauncher(mpirun);
        if (declared != null && declared != launcher) {
            throw new IllegalArgumentException("--mpi " + declared.flag() + ", but " + mpirun + " is " + launcher.flag()
                    + "'s launcher; give --mpirun " + declared.flag() + "'s (e.g. " + declared.launcherOnPath() + ")");
        }
        MpiImplementation compiler = ofCompiler(mpicc);
        if (launcher != compiler) {
            throw new IllegalArgumentException("the interposition library would be built by " + mpicc + " for "
                    + compiler.flag() + ", but the program runs under " + mpirun + " (" + launcher.flag()
                    + "): their ABIs differ; give --mpicc the " + launcher.flag() + " compiler (e.g. "
                    + launcher.compilerBeside(Executables.find(mpirun)) + ") or --mpirun the " + compiler.flag() + " launcher");
        }
        return launcher;
    }

    /**
     * This implementation's launcher as Debian installs it beside the other's ({@code mpirun.openmpi},
     * {@code mpiexec.hydra}, {@code mpirun.mpich}), else {@code mpirun}.
     */
    public String launcherOnPath() {
        List<String> names = this == OPENMPI ? List.of("mpirun.openmpi", "mpiexec.openmpi")
                : List.of("mpiexec.hydra", "mpirun.mpich", "mpiexec.mpich");
        for (String n : names) {
            if (Executables.find(n) != null) {
                return n;
            }
        }
        return "mpirun";
    }

    private record Answer(int exit, String text) {
    }

    private static Answer ask(List<String> command) throws IOException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot run " + command.get(0) + " (is MPI installed? Debian: apt-get install"
                    + " openmpi-bin libopenmpi-dev, or mpich libmpich-dev): " + e.getMessage(), e);
        }
        try {
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(ASK_TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not answer within " + ASK_TIMEOUT_S + " s");
            }
            return new Answer(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while asking " + command.get(0) + " which MPI it is", e);
        }
    }
}
