/**
 * How fast this machine moves a cache line between two cores: two threads bounce a volatile counter
 * 3 000 000 times; prints the mean, p50 and p99 of one round trip (two transfers) over the second half.
 * Run it beside a comparison to know which state the host is in: {@code java bench/probes/CacheLinePingPong.java}
 */
public class CacheLinePingPong {
    static volatile long x;
    static volatile long y;

    public static void main(String[] args) throws Exception {
        final int n = 3_000_000;
        Thread other = new Thread(() -> {
            for (long i = 1; i <= n; i++) {
                while (x != i) {
                    Thread.onSpinWait();
                }
                y = i;
            }
        });
        other.start();
        long[] rounds = new long[n];
        long previous = System.nanoTime();
        for (long i = 1; i <= n; i++) {
            x = i;
            while (y != i) {
                Thread.onSpinWait();
            }
            long now = System.nanoTime();
            rounds[(int) i - 1] = now - previous;
            previous = now;
        }
        other.join();
        int from = n / 2;
        long sum = 0;
        for (int i = from; i < n; i++) {
            sum += rounds[i];
        }
        java.util.Arrays.sort(rounds, from, n);
        int m = n - from;
        System.out.printf("round trip: mean %.0f ns, p50 %d ns, p99 %d ns%n", (double) sum / m, rounds[from + m / 2],
                rounds[from + (int) (m * 0.99)]);
    }
}
