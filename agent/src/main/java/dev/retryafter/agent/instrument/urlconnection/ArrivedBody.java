package dev.retryafter.agent.instrument.urlconnection;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URLConnection;

/**
 * Whether an {@code HttpURLConnection} response's body has all arrived at this machine, read or
 * not: then the request is no longer in flight at the portal. Only a body of known length can tell:
 * the JDK's stream for it ({@code sun.net.www.MeteredStream}, from Java 8 to 25) counts as
 * available what its buffer and the socket hold. A chunked body, or one that ends when the
 * connection closes, is over only when the application reads or closes it. Over TLS the socket
 * counts only what it has decrypted, so a larger body may wait for its read or the bound.
 */
final class ArrivedBody {

    private final InputStream body;
    private final long length;

    private ArrivedBody(InputStream body, long length) {
        this.body = body;
        this.length = length;
    }

    /**
     * The body of the response {@code connection} has just settled on, before the application has its
     * stream (so nothing of it is read yet); null when its length is not known. Called on the thread
     * of the exchange: the getters return the response the JDK already holds.
     */
    static ArrivedBody of(Object connection, int status, InputStream body) {
        if (body == null || !(connection instanceof URLConnection)) {
            return null;
        }
        URLConnection c = (URLConnection) connection;
        if (c instanceof HttpURLConnection && ("HEAD".equals(((HttpURLConnection) c).getRequestMethod())
                || status == HttpURLConnection.HTTP_NO_CONTENT || status == HttpURLConnection.HTTP_NOT_MODIFIED)) {
            return null; // no body, whatever Content-Length says: the JDK finishes its client at once
        }
        if ("chunked".equalsIgnoreCase(c.getHeaderField("Transfer-Encoding"))) {
            return null;
        }
        String declared = c.getHeaderField("Content-Length");
        long length;
        try {
            length = declared == null ? -1 : Long.parseLong(declared.trim());
        } catch (NumberFormatException e) {
            return null;
        }
        return length > 0 ? new ArrivedBody(body, length) : null;
    }

    /**
     * Whether all of it has arrived. Once the application reads some, what is left is less than the
     * length, so a body partly read counts as arrived only when more than the length is buffered:
     * never sooner than it should; its end, read, finishes the exchange anyway.
     */
    boolean arrived() {
        try {
            return body.available() >= length;
        } catch (IOException e) { // closed: the JDK's client says when it is done
            return false;
        }
    }
}
