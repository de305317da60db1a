package org.eventspace.comm.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.IdleWork;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.transport.PeerLink;

/**
 * A butterfly's exchange on one host: the allreduce between hosts by recursive doubling (Thakur, Rabenseifner and
 * Gropp, "Optimization of collective communication operations in MPICH", 2005, §4.4, as Open MPI's small-message
 * allreduce does). The host's partial result comes down from its own join; in round r the exchange sends it to the
 * host whose index differs in bit r and folds the partner's into it, so after log₂ p rounds every host holds the whole
 * result, stores it (the core below) and returns it up to its ranks. One message each way per round, no reply
 * waited for, and no service thread: the calling thread drives the links ({@link PeerLink}).
 *
 * <p>For n hosts that are not a power of two, with p the largest power of two ≤ n, the n − p extra hosts first hand
 * their partial result to host i − p, wait out the p hosts' rounds and get the result back from it: two more steps
 * for them and their partners only.
 *
 * <p>Every host folds the same pairs of partial results (commutative operations: sum, min, max and the slot OR of
 * broadcast and gather), so every host computes the same bits, doubles included.
 *
 * <p>Called by one thread at a time (a tree's calls are in order). Allocates nothing per call.
 */
final class Butterfly implements Wrapper {
    private final String name;
    private final Plan plan;
    /** The link to each of {@link Plan#partners}, in the same order. */
    private final PeerLink[] links;
    private final Wrapper next;
    private final Message partner;
    private final Consumer<CommException> onLoss;
    private final IdleWork idle;

    /**
     * @param onLoss what a failed exchange does to its host before the failure goes up (closes its other links).
     * @param idle   the host's put-off work, run once per call while the first message from a partner is on its way.
     */
    Butterfly(String name, Plan plan, PeerLink[] links, Wrapper next, int maxWords, Consumer<CommException> onLoss,
              IdleWork idle) {
        if (links.length != plan.partners().length) {
            throw new IllegalArgumentException(name + ": " + links.length + " links for " + plan.partners().length + " partners");
        }
        this.name = name;
        this.plan = plan;
        this.links = links.clone();
        this.next = next;
        this.onLoss = onLoss;
        this.idle = idle;
        this.partner = new Message(Math.max(1, maxWords));
    }

    @Override
    public void call(Message message) {
        try {
            exchange(message);
        } catch (CommException e) {
            // A lost partner: this host's other partners must not wait out the timeout for a message it will never
            // send. Failing the host closes its links, so they fail at once, and theirs in turn.
            onLoss.accept(e);
            throw e;
        }
        next.call(message);
    }

    private void exchange(Message message) {
        if (plan.isExtra()) {
            // Hand the partial result to the partner among the first p hosts, and take the whole result from it.
            links[0].send(message);
            idle.run();
            receive(0, message);
            message.copyPayloadFrom(partner);
        } else {
            int link = 0;
            if (plan.hasExtra()) {
                // Nothing sent yet: the extra host's message is what this host waits for first.
                idle.run();
                fold(link++, message);
            }
            for (int round = 0; round < plan.rounds(); round++) {
                links[link].send(message);
                if (round == 0 && !plan.hasExtra()) {
                    idle.run();
                }
                fold(link++, message);
            }
            if (plan.hasExtra()) {
                links[0].send(message);
            }
        }
    }

    /** One step: folds the partner's partial result into this host's (sent to it first where the step exchanges). */
    private void fold(int link, Message message) {
        receive(link, message);
        message.op().combine(message.type(), message.words(), partner.words(), message.length());
    }

    private void receive(int link, Message message) {
        links[link].receive(partner);
        if (partner.length() != message.length() || partner.op() != message.op() || partner.type() != message.type()) {
            throw new CommException(name + ": host index " + plan.partners()[link] + " sent " + partner.length() + " words ("
                    + partner.op() + " " + partner.type() + ") where this host has " + message.length() + " words ("
                    + message.op() + " " + message.type() + "): the ranks did not make the same collective call");
        }
    }

    /**
     * Who exchanges with whom: host {@code index} of {@code hosts} exchanging hosts. {@code partners} lists the indexes
     * in the order the exchange meets them: for an extra host (index ≥ p) its one partner index − p; otherwise its
     * extra host index + p first if it has one, then index ^ 2^r for each round r.
     */
    record Plan(int index, int hosts, int[] partners) {
        static Plan of(int index, int hosts) {
            if (hosts < 1 || index < 0 || index >= hosts) {
                throw new IllegalArgumentException("exchange index " + index + " of " + hosts + " hosts");
            }
            int p = Integer.highestOneBit(hosts);
            List<Integer> partners = new ArrayList<>();
            if (index >= p) {
                partners.add(index - p);
            } else {
                if (index + p < hosts) {
                    partners.add(index + p);
                }
                for (int bit = 1; bit < p; bit <<= 1) {
                    partners.add(index ^ bit);
                }
            }
            return new Plan(index, hosts, partners.stream().mapToInt(Integer::intValue).toArray());
        }

        boolean isExtra() {
            return index >= Integer.highestOneBit(hosts);
        }

        boolean hasExtra() {
            return !isExtra() && index + Integer.highestOneBit(hosts) < hosts;
        }

        int rounds() {
            return Integer.numberOfTrailingZeros(Integer.highestOneBit(hosts));
        }
    }

    static int index(Node exchange) {
        return Integer.parseInt(exchange.property(PathmapBuilder.EXCHANGE_INDEX));
    }

    /** The exchange nodes of {@code tree}, by index. */
    static List<Node> exchanges(Pathmap pathmap, int tree) {
        List<Node> byIndex = new ArrayList<>();
        for (Node n : pathmap.nodes()) {
            if (n.tree() == tree && n.kind().equals(PathmapBuilder.EXCHANGE)) {
                byIndex.add(n);
            }
        }
        byIndex.sort(java.util.Comparator.comparingInt(Butterfly::index));
        for (int i = 0; i < byIndex.size(); i++) {
            if (index(byIndex.get(i)) != i) {
                throw new IllegalArgumentException("tree " + tree + ": exchange " + byIndex.get(i).name() + " has index "
                        + index(byIndex.get(i)) + ", expected " + i + " (indexes 0.." + (byIndex.size() - 1) + ")");
            }
        }
        return byIndex;
    }
}
