import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.trace.*;

/** Run: javac -cp cli/target/eventspace.jar -d /tmp bench/probes/TraceRecordCost.java && java -cp cli/target/eventspace.jar:/tmp TraceRecordCost
 *  Per-call cost of TracingComm over a Comm that returns at once: bare and traced loops interleaved, same JVM. */
public class TraceRecordCost {
    static final class Nop implements Comm {
        long x;
        public int rank() { return 0; } public int size() { return 1; }
        public long allreduce(long v, ReduceOp op) { return x += v; }
        public double allreduce(double v, ReduceOp op) { return v; }
        public void allreduce(long[] v, int c, ReduceOp op) { } public void allreduce(double[] v, int c, ReduceOp op) { }
        public void barrier() { } public void broadcast(long[] d, int c, int r) { } public void gather(long[] s, int c, long[] r, int root) { }
        public void allgather(long[] s, int c, long[] r) { } public void scatter(long[] s, int c, long[] r, int root) { }
        public void alltoall(long[] s, int c, long[] r) { } public void send(int d, long[] x, int c) { } public int recv(int s, long[] i) { return 0; }
    }
    static long loop(Comm c, int n) {
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) { c.allreduce(i, ReduceOp.SUM); }
        return System.nanoTime() - t0;
    }
    public static void main(String[] a) {
        int n = 5_000_000;
        for (TimeEncoding e : TimeEncoding.values()) {
            long bare = Long.MAX_VALUE, traced = Long.MAX_VALUE;
            for (int r = 0; r < 7; r++) {
                bare = Math.min(bare, loop(new Nop(), n));
                traced = Math.min(traced, loop(new TracingComm(new Nop(), TraceConfig.of(e)), n));
            }
            System.out.printf("%s: bare %.1f ns/call, traced %.1f ns/call, added %.1f ns/call (best of 7 interleaved, %d calls each)%n",
                e.fileName(), bare / (double) n, traced / (double) n, (traced - bare) / (double) n, n);
        }
        long t0 = System.nanoTime(); System.nanoTime(); long clock = 0;
        for (int i = 0; i < 1_000_000; i++) { clock += System.nanoTime(); }
        System.out.printf("one System.nanoTime(): %.1f ns%n", (System.nanoTime() - t0) / 1e6);
    }
}
