package org.eventspace.comm.runtime;

import org.eventspace.comm.path.Wrapper;

/** A wrapper placed on a host, seen through its ports (a gred has one per contributor, others one). */
@FunctionalInterface
public interface WrapperInstance {
    Wrapper port(int port);

    static WrapperInstance single(Wrapper wrapper) {
        return port -> {
            if (port != 0) {
                throw new IllegalArgumentException("wrapper has only port 0, port=" + port);
            }
            return wrapper;
        };
    }
}
