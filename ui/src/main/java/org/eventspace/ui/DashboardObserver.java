package org.eventspace.ui;

import java.util.Map;

import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.job.JobObserver;
import org.eventspace.job.MonitoredJob;

/**
 * Serves the live dashboard of a job its launcher asked for ({@link DashboardRequest#ENV} in the environment: {@code run
 * --transport tcp --serve}, {@code launch --serve}) on the process that runs host 0, where the event scope's
 * front-end gathers every host's monitor results ({@link GatheredJobSource}); the program does nothing for it. Prints
 * {@code dashboard: URL} on stderr once it listens. Registered as a {@link JobObserver} service.
 */
public final class DashboardObserver implements JobObserver {
    @Override
    public Watch watch(MonitoredJob job, Map<String, String> env) {
        String text = env.get(DashboardRequest.ENV);
        if (text == null || job.host() != 0) {
            return null;
        }
        DashboardRequest request = DashboardRequest.decode(text);
        PathmapSpec spec = job.pathmap().spec();
        String filter = job.config().scope() != null ? job.config().scope().filter().text() : "";
        String description = request.description().isEmpty()
                ? String.format(java.util.Locale.ROOT, "%d ranks on %d host processes, %s trees", spec.ranks(),
                job.config().hosts(), spec.shape())
                : request.description();
        if (job.config().scope() == null) {
            description += " (no event scope: the other hosts' monitors cannot be gathered, the tree has no figures)";
        }
        GatheredJobSource source = new GatheredJobSource(job, new DashboardSource.RunInfo(request.name(), description,
                spec.ranks(), job.config().hosts(), spec.shape().toString(), spec.trees(), filter,
                request.injectedSlowRank(), Double.NaN));
        DashboardServer server;
        try {
            server = DashboardServer.start(source, request.bind(), request.port());
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException(DashboardRequest.ENV + ": cannot serve the dashboard on " + request.bind() + ":"
                    + request.port() + ": " + e.getMessage(), e);
        }
        System.err.println("dashboard: " + server.url());
        return new Watch() {
            @Override
            public void finishing() {
                source.finishing();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }
}
