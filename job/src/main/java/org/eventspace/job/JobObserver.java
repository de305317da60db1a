package org.eventspace.job;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Something that watches a job a process joins without the program asking for it — the live dashboard, when the
 * launcher asked for one (ToM §3's transparent instantiation: the tool attaches to a job it did not write). Found with
 * {@link ServiceLoader} ({@code META-INF/services/org.eventspace.job.JobObserver}), so {@code job} names no module above
 * it: a higher module implements this and registers the implementation.
 *
 * <p>{@link MonitoredJob#join} asks every observer once the job started (on host 0 its event scope's front-end runs);
 * an observer that watches gets {@link Watch#finishing()} when the job finishes (before its scope's last pulls end) and
 * {@link Watch#close()} when it closes. All three run on the thread that joins, finishes and closes the job.
 */
public interface JobObserver {
    /**
     * Whether to watch {@code job}, given the process's environment; null when not.
     *
     * @throws IllegalArgumentException when {@code env} asks for a watch but says how wrongly (the job then does not
     *                                  start: a launcher's request that cannot be met is an error, not a silent no).
     */
    Watch watch(MonitoredJob job, Map<String, String> env);

    /** One observer's watch of one job. */
    interface Watch extends AutoCloseable {
        /** The job's ranks returned and it is finishing: what it shows from now on is final. */
        default void finishing() {
        }

        /** The job closes: end every thread and socket of the watch. Must not throw. */
        @Override
        void close();
    }

    /** The watches every registered observer takes of {@code job} (none throws: a failing observer's error is raised). */
    static List<Watch> watchAll(MonitoredJob job, Map<String, String> env) {
        List<Watch> watches = new ArrayList<>();
        try {
            for (JobObserver o : ServiceLoader.load(JobObserver.class, JobObserver.class.getClassLoader())) {
                Watch w = o.watch(job, env);
                if (w != null) {
                    watches.add(w);
                }
            }
        } catch (RuntimeException e) {
            watches.forEach(Watch::close);
            throw e;
        }
        return watches;
    }
}
