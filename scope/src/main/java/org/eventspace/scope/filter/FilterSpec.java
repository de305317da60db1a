package org.eventspace.scope.filter;

import java.util.Objects;

/**
 * A scope filter as configured: the command-line text validated once into an immutable value, from which every
 * node of a scope makes its own instance ({@link #newInstance()}), so all instances agree without talking
 * (ToM §2.2: the same filter is loaded on every intermediate node). {@link #text()} is the canonical text, which
 * {@link #parse} turns back into an equal spec; it is what a front-end sends to the hosts.
 *
 * <pre>
 *   concat                     every record, concatenated         {@link ConcatFilter}
 *   max:FIELD | min:FIELD      per event the record with the largest/smallest FIELD (value, rank, round)
 *                                                                 {@link ReduceByFieldFilter}
 *   stats                      per event count, mean, sd, min, max {@link StatsFilter}
 *   hist:BINS                  per event a histogram, BINS 1..65536, pipelined 3 phases {@link HistFilter}
 *   class:all | class:comm | class:REGEX   functional classes     {@link ClassFilter}
 *   newest                     every host's newest analysis results (not trace tuples) {@link NewestFilter}
 *   tuples                     every trace tuple whole, for a front-end analysis {@link TuplesFilter}
 *   CODEC/FILTER               FILTER, every packet it sends up an edge encoded with CODEC: none, deflate,
 *                              cbc[:BLOCK[:BLOCKS]] or cbc+deflate[:BLOCK[:BLOCKS]] ({@link EdgeCodec})
 *                                                                 {@link CompressedFilter}
 *   CODEC                      CODEC/newest: the monitors' results, which is what crosses a WAN every round
 * </pre>
 */
public sealed interface FilterSpec {
    /** The canonical command-line text. */
    String text();

    /** A fresh instance for one scope node. */
    ScopeFilter newInstance();

    /**
     * Parses the command-line text of a filter. The text is taken as is (no trimming; everything after
     * {@code class:} is the scheme, colons included).
     *
     * @throws IllegalArgumentException naming the text and what was expected.
     */
    static FilterSpec parse(String text) {
        Objects.requireNonNull(text, "filter text");
        int slash = text.indexOf('/');
        String head = slash < 0 ? text : text.substring(0, slash);
        int headColon = head.indexOf(':');
        if (EdgeCodec.isCodec(headColon < 0 ? head : head.substring(0, headColon))) {
            try {
                EdgeCodec codec = EdgeCodec.parse(head);
                FilterSpec inner = slash < 0 ? new Newest() : parse(text.substring(slash + 1));
                if (inner instanceof Compressed) {
                    throw new IllegalArgumentException("expected CODEC/FILTER with one codec, got two");
                }
                return new Compressed(codec, inner);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("bad filter '" + text + "': " + e.getMessage(), e);
            }
        }
        int colon = text.indexOf(':');
        String kind = colon < 0 ? text : text.substring(0, colon);
        String argument = colon < 0 ? null : text.substring(colon + 1);
        try {
            return switch (kind) {
                case "concat" -> noArgument(argument, new Concat());
                case "newest" -> noArgument(argument, new Newest());
                case "tuples" -> noArgument(argument, new Tuples());
                case "stats" -> noArgument(argument, new Stats());
                case "max", "min" -> new ReduceByField(
                        kind.equals("max") ? ReduceByFieldFilter.Extreme.MAX : ReduceByFieldFilter.Extreme.MIN,
                        field(argument));
                case "hist" -> new Hist(bins(argument));
                case "class" -> {
                    if (argument == null) {
                        throw new IllegalArgumentException("expected class:SCHEME with SCHEME all, comm or a"
                                + " regular expression");
                    }
                    yield new Classify(ClassScheme.parse(argument));
                }
                default -> throw new IllegalArgumentException("expected one of concat, max:FIELD, min:FIELD, stats,"
                        + " hist:BINS, class:SCHEME, newest, tuples, or CODEC[/FILTER] with CODEC none, deflate,"
                        + " cbc[:BLOCK[:BLOCKS]], cbc+deflate[:BLOCK[:BLOCKS]]");
            };
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad filter '" + text + "': " + e.getMessage(), e);
        }
    }

