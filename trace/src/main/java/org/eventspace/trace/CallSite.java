package org.eventspace.trace;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A call-site signature: ScalaTrace's stack signature (the XOR of the return addresses on the stack, Ratn et al. §3.3)
 * made once per call site instead of once per call.
 *
 * <p>Walking the stack on the JVM ({@link StackWalker}) costs microseconds, more than an allreduce in one JVM, so a
 * per-call walk is out. Instead a call site is a constant the program declares once —
 * {@code static final CallSite HALO = CallSite.here();} — which walks the stack a single time, at class
 * initialisation, and hashes the declaring class, method and line into a 31-bit id; the program then calls
 * {@code comm.at(HALO).send(...)}, one field write. The id is stable across runs and processes of the same build (it
 * is computed from names, not addresses) and changes when the declaring line moves, as a return address would.
 * Calls made without one get site 0 ("unmarked"): they still compress and merge, but path-sensitive histograms
 * cannot tell their callers apart. The trade-off: exact and nearly free, at the cost of one line per call site.
 *
 * <p>Names are kept in a process-wide table so a trace file can print them. Thread-safe.
 */
public final class CallSite {
    public static final int UNMARKED = 0;
    private static final Map<Integer, String> NAMES = new ConcurrentHashMap<>();
    private static final StackWalker WALKER = StackWalker.getInstance();

    private final int id;
    private final String name;

    private CallSite(int id, String name) {
        this.id = id;
        this.name = name;
    }

    /** The call site of the caller of this method: walk the stack once. */
    public static CallSite here() {
        StackWalker.StackFrame frame = WALKER.walk(s -> s.skip(1).findFirst()).orElseThrow();
        return named(frame.getClassName() + "." + frame.getMethodName() + ":" + frame.getLineNumber());
    }

    /** A call site by name (stable id from the name). */
    public static CallSite named(String name) {
        int id = name.hashCode() & 0x7fffffff;
        if (id == UNMARKED) {
            id = 1;
        }
        NAMES.putIfAbsent(id, name);
        return new CallSite(id, name);
    }

    public int id() {
        return id;
    }

    public String name() {
        return name;
    }

    /** The names of every site made in this process. */
    static Map<Integer, String> names() {
        return Map.copyOf(NAMES);
    }

    @Override
    public String toString() {
        return name + "#" + id;
    }
}
