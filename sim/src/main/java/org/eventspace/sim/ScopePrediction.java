package org.eventspace.sim;

/**
 * What {@link ScopeModel} predicts for one {@link ScopeConfig}, in the steady state of back-to-back rounds (or rounds
 * {@code pauseNs} apart). "Cores" are CPU nanoseconds per nanosecond of wall time: 0.25 is a quarter of one core.
 *
 * @param hosts                  H.
 * @param levels                 levels of the scope tree: the root's level + 1 (leaves are level 0).
 * @param roundNs                one pull: from the front-end's PULL to the root's answer handled.
 * @param cycleNs                from one pull's start to the next's: {@code roundNs + pauseNs}, the time each leaf's
 *                               buffers have to hold what their collectors write.
 * @param producedPerRound       records the collectors of all hosts write in one cycle.
 * @param recordsPerRound        records the leaves read in one round (what the filters get).
 * @param gatherRate             {@code recordsPerRound / producedPerRound} (1 when nothing is produced): the
 *                               EventSpace paper's Table 2 measure.
 * @param recordsPerSecond       records gathered per second.
 * @param frontEndBytesPerRound  bytes the root hands the front-end per round: the records for {@code concat}, the
 *                               summary for a reducing filter.
 * @param frontEndBytesPerSecond the same per second.
 * @param frontEndCpuShare       the front-end host's scope CPU over what the threads that do it could use
 *                               ({@code min(cores, 1 + helpers on that host)} cores) in a cycle; 1 when the front-end
 *                               is what bounds the round and pulls are back to back.
 * @param frontEndHostCores      scope CPU on the front-end host (its leaf, the gathers on it, the root, the front-end).
 * @param gatherHostCores        scope CPU on the busiest other host (a leaf-only host in a flat scope).
 * @param leafHostCores          scope CPU on a host that holds only a leaf: what the scope takes from most hosts.
 * @param meanHostCores          {@code totalCores / hosts}.
 * @param totalCores             the whole scope's CPU, all hosts: on a shared machine, what it takes of the machine.
 * @param bound                  what sets the round time.
 */
public record ScopePrediction(int hosts, int levels, double roundNs, double cycleNs, double producedPerRound,
                              double recordsPerRound, double gatherRate, double recordsPerSecond,
                              double frontEndBytesPerRound, double frontEndBytesPerSecond, double frontEndCpuShare,
                              double frontEndHostCores, double gatherHostCores, double leafHostCores,
                              double meanHostCores, double totalCores, Bound bound) {
    /** What sets a round's time. */
    public enum Bound {
        /** The tree's critical path: messages, latencies, reads and records carried, in the order the gathers run. */
        PATH,
        /** The front-end host's CPU: its threads cannot do the root's work any faster. */
        FRONT_END_CPU,
        /** The shared machine's cores: every host's scope work queues on them. */
        MACHINE_CPU
    }

    /** Whether buffers overflowed between two pulls: some records were lost. */
    public boolean losing() {
        return gatherRate < 1;
    }
}
