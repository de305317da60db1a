package org.eventspace.scope;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.events.EventSpace;
import org.eventspace.events.TraceBufferReader;
import org.eventspace.events.TraceOp;
import org.eventspace.events.TraceTupleFlyweight;
import org.eventspace.events.TraceTupleLayout;
import org.eventspace.scope.filter.FilterSpec;
import org.eventspace.scope.filter.Packet;
import org.eventspace.scope.filter.ScopeFilter;
import org.eventspace.scope.filter.ScopeRecord;
import org.eventspace.scope.filter.TuplesFilter;

/**
 * The storage end of an event scope on one host (EventSpace paper §4.2, "storage wrappers provide access to
 * PastSet buffers"): on every PULL it reads what its host's sources produced since the last pull — every trace
 * buffer of the host's event space through a cursor of its own, then the host's push buffer — turns it into
 * {@link ScopeRecord}s and answers with its filter's leaf packet and the round's counts.
 *
 * <p>One caller at a time: the gather above it, in its own thread, a helper's or a hop's service thread; each
 * call happens after the previous one returned (the scope's rounds are sequential).
 *
 * <p>A trace tuple becomes the record (rank, event, round, value) = (r if the collector's {@code below} is
 * {@code rank r} else −1, {@code <op> <role>}, the tuple's sequence, (t_up − t_down) in µs). The event names
 * what was done and where the collector sits, not which collector it is — {@code allreduce-sum rank>gred>proxy>gred>core}
 * for a rank whose allreduce crosses a hop, {@code allreduce-sum gred>core} below a root gred — so that the same
 * event of different ranks compares across ranks (ToM's per-event statistics) and ranks whose paths differ fall
 * into different functional classes ({@link ScopeLeafKind#role}).
 *
 * <p>Counts, exact for every source (so that produced = gathered + dropped + still unread over the life of the
 * stream): produced is how far the source's write position moved, gathered the records read, dropped the tuples
 * overwritten before they were read (the reader's missed count) or the records a full push buffer refused.
 * A pull reads each trace buffer up to the write position it saw at the start of the pull, so a writer faster
 * than the reader cannot keep a pull going. Tuples a buffer overwrote before the scope opened are not counted:
 * they were never the scope's to read.
 */
final class ScopeLeaf implements Wrapper {
    /** Raw bytes of a pushed record: rank, round and value; its event name is not counted. */
    static final int PUSHED_RECORD_RAW_BYTES = 24;

    private final String name;
    private final String at;
    private final FilterSpec filterSpec;
    private final ScopeHost source;
    private final Map<String, Integer> rankOfCollector;
    private final Map<String, String> roleOfCollector;
    private final ScopeFrame.Counts counts = new ScopeFrame.Counts();
    private final TraceTupleFlyweight tuple = new TraceTupleFlyweight();
    private ScopeFilter filter;
    private final List<TraceSource> traces = new ArrayList<>();
    private long pushMark;
    private long pushDroppedMark;
    /** The newest result set this leaf passed up; a pull passes a set only once. */
    private long resultVersion;
    /** The events of the last set passed up whole (0: none yet); a set with the same events goes as values only. */
    private long resultNames;

    /**
     * @param rankOfCollector the rank of every collector of the host whose {@code below} is a rank, by name.
     */
    ScopeLeaf(String name, FilterSpec filterSpec, ScopeHost source, Map<String, Integer> rankOfCollector,
              Map<String, String> roleOfCollector) {
        this.name = name;
        this.at = "scope leaf " + name;
        this.filterSpec = filterSpec;
        this.source = source;
        this.rankOfCollector = Map.copyOf(rankOfCollector);
        this.roleOfCollector = Map.copyOf(roleOfCollector);
    }

    @Override
    public void call(Message m) {
        int control = ScopeFrame.control(m, at);
        Packet command = ScopeFrame.packet(m, at);
        counts.clear();
        switch (control) {
            case Packet.INIT -> {
                open();
                ScopeFrame.writeUp(m, Packet.INIT, counts, 0, Packet.of(Packet.INIT, command.round()), name);
            }
            case Packet.PULL -> {
                if (filter == null) {
                    throw new CommException(at + ": PULL for round " + command.round() + " before INIT; open the scope first");
                }
                List<ScopeRecord> records = read();
                Packet up = filter.leaf(command, records);
                ScopeFrame.writeUp(m, Packet.PULL, counts, 0, up, name);
            }
            case Packet.FIN -> {
                close();
                ScopeFrame.writeUp(m, Packet.FINACK, counts, 0, Packet.of(Packet.FINACK, command.round()), name);
            }
            default -> throw new CommException(at + ": unexpected " + ScopeFrame.controlName(control) + " going down");
        }
    }

    /** INIT: a fresh filter, and cursors positioned at the oldest tuple each buffer still holds. */
    private void open() {
        close();
        filter = filterSpec.newInstance();
        resultVersion = 0;
        resultNames = 0;
        if (filter.readsResults()) {
            return;
        }
        EventSpace space = source.eventSpace();
        if (space != null) {
            for (EventSpace.Entry e : space.entries()) {
                traces.add(new TraceSource(e, rankOfCollector.getOrDefault(e.collectorName(), -1), true));
            }
        }
        PushBuffer push = source.pushBuffer();
        if (push != null) {
            pushMark = push.drained() + push.dropped();
            pushDroppedMark = push.dropped();
        }
    }

