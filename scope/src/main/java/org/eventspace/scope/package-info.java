/**
 * Event scopes: trees of wrappers laid over the hosts of a job that a front-end pulls monitoring data through, on
 * demand (EventSpace paper §4; ToM §2–§3). They run on the job's own communication system: {@link
 * org.eventspace.scope.ScopeBuilder} appends the scope's nodes to the job's pathmap, every host builds them with
 * the wrapper kinds of {@link org.eventspace.scope.ScopeKinds}, and gathers reach children on other hosts through
 * hops of the job's transport (in one JVM or over TCP).
 *
 * <p>The door:
 * <ul>
 *   <li>{@link org.eventspace.scope.ScopeSpec}, {@link org.eventspace.scope.GatherMode} — what a scope looks
 *       like, validated once;</li>
 *   <li>{@link org.eventspace.scope.ScopeBuilder} — pathmap + spec → pathmap with the scope's nodes;</li>
 *   <li>{@link org.eventspace.scope.ScopeKinds}, {@link org.eventspace.scope.ScopeGatherKind},
 *       {@link org.eventspace.scope.ScopeLeafKind}, {@link org.eventspace.scope.ScopeHost} — what each host
 *       registers and offers;</li>
 *   <li>{@link org.eventspace.scope.PushBuffer} — the push side of ToM's push-pull offload;</li>
 *   <li>{@link org.eventspace.scope.EventScope}, {@link org.eventspace.scope.ScopeRound} — the front-end and
 *       what each pull brings;</li>
 *   <li>{@link org.eventspace.scope.ScopeFrameLayout} — the words a scope puts on every edge.</li>
 * </ul>
 * The filters the scope runs are in {@code org.eventspace.scope.filter}.
 */
package org.eventspace.scope;
