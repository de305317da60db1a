package org.eventspace.sim;

import java.util.OptionalInt;

/**
 * Where an event scope stops keeping up as hosts are added at fixed per-host rates ({@link ScopeModel#saturation}):
 * the smallest H whose gather rate is below {@value ScopeModel#KEEPS_UP_RATE} or whose front-end's CPU bounds the
 * round with a share of 1 ({@link ScopeModel#saturated}).
 *
 * @param hosts    that H, or empty if the scope keeps up on every H up to {@code maxHosts}.
 * @param maxHosts the largest H searched.
 * @param cause    why it saturates at {@code hosts} ({@code "gather rate"}, {@code "front-end cpu"}), or why it does
 *                 not within {@code maxHosts}.
 * @param at       the prediction at {@code hosts}, or at {@code maxHosts} when empty.
 */
public record ScopeSaturation(OptionalInt hosts, int maxHosts, String cause, ScopePrediction at) {
    public boolean within() {
        return hosts.isPresent();
    }
}
