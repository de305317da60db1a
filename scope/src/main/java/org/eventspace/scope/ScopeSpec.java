package org.eventspace.scope;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.scope.filter.FilterSpec;

/**
 * What an event scope looks like, validated once (STYLE: configuration is data, checked at the edge): the shape
 * of its gather tree, how gather wrappers read their children, the filter every node runs, the host of the
 * front-end, the hosts it reads (leaves) and any extra hosts it may put inner gathers on. Immutable;
 * {@link ScopeBuilder} lays it over a pathmap and checks the host ids against the topology.
 *
 * <ul>
 *   <li><b>shape</b> — {@code flat}, {@code binary}, {@code kary:K} or {@code hier:K}, parsed by comm's
 *       {@link TreeShape#parse}: the fan-out of every gather wrapper, and for {@code hier} the order of joins
 *       (intra-host, intra-cluster, inter-cluster; EventSpace paper §6.2 "Scalability").</li>
 *   <li><b>gather</b> — {@code seq} or {@code par:N} ({@link GatherMode}).</li>
 *   <li><b>filter</b> — a {@link FilterSpec} text such as {@code concat}, {@code stats}, {@code hist:32}.</li>
 *   <li><b>front-end</b> — host id of the root gather and of the {@link EventScope} that pulls through it.</li>
 *   <li><b>leaf hosts</b> — hosts whose event space and push buffer the scope reads; empty means every host.</li>
 *   <li><b>extra hosts</b> — ToM's "additional resources" (§2.4): hosts inner gathers run on instead of a leaf
 *       host of their cluster; they need not run ranks.</li>
 *   <li><b>timeout</b> — how long a round may take before a gather fails it; empty means the job's timeout.</li>
 *   <li><b>name</b> — prefix of the scope's node names, so that one pathmap can hold several scopes.</li>
 * </ul>
 */
