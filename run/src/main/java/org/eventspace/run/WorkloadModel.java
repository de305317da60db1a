package org.eventspace.run;

import java.util.List;

import org.eventspace.monitor.JobModel;
import org.eventspace.monitor.model.RunModel;

/** A finished run of one of our workloads as the one run model: {@link JobModel} with the ranks' results. */
final class WorkloadModel {
    private WorkloadModel() {
    }

    static RunModel of(RunReport report) {
        RunConfig config = report.config();
        int[] hostOf = new int[config.ranks()];
        for (int r = 0; r < hostOf.length; r++) {
            hostOf[r] = config.spec().hostOf(r);
        }
        List<JobModel.Outcome> outcomes = report.ranks().stream()
                .map(r -> new JobModel.Outcome(r.rank(), r.resultOk(), r.error())).toList();
        return JobModel.of(new JobModel.Job(config.benchmark().label(), hostOf, config.hosts(),
                        config.transport().label(), report.measured() ? report.wallSeconds() : null), report.monitors(),
                outcomes, report.errors(), report.tuplesWritten(), report.tuplesOverwritten());
    }
}