    private void close() {
        filter = null;
        for (TraceSource s : traces) {
            s.reader.close();
        }
        traces.clear();
    }

    private List<ScopeRecord> read() {
        if (filter.readsResults()) {
            return readResults();
        }
        List<ScopeRecord> records = new ArrayList<>();
        EventSpace space = source.eventSpace();
        if (space != null && space.entries().size() != traces.size()) {
            // A buffer allocated after INIT: everything it lost before now counts as dropped.
            List<EventSpace.Entry> entries = space.entries();
            for (int i = traces.size(); i < entries.size(); i++) {
                EventSpace.Entry e = entries.get(i);
                traces.add(new TraceSource(e, rankOfCollector.getOrDefault(e.collectorName(), -1), false));
            }
        }
        for (TraceSource s : traces) {
            s.read(records);
        }
        PushBuffer push = source.pushBuffer();
        if (push != null) {
            long queued = push.queued();
            long dropped = push.dropped();
            int waiting = (int) Math.min(Integer.MAX_VALUE, queued - push.drained());
            int drained = waiting > 0 ? push.drain(records, waiting) : 0;
            long offered = queued + dropped;
            counts.produced += offered - pushMark;
            counts.gathered += drained;
            counts.dropped += dropped - pushDroppedMark;
            counts.rawBytes += (long) drained * PUSHED_RECORD_RAW_BYTES;
            pushMark = offered;
            pushDroppedMark = dropped;
        }
        return records;
    }

    /**
     * The host's newest result set if it is newer than the last one passed up, else nothing: only the newest state
     * travels; and when its events are those of the last set passed whole, as values only (an analysis's results keep
     * their names from one set to the next, and the names were most of the bytes). Its records count as produced and
     * gathered; a set superseded before a pull is not counted at all.
     */
    private List<ScopeRecord> readResults() {
        ResultBoard board = source.results();
        if (board == null) {
            return List.of();
        }
        ResultBoard.Published set = board.newest();
        if (set.version() <= resultVersion) {
            return List.of();
        }
        resultVersion = set.version();
        int n = set.records().size();
        counts.produced += n;
        counts.gathered += n;
        long bytes = 0;
        for (ScopeRecord r : set.records()) {
            bytes += PUSHED_RECORD_RAW_BYTES + r.event().length();
        }
        counts.rawBytes += bytes;
        if (set.names() == resultNames && n > 1) {
            return set.valuesOnly();
        }
        resultNames = set.names();
        return set.records();
    }

    @Override
    public String toString() {
        return "ScopeLeaf{" + name + ", traces=" + traces.size() + ", open=" + (filter != null) + '}';
    }

    /** One trace buffer of the host, its cursor and the position up to which it was counted as produced. */
    private final class TraceSource {
        final TraceBufferReader reader;
        final String role;
        /** {@code <op> <role>} by op type, made once per op type seen. */
        final String[] events = new String[16];
        final int rank;
        /** The events of a raw tuple's two records ({@link TuplesFilter}). */
        final String downEvent;
        final String upEvent;
        long mark;

        TraceSource(EventSpace.Entry entry, int rank, boolean atInit) {
            this.reader = entry.buffer().newReader();
            this.role = roleOfCollector.getOrDefault(entry.collectorName(), entry.collectorName());
            this.rank = rank;
            this.downEvent = entry.collectorName() + TuplesFilter.DOWN;
            this.upEvent = entry.collectorName() + TuplesFilter.UP;
            if (atInit) {
                mark = reader.position();
            } else {
                counts.produced += reader.position();
                counts.dropped += reader.position();
                mark = reader.position();
            }
        }

        String event(int opType) {
            if (opType < 0 || opType >= events.length) {
                return TraceOp.name(opType) + " " + role;
            }
            String e = events[opType];
            if (e == null) {
                e = TraceOp.name(opType) + " " + role;
                events[opType] = e;
            }
            return e;
        }

        void read(List<ScopeRecord> into) {
            long head = reader.writePosition();
            long missedBefore = reader.missed();
            long read = 0;
            boolean raw = filter.readsRawTuples();
            while (reader.position() < head && reader.readNext(tuple)) {
                long sequence = Math.max(0, tuple.sequence());
                if (raw) {
                    int op = Math.max(0, tuple.opType()) | ((tuple.flags() & TraceOp.FLAG_FAILED) != 0 ? TuplesFilter.FAILED : 0);
                    into.add(new ScopeRecord(op, downEvent, sequence, tuple.startNs()));
                    into.add(new ScopeRecord(op, upEvent, sequence, tuple.endNs()));
                } else {
                    into.add(new ScopeRecord(rank, event(tuple.opType()), sequence, (tuple.endNs() - tuple.startNs()) / 1_000.0));
                }
                read++;
            }
            // The loop ends at or past head: a lapping writer may push the cursor beyond it, and then the tuples
            // skipped beyond head are produced, and missed, in this round too.
            long end = Math.max(head, reader.position());
            counts.produced += end - mark;
            counts.gathered += read;
            counts.dropped += reader.missed() - missedBefore;
            counts.rawBytes += read * TraceTupleLayout.LENGTH;
            mark = end;
        }
    }
}
