package org.eventspace.wan;

import java.util.List;
import java.util.Map;

/**
 * An emulated WAN as a link file describes it (docs/WAN-FORMAT.md): its sites in file order and every configured link
 * direction by name ({@code from>to}). Immutable, validated by {@link WanFile}.
 *
 * @param source the file it came from, for messages.
 */
public record WanLayout(String source, List<Site> sites, Map<String, LinkDirection> links) {
    public WanLayout {
        sites = List.copyOf(sites);
        links = Map.copyOf(links);
    }

    /** The direction from {@code from} to {@code to}, or null if the file has none. */
    public LinkDirection link(String from, String to) {
        return links.get(from + ">" + to);
    }

    /** The link directions leaving {@code site}, sorted by name. */
    public List<LinkDirection> linksFrom(String site) {
        return links.values().stream().filter(l -> l.from().equals(site))
                .sorted(java.util.Comparator.comparing(LinkDirection::name)).toList();
    }
}
