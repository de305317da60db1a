package org.eventspace.sim;

import java.util.Objects;

import org.eventspace.comm.pathmap.TreeShape;

/**
 * One event scope for {@link ScopeModel} to predict: the scope as {@code run --scope/--gather/--filter} lays it, the
 * monitored load it has to keep up with, and the machine's costs.
 *
 * @param hosts              hosts with collectors; each has one leaf of the scope (H).
 * @param shape              the scope's shape ({@code --scope}): {@code flat}, {@code kary:K} or {@code hier:K}, laid
 *                           out as {@code ScopeBuilder} does (see {@link ScopeModel}).
 * @param helpers            helper threads per gather wrapper ({@code --gather par:N}); 0 for {@code seq}.
 * @param filter             what the gathers do to the records.
 * @param collectorsPerHost  event collectors on each host, each writing its own trace buffer.
 * @param recordsPerSecond   records each collector writes per second (the caller's: one per call of the monitored
 *                           collective, from the allreduce latency prediction).
 * @param bufferTuples       capacity of each collector's trace buffer, in tuples; older tuples are overwritten
 *                           (EventSpace §4.2, §6.1: 3750 tuples).
 * @param pauseNs            the front-end's pause between the end of one pull and the start of the next
 *                           ({@code --scope-interval-ms}; 0: back to back, the paper's continuous gathering).
 * @param sharedMachine      every host process runs on one machine of {@link Costs#cores()} cores (this VM: 64 host
 *                           processes on 2 cores), so the whole scope's CPU queues on those cores; otherwise each host
 *                           has {@link Costs#cores()} cores of its own.
 * @param machineRanks       on a shared machine, the application's ranks that share its cores with the scope (0: none
 *                           or not known): each hand-off of the scope to another thread waits its turn behind them.
 * @param costs              the machine's costs.
 */
public record ScopeConfig(int hosts, TreeShape shape, int helpers, ScopeFilterModel filter, int collectorsPerHost,
                          double recordsPerSecond, int bufferTuples, double pauseNs, boolean sharedMachine,
                          int machineRanks, Costs costs) {
    /** Most helper threads one gather wrapper may start (the scope module's {@code GatherMode.MAX_HELPERS}). */
    public static final int MAX_HELPERS = 256;
    /** The EventSpace paper's trace buffer, §6.1: one megabyte of 28-byte tuples, rounded to 3750. */
    public static final int PAPER_BUFFER_TUPLES = 3750;

    public ScopeConfig {
        if (hosts < 1) {
            throw new IllegalArgumentException("hosts must be >= 1, hosts=" + hosts);
        }
        Objects.requireNonNull(shape, "shape");
        if (shape.kind() == TreeShape.Kind.BUTTERFLY) {
            throw new IllegalArgumentException("an event scope is flat, kary:K or hier:K, shape=" + shape);
        }
        if (helpers < 0 || helpers > MAX_HELPERS) {
            throw new IllegalArgumentException("helpers must be in [0, " + MAX_HELPERS + "], helpers=" + helpers);
        }
        Objects.requireNonNull(filter, "filter");
        if (collectorsPerHost < 1) {
            throw new IllegalArgumentException("collectorsPerHost must be >= 1, collectorsPerHost="
                    + collectorsPerHost);
        }
        if (!(recordsPerSecond >= 0) || Double.isInfinite(recordsPerSecond)) {
            throw new IllegalArgumentException("recordsPerSecond must be a finite number >= 0, recordsPerSecond="
                    + recordsPerSecond);
        }
        if (bufferTuples < 1) {
            throw new IllegalArgumentException("bufferTuples must be >= 1, bufferTuples=" + bufferTuples);
        }
        if (!(pauseNs >= 0) || Double.isInfinite(pauseNs)) {
            throw new IllegalArgumentException("pauseNs must be a finite number >= 0, pauseNs=" + pauseNs);
        }
        if (machineRanks < 0) {
            throw new IllegalArgumentException("machineRanks must be >= 0, machineRanks=" + machineRanks);
        }
        Objects.requireNonNull(costs, "costs");
    }

    /**
     * A scope of {@code shape} over {@code hosts}: sequential gathering, {@code concat}, one collector per host
     * writing nothing, the paper's buffer, back-to-back pulls, a host of its own per host process.
     */
    public static ScopeConfig of(int hosts, TreeShape shape, Costs costs) {
        return new ScopeConfig(hosts, shape, 0, ScopeFilterModel.concat(), 1, 0, PAPER_BUFFER_TUPLES, 0, false, 0, costs);
    }

    public ScopeConfig withHosts(int n) {
        return new ScopeConfig(n, shape, helpers, filter, collectorsPerHost, recordsPerSecond, bufferTuples, pauseNs,
                sharedMachine, machineRanks, costs);
    }

    public ScopeConfig withShape(TreeShape s) {
        return new ScopeConfig(hosts, s, helpers, filter, collectorsPerHost, recordsPerSecond, bufferTuples, pauseNs,
                sharedMachine, machineRanks, costs);
    }

    /** {@code 0}: {@code seq}; N: {@code par:N}. */
    public ScopeConfig withHelpers(int n) {
        return new ScopeConfig(hosts, shape, n, filter, collectorsPerHost, recordsPerSecond, bufferTuples, pauseNs,
                sharedMachine, machineRanks, costs);
    }

    public ScopeConfig withFilter(ScopeFilterModel f) {
        return new ScopeConfig(hosts, shape, helpers, f, collectorsPerHost, recordsPerSecond, bufferTuples, pauseNs,
                sharedMachine, machineRanks, costs);
    }

    /** {@code collectors} per host, each writing {@code perSecond} records a second. */
    public ScopeConfig withLoad(int collectors, double perSecond) {
        return new ScopeConfig(hosts, shape, helpers, filter, collectors, perSecond, bufferTuples, pauseNs,
                sharedMachine, machineRanks, costs);
    }

    public ScopeConfig withBufferTuples(int tuples) {
        return new ScopeConfig(hosts, shape, helpers, filter, collectorsPerHost, recordsPerSecond, tuples, pauseNs,
                sharedMachine, machineRanks, costs);
    }

    public ScopeConfig withPauseNs(double ns) {
        return new ScopeConfig(hosts, shape, helpers, filter, collectorsPerHost, recordsPerSecond, bufferTuples, ns,
                sharedMachine, machineRanks, costs);
    }

    public ScopeConfig withSharedMachine(boolean shared) {
        return new ScopeConfig(hosts, shape, helpers, filter, collectorsPerHost, recordsPerSecond, bufferTuples,
                pauseNs, shared, machineRanks, costs);
    }

    /** On a shared machine ({@link #withSharedMachine}), {@code ranks} of the application share its cores. */
    public ScopeConfig withMachineRanks(int ranks) {
        return new ScopeConfig(hosts, shape, helpers, filter, collectorsPerHost, recordsPerSecond, bufferTuples,
                pauseNs, sharedMachine, ranks, costs);
    }

    public ScopeConfig withCosts(Costs c) {
        return new ScopeConfig(hosts, shape, helpers, filter, collectorsPerHost, recordsPerSecond, bufferTuples,
                pauseNs, sharedMachine, machineRanks, c);
    }
}
