package org.eventspace.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.scope.filter.Packet;
import org.eventspace.scope.filter.PacketCodec;
import org.eventspace.scope.filter.ScopeRecord;
import org.junit.jupiter.api.Test;

class ScopeFrameTest {
    @Test
    void offsetsFollowEachOther() {
        assertThat(ScopeFrameLayout.SIZES_WORD).isEqualTo(1);
        assertThat(ScopeFrameLayout.RAW_BYTES_WORD).isEqualTo(6);
        assertThat(ScopeFrameLayout.HEADER_WORDS).isEqualTo(7);
        assertThat(ScopeFrameLayout.packetWord(3)).isEqualTo(10);
        assertThat(Integer.toHexString(ScopeFrameLayout.MAGIC)).isEqualTo("45535343");
    }

    @Test
    void aCommandGoesDownWithItsBudgetAndPacket() {
        Message m = new Message(1);
        Packet command = Packet.ofNumbers(Packet.PULL, 7, new long[] {1, 2}, new double[] {0.5});
        ScopeFrame.writeDown(m, Packet.PULL, 123_456, command);
        assertThat(m.length()).isEqualTo(ScopeFrameLayout.HEADER_WORDS + PacketCodec.encodedLength(command));
        assertThat(ScopeFrame.control(m, "test")).isEqualTo(Packet.PULL);
        assertThat(ScopeFrame.budget(m)).isEqualTo(123_456);
        Packet read = ScopeFrame.packet(m, "test");
        assertThat(read.round()).isEqualTo(7);
        assertThat(read.longs()).containsExactly(1, 2);
        assertThat(read.doubles()).containsExactly(0.5);
    }

    @Test
    void answersCarryCountsAndEachNodeAddsItsOwnBytesAtItsLevel() {
        Packet leafPacket = Packet.ofRecords(100, 3, List.of(new ScopeRecord(1, "t0.ec.h0.0", 3, 1.5)));
        ScopeFrame.Counts leaf = new ScopeFrame.Counts();
        leaf.produced = 10;
        leaf.gathered = 8;
        leaf.dropped = 2;
        leaf.rawBytes = 320;
        Message fromLeaf = new Message(1);
        ScopeFrame.writeUp(fromLeaf, Packet.PULL, leaf, 0, leafPacket, "leaf");
        long leafBytes = fromLeaf.length() * 8L;

        ScopeFrame.Counts gather = new ScopeFrame.Counts();
        ScopeFrame.addCounts(fromLeaf, gather);
        ScopeFrame.addCounts(fromLeaf, gather);
        Message fromGather = new Message(1);
        ScopeFrame.writeUp(fromGather, Packet.PULL, gather, 2, Packet.of(100, 3), "gather");

        ScopeFrame.Counts front = new ScopeFrame.Counts();
        assertThat(ScopeFrame.control(fromGather, "front")).isEqualTo(Packet.PULL);
        ScopeFrame.addCounts(fromGather, front);
        assertThat(front.produced).isEqualTo(20);
        assertThat(front.gathered).isEqualTo(16);
        assertThat(front.dropped).isEqualTo(4);
        assertThat(front.rawBytes).isEqualTo(640);
        assertThat(front.levelBytes()).containsExactly(2 * leafBytes, 0, fromGather.length() * 8L);
        assertThat(ScopeFrame.packet(fromGather, "front").tag()).isEqualTo(100);
    }

    @Test
    void somethingElseIsRefusedNamingWhatWasFound() {
        Message m = new Message(16).length(9);
        assertThatThrownBy(() -> ScopeFrame.control(m, "scope leaf x")).isInstanceOf(CommException.class)
                .hasMessage("scope leaf x: not a scope frame, magic=0x0, expected 0x45535343");
        Message shortOne = new Message(1).length(1);
        assertThatThrownBy(() -> ScopeFrame.control(shortOne, "scope leaf x"))
                .hasMessage("scope leaf x: message of 1 words is shorter than a scope frame header of 7 words");
        Message truncated = new Message(1);
        ScopeFrame.writeDown(truncated, Packet.INIT, 1, Packet.of(Packet.INIT, 0));
        truncated.length(truncated.length() - 1);
        assertThatThrownBy(() -> ScopeFrame.control(truncated, "scope leaf x")).hasMessageStartingWith("scope leaf x: malformed scope frame");
    }
}