    private static FilterSpec noArgument(String argument, FilterSpec spec) {
        if (argument != null) {
            throw new IllegalArgumentException("expected " + spec.text() + " with no argument");
        }
        return spec;
    }

    private static ReduceByFieldFilter.Field field(String argument) {
        if (argument != null) {
            for (ReduceByFieldFilter.Field field : ReduceByFieldFilter.Field.values()) {
                if (field.text().equals(argument)) {
                    return field;
                }
            }
        }
        throw new IllegalArgumentException("expected max:FIELD or min:FIELD with FIELD one of value, rank, round");
    }

    private static int bins(String argument) {
        int bins;
        try {
            bins = Integer.parseInt(Objects.requireNonNullElse(argument, ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected hist:BINS with BINS an integer 1.." + HistFilter.MAX_BINS);
        }
        if (bins < 1 || bins > HistFilter.MAX_BINS) {
            throw new IllegalArgumentException("bins must be 1.." + HistFilter.MAX_BINS + ", bins=" + bins);
        }
        return bins;
    }

    /** {@code tuples}. */
    record Tuples() implements FilterSpec {
        @Override
        public String text() {
            return TuplesFilter.NAME;
        }

        @Override
        public ScopeFilter newInstance() {
            return new TuplesFilter();
        }
    }

    /** {@code newest}. */
    record Newest() implements FilterSpec {
        @Override
        public String text() {
            return NewestFilter.NAME;
        }

        @Override
        public ScopeFilter newInstance() {
            return new NewestFilter();
        }
    }

    /** {@code concat}. */
    record Concat() implements FilterSpec {
        @Override
        public String text() {
            return ConcatFilter.NAME;
        }

        @Override
        public ScopeFilter newInstance() {
            return new ConcatFilter();
        }
    }

    /** {@code max:FIELD} or {@code min:FIELD}. */
    record ReduceByField(ReduceByFieldFilter.Extreme extreme, ReduceByFieldFilter.Field field) implements FilterSpec {
        public ReduceByField {
            Objects.requireNonNull(extreme, "extreme");
            Objects.requireNonNull(field, "field");
        }

        @Override
        public String text() {
            return extreme.text() + ":" + field.text();
        }

        @Override
        public ScopeFilter newInstance() {
            return new ReduceByFieldFilter(extreme, field);
        }
    }

    /** {@code stats}. */
    record Stats() implements FilterSpec {
        @Override
        public String text() {
            return StatsFilter.NAME;
        }

        @Override
        public ScopeFilter newInstance() {
            return new StatsFilter();
        }
    }

    /** {@code hist:BINS}. */
    record Hist(int bins) implements FilterSpec {
        public Hist {
            if (bins < 1 || bins > HistFilter.MAX_BINS) {
                throw new IllegalArgumentException("bins must be 1.." + HistFilter.MAX_BINS + ", bins=" + bins);
            }
        }

        @Override
        public String text() {
            return "hist:" + bins;
        }

        @Override
        public ScopeFilter newInstance() {
            return new HistFilter(bins);
        }
    }

    /** {@code class:SCHEME}. */
    record Classify(ClassScheme scheme) implements FilterSpec {
        public Classify {
            Objects.requireNonNull(scheme, "scheme");
        }

        @Override
        public String text() {
            return "class:" + scheme.text();
        }

        @Override
        public ScopeFilter newInstance() {
            return new ClassFilter(scheme);
        }
    }

    /** {@code CODEC/FILTER}. */
    record Compressed(EdgeCodec codec, FilterSpec inner) implements FilterSpec {
        public Compressed {
            Objects.requireNonNull(codec, "codec");
            Objects.requireNonNull(inner, "inner");
            if (inner instanceof Compressed) {
                throw new IllegalArgumentException("a compressed filter cannot wrap another, inner=" + inner.text());
            }
        }

        @Override
        public String text() {
            return codec.text() + "/" + inner.text();
        }

        @Override
        public ScopeFilter newInstance() {
            return new CompressedFilter(codec, inner.newInstance());
        }
    }
}