public final class ScopeSpec {
    public static final String DEFAULT_NAME = "scope";
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,31}");

    private final String name;
    private final TreeShape shape;
    private final GatherMode gather;
    private final FilterSpec filter;
    private final int frontEnd;
    private final List<Integer> leafHosts;
    private final List<Integer> extraHosts;
    private final Duration timeout;

    private ScopeSpec(Builder b) {
        this.name = b.name;
        this.shape = b.shape;
        this.gather = b.gather;
        this.filter = b.filter;
        this.frontEnd = b.frontEnd;
        this.leafHosts = List.copyOf(b.leafHosts);
        this.extraHosts = List.copyOf(b.extraHosts);
        this.timeout = b.timeout;
    }

    /** A builder with name {@value #DEFAULT_NAME}, shape {@code flat}, gather {@code seq}, filter {@code concat}, front-end host 0. */
    public static Builder builder() {
        return new Builder();
    }

    /** The common case: every host a leaf, no extra hosts, the job's timeout. */
    public static ScopeSpec of(String shape, String gather, String filter, int frontEnd) {
        return builder().shape(shape).gather(gather).filter(filter).frontEnd(frontEnd).build();
    }

    public String name() {
        return name;
    }

    public TreeShape shape() {
        return shape;
    }

    public GatherMode gather() {
        return gather;
    }

    public FilterSpec filter() {
        return filter;
    }

    /** The filter's canonical text ({@link FilterSpec#text()}): what scope nodes carry in their {@code filter} property. */
    public String filterText() {
        return filter.text();
    }

    public int frontEnd() {
        return frontEnd;
    }

    /** Leaf host ids in the order given; empty means every host of the topology. */
    public List<Integer> leafHosts() {
        return leafHosts;
    }

    public List<Integer> extraHosts() {
        return extraHosts;
    }

    /** The round timeout; empty means the job's ({@code CommOptions.withTimeout}). */
    public Optional<Duration> timeout() {
        return Optional.ofNullable(timeout);
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.name = name;
        b.shape = shape;
        b.gather = gather;
        b.filter = filter;
        b.frontEnd = frontEnd;
        b.leafHosts = leafHosts;
        b.extraHosts = extraHosts;
        b.timeout = timeout;
        return b;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScopeSpec s && name.equals(s.name) && shape.equals(s.shape) && gather.equals(s.gather)
                && filter.text().equals(s.filter.text()) && frontEnd == s.frontEnd && leafHosts.equals(s.leafHosts)
                && extraHosts.equals(s.extraHosts) && Objects.equals(timeout, s.timeout);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, shape, gather, filter.text(), frontEnd, leafHosts, extraHosts, timeout);
    }

    @Override
    public String toString() {
        return "ScopeSpec{name=" + name + ", shape=" + shape + ", gather=" + gather + ", filter=" + filter.text()
                + ", frontEnd=" + frontEnd + ", leafHosts=" + (leafHosts.isEmpty() ? "all" : leafHosts)
                + ", extraHosts=" + extraHosts + (timeout == null ? "" : ", timeout=" + timeout.toMillis() + " ms") + '}';
    }

    /** Collects and checks the parts of a {@link ScopeSpec}; every setter validates its value at once. Not thread-safe. */
    public static final class Builder {
        private String name = DEFAULT_NAME;
        private TreeShape shape = TreeShape.FLAT;
        private GatherMode gather = GatherMode.SEQUENTIAL;
        private FilterSpec filter;
        private int frontEnd;
        private List<Integer> leafHosts = List.of();
        private List<Integer> extraHosts = List.of();
        private Duration timeout;

        private Builder() {
        }

        /** Prefix of the scope's node names: a letter, then up to 31 letters, digits, {@code _} or {@code -}. */
        public Builder name(String value) {
            if (value == null || !NAME.matcher(value).matches()) {
                throw new IllegalArgumentException("scope name '" + value + "': expected a letter followed by up to 31 "
                        + "letters, digits, '_' or '-'");
            }
            this.name = value;
            return this;
        }

        public Builder shape(String text) {
            return shape(TreeShape.parse(Objects.requireNonNull(text, "shape")));
        }

        public Builder shape(TreeShape value) {
            if (Objects.requireNonNull(value, "shape").kind() == TreeShape.Kind.BUTTERFLY) {
                throw new IllegalArgumentException("scope shape " + value + ": a scope is a tree (flat, binary, kary:K or hier:K)");
            }
            this.shape = value;
            return this;
        }

        public Builder gather(String text) {
            return gather(GatherMode.parse(Objects.requireNonNull(text, "gather")));
        }

        public Builder gather(GatherMode value) {
            this.gather = Objects.requireNonNull(value, "gather");
            return this;
        }

        /** Parses {@code text}, trimmed, with {@link FilterSpec#parse}, which names what is wrong with it. */
        public Builder filter(String text) {
            return filter(FilterSpec.parse(Objects.requireNonNull(text, "filter").trim()));
        }

        public Builder filter(FilterSpec value) {
            this.filter = Objects.requireNonNull(value, "filter");
            return this;
        }

        public Builder frontEnd(int host) {
            if (host < 0) {
                throw new IllegalArgumentException("front-end host must be >= 0, frontEnd=" + host);
            }
            this.frontEnd = host;
            return this;
        }

        /** Hosts to read; empty means every host. Ids must be >= 0 and distinct. */
        public Builder leafHosts(List<Integer> hosts) {
            this.leafHosts = checkHosts("leaf hosts", hosts);
            return this;
        }

        /** Hosts inner gathers may run on; ids must be >= 0 and distinct. */
        public Builder extraHosts(List<Integer> hosts) {
            this.extraHosts = checkHosts("extra hosts", hosts);
            return this;
        }

        /** How long a round may take before a gather fails it; null for the job's timeout. */
        public Builder timeout(Duration value) {
            if (value != null && (value.isNegative() || value.isZero())) {
                throw new IllegalArgumentException("scope timeout must be > 0, timeout=" + value);
            }
            this.timeout = value;
            return this;
        }

        public ScopeSpec build() {
            if (filter == null) {
                filter(FilterSpec.parse("concat"));
            }
            return new ScopeSpec(this);
        }

        private static List<Integer> checkHosts(String what, List<Integer> hosts) {
            Objects.requireNonNull(hosts, what);
            Set<Integer> seen = new HashSet<>();
            List<Integer> list = new ArrayList<>(hosts.size());
            for (Integer h : hosts) {
                if (h == null || h < 0) {
                    throw new IllegalArgumentException(what + " must be host ids >= 0, " + what + "=" + hosts);
                }
                if (!seen.add(h)) {
                    throw new IllegalArgumentException(what + " name host " + h + " twice, " + what + "=" + hosts);
                }
                list.add(h);
            }
            return List.copyOf(list);
        }
    }
}
