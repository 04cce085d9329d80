package dev.retryafter.agent.engine.header;

/** A {@code Retry-After} header as received, and what it says once parsed. */
public final class RetryAfter {

    /** Which of the legal forms the header took, or why it says nothing usable. */
    public enum Form { ABSENT, UNUSABLE, DELAY_SECONDS, HTTP_DATE }

    public static final RetryAfter ABSENT = new RetryAfter(null, Form.ABSENT, 0);

    private final String raw;
    private final Form form;
    private final long millis;

    RetryAfter(String raw, Form form, long millis) {
        this.raw = raw;
        this.form = form;
        this.millis = millis;
    }

    /** The header exactly as the server sent it; null when there was none. */
    public String raw() {
        return raw;
    }

    public Form form() {
        return form;
    }

    public boolean isUsable() {
        return form == Form.DELAY_SECONDS || form == Form.HTTP_DATE;
    }

    /** How long the header asks the client to wait; 0 unless {@link #isUsable()}. */
    public long millis() {
        return millis;
    }

    @Override
    public String toString() {
        return isUsable() ? form + "(" + millis + "ms)" : form.toString();
    }
}
