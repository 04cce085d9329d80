package dev.retryafter.agent;

/**
 * Enabled at run time (the Agent MBean's {@code Enabled}): off, each new call runs as the client alone
 * would run it, through the hooks' "not governed" answer; calls already governed finish as they began,
 * so no permit is left taken. Distinct from the mode: observe still sees every call and learns from
 * it, off sees nothing.
 */
public final class GoverningSwitch {

    private volatile boolean on = true;

    public boolean isOn() {
        return on;
    }

    public void set(boolean on) {
        this.on = on;
    }
}
