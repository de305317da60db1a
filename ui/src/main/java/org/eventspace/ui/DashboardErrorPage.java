package org.eventspace.ui;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The answers Jetty makes itself, before a request reaches the dashboard's routes: a request line or headers it cannot
 * parse (400), a URI longer than its buffer (414), headers beyond their bound (431), and any error a route did not
 * answer. As every other error of the API (docs/API.md, "Errors"): JSON {@code {"error", "message", "status"}} with the
 * page's security headers, never Jetty's HTML page, and nothing of the request echoed but its first 40 characters.
 * Thread-safe.
 */
final class DashboardErrorPage extends ErrorHandler {
    /** The code of each status Jetty answers by itself. */
    private static final Map<Integer, String> CODES = Map.of(400, "bad_request", 404, "not_found", 405, "method_not_allowed",
            413, "payload_too_large", 414, "uri_too_long", 431, "headers_too_large", 500, "internal", 501, "not_implemented",
            505, "http_version_not_supported");
    private static final Map<Integer, String> MESSAGES = Map.of(
            414, "the request's path and query are longer than the dashboard reads (8 KiB): no API path or parameter is that long",
            431, "the request's headers are larger than the dashboard reads (8 KiB)",
            413, "the dashboard's API is read-only and takes no request body");

    private final ObjectMapper json;

    DashboardErrorPage(ObjectMapper json) {
        this.json = json;
    }

    static String code(int status) {
        return CODES.getOrDefault(status, status >= 500 ? "internal" : "bad_request");
    }

    /** The body of an error as the API writes it. */
    byte[] body(int status, String code, String message) {
        try {
            return json.writeValueAsBytes(new DashboardServer.ApiError(code, message, status));
        } catch (JsonProcessingException e) {
            return ("{\"error\":\"" + code + "\",\"status\":" + status + "}").getBytes(StandardCharsets.UTF_8);
        }
    }

    private String message(int status, String reason) {
        String m = MESSAGES.get(status);
        if (m != null) {
            return m;
        }
        return "the request could not be read as HTTP" + (reason == null || reason.isBlank() ? ""
                : ": " + DashboardServer.echo(reason));
    }

    /** A request Jetty could not parse: the body it sends, with the headers set in {@code fields}. */
    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        DashboardAccess.HEADERS.forEach(fields::put);
        fields.put("Content-Type", "application/json");
        fields.put("Cache-Control", "no-store");
        return ByteBuffer.wrap(body(status, code(status), message(status, reason)));
    }

    /** An error raised inside the server that no route answered. */
    @Override
    public void handle(String target, Request baseRequest, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        baseRequest.setHandled(true);
        if (response.isCommitted()) {
            return;
        }
        int status = response.getStatus() >= 400 ? response.getStatus() : 500;
        Object reason = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        byte[] bytes = body(status, code(status), status == 404 ? "no such page or API path" : message(status,
                reason == null ? null : reason.toString()));
        DashboardAccess.HEADERS.forEach(response::setHeader);
        response.setContentType("application/json");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
