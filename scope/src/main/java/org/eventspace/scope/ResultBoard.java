package org.eventspace.scope;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

import org.eventspace.scope.filter.ScopeRecord;

/**
 * A host's result element (EventSpace paper §4.3, distributed analysis): where the host's analysis threads publish the
 * small records their analysis produced, for an event scope to gather instead of the raw trace tuples. Only the newest
 * state matters to a view (the records are cumulative: a later set replaces an earlier one), so the board holds one set;
 * a set superseded before any scope read it is not a loss. Each set is numbered ({@link Published#version()}, from 1)
 * and begins with a header record ({@link #HEADER}: round = version, value = the host) so that sets from many hosts
 * concatenated up a scope can be told apart again ({@link org.eventspace.scope.filter.NewestFilter}).
 *
 * <p>Thread-safe: any thread publishes, any thread reads {@link #newest()}; both are a reference swap and a read.
 */
public final class ResultBoard {
    /** The event of every set's first record. */
    public static final String HEADER = "@results";
    /**
     * The event of the first record of a set sent as values only: its records carry no event names, which are those
     * of the host's last set sent whole, record for record (a leaf sends a set so when its names are the same as the
     * last set's it passed; {@link org.eventspace.scope.filter.NewestFilter} puts them back).
     */
    public static final String VALUES_HEADER = "@values";

    /**
     * One published set: its version (0: nothing published yet), its records, header first, and a hash of their
     * events in order (two sets with equal hashes have the same events, record for record, but for a 2^-64 chance).
     * Immutable.
     */
    public record Published(long version, List<ScopeRecord> records, long names) {
        public Published {
            records = List.copyOf(records);
        }

        public Published(long version, List<ScopeRecord> records) {
            this(version, records, namesHash(records));
        }

        /** This set as values only ({@link #VALUES_HEADER}): the same records without their events. */
        public List<ScopeRecord> valuesOnly() {
            List<ScopeRecord> out = new ArrayList<>(records.size());
            ScopeRecord header = records.get(0);
            out.add(new ScopeRecord(header.rank(), VALUES_HEADER, header.round(), header.value()));
            for (int i = 1; i < records.size(); i++) {
                ScopeRecord r = records.get(i);
                out.add(new ScopeRecord(r.rank(), "", r.round(), r.value()));
            }
            return out;
        }
    }

    /** FNV-1a over the events of every record but the header, in order. */
    static long namesHash(List<ScopeRecord> records) {
        long h = 0xcbf29ce484222325L;
        for (int i = 1; i < records.size(); i++) {
            String e = records.get(i).event();
            for (int k = 0; k < e.length(); k++) {
                h = (h ^ e.charAt(k)) * 0x100000001b3L;
            }
            h = (h ^ 0xff) * 0x100000001b3L;
        }
        return h;
    }

    private final int host;
    private final AtomicReference<Published> newest = new AtomicReference<>(new Published(0, List.of()));

    /** The board of host {@code host}. */
    public ResultBoard(int host) {
        if (host < 0) {
            throw new IllegalArgumentException("host must be >= 0, host=" + host);
        }
        this.host = host;
    }

    public int host() {
        return host;
    }

    /** Replaces the board's set by {@code records} (the header is added here); returns the new version. */
    public long publish(List<ScopeRecord> records) {
        Objects.requireNonNull(records, "records");
        while (true) {
            Published before = newest.get();
            long version = before.version() + 1;
            List<ScopeRecord> set = new ArrayList<>(records.size() + 1);
            set.add(new ScopeRecord(-1, HEADER, version, host));
            set.addAll(records);
            if (newest.compareAndSet(before, new Published(version, set))) {
                return version;
            }
        }
    }

    /** The newest set; version 0 and no records before the first {@link #publish}. */
    public Published newest() {
        return newest.get();
    }
}
