package org.eventspace.scope.filter;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * {@link ConcatFilter}'s result: the round's record count and the first {@link ConcatFilter#LISTING_LIMIT}
 * records in child order.
 *
 * @param round            the round the records were gathered in.
 * @param records          records gathered in the round, all of them counted.
 * @param listing          the first records, each written as {rank, event, round, value}.
 * @param listingTruncated whether {@code listing} stops before {@code records}.
 */
@JsonPropertyOrder({"round", "records", "listing", "listing_truncated"})
public record ConcatResult(long round, int records, List<ScopeRecord> listing,
                           @JsonProperty("listing_truncated") boolean listingTruncated) implements FilterResult {
    public ConcatResult {
        listing = List.copyOf(listing);
    }
}
