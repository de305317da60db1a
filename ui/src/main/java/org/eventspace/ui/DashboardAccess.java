package org.eventspace.ui;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;

/**
 * Who may read the dashboard: the run's data are unauthenticated, so the server decides by where it listens.
 *
 * <ul>
 *   <li>Bound to loopback (the default): only this machine can connect, but a web page this machine's browser opens
 *   could still reach it by DNS rebinding (a name of the attacker's that resolves to 127.0.0.1). So a request must name
 *   the server as the browser reached it directly: {@code Host} is {@code localhost}, {@code 127.0.0.1} or
 *   {@code [::1]} with the server's port; otherwise 421.</li>
 *   <li>Bound beyond loopback: anyone on the network can connect, so every request carries a random token made at
 *   start, printed in the page's address ({@code ?token=…}): in the query, in the cookie the server sets when a
 *   request carried it ({@code HttpOnly; SameSite=Strict}: the page's own requests carry it, other sites' do not), or as
 *   {@code Authorization: Bearer …} (Prometheus); otherwise 401.</li>
 * </ul>
 *
 * <p>Immutable; any thread.
 */
final class DashboardAccess {
    /** The headers every answer carries: no script but the page's own files, no framing, no sniffing, no referrer. */
    static final Map<String, String> HEADERS = Map.of(
            "Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                    + "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            "X-Content-Type-Options", "nosniff",
            "X-Frame-Options", "DENY",
            "Referrer-Policy", "no-referrer");

    /** The query parameter, and the stem of the cookie, that carry the token. */
    static final String TOKEN = "token";

    private final boolean loopback;
    private final String token;

    private DashboardAccess(boolean loopback, String token) {
        this.loopback = loopback;
        this.token = token;
    }

    /** The rules for a server bound to {@code bind}: a Host check on loopback, a fresh token beyond it. */
    static DashboardAccess of(String bind) {
        boolean loopback = isLoopback(bind);
        if (loopback) {
            return new DashboardAccess(true, null);
        }
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        return new DashboardAccess(false, Base64.getUrlEncoder().withoutPadding().encodeToString(random));
    }

    static boolean isLoopback(String bind) {
        if (bind.equals("localhost")) {
            return true;
        }
        try {
            return InetAddress.getByName(bind).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false; // not this machine's: listening there fails with its own message
        }
    }

    boolean loopback() {
        return loopback;
    }

    /** The token a request needs, or null when bound to loopback (none is needed). */
    String token() {
        return token;
    }

    /** The cookie that keeps the token for the page's requests; named by port, as cookies are shared across ports. */
    static String cookieName(int port) {
        return "es_" + TOKEN + "_" + port;
    }

    /**
     * Whether a request with this {@code Host} header may be answered by a server listening on {@code port}: always
     * beyond loopback (the token decides there); on loopback, only the names of this machine's loopback with this port
     * (no port only when it is 80). An absent {@code Host} (HTTP/1.0, not a browser) is let through.
     */
    boolean hostAllowed(String host, int port) {
        if (!loopback || host == null) {
            return true;
        }
        String h = host.trim().toLowerCase(Locale.ROOT);
        String name = h;
        String p = null;
        if (h.startsWith("[")) {
            int close = h.indexOf(']');
            if (close < 0) {
                return false;
            }
            name = h.substring(0, close + 1);
            String rest = h.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    return false;
                }
                p = rest.substring(1);
            }
        } else {
            int colon = h.indexOf(':');
            if (colon >= 0) {
                name = h.substring(0, colon);
                p = h.substring(colon + 1);
            }
        }
        if (!(name.equals("localhost") || name.equals("127.0.0.1") || name.equals("[::1]"))) {
            return false;
        }
        return p == null ? port == 80 : p.equals(Integer.toString(port));
    }

    /**
     * Whether the request carries the token, in one of the ways it may: query, cookie or bearer header. Compared in
     * constant time. Always true on loopback.
     */
    boolean tokenPresented(String query, String cookie, String authorization) {
        if (loopback) {
            return true;
        }
        return matches(query) || matches(cookie)
                || authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                && matches(authorization.substring(7).trim());
    }

    private boolean matches(String presented) {
        return presented != null && MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8),
                token.getBytes(StandardCharsets.UTF_8));
    }
}
