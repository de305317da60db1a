package org.eventspace.job;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link JobObserver} registered for the tests (src/test/resources/META-INF/services): it watches a job only when the
 * environment has {@link #ENV} (so other tests' jobs are left alone), and records what it was told; {@code ENV=fail}
 * makes it refuse, as a malformed request does.
 */
public final class RecordingObserver implements JobObserver {
    static final String ENV = "ES_TEST_OBSERVER";
    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    @Override
    public Watch watch(MonitoredJob job, Map<String, String> env) {
        String asked = env.get(ENV);
        if (asked == null) {
            return null;
        }
        if (asked.equals("fail")) {
            throw new IllegalArgumentException(ENV + ": refused on purpose");
        }
        EVENTS.add("watch host " + job.host() + (job.runsFrontEnd() ? " front-end" : ""));
        return new Watch() {
            @Override
            public void finishing() {
                EVENTS.add("finishing");
            }

            @Override
            public void close() {
                EVENTS.add("close");
            }
        };
    }
}
