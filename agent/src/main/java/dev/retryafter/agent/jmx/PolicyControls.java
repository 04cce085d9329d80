package dev.retryafter.agent.jmx;

/**
 * What the Agent MBean and the command line steer of the policies: the file they come from, read again
 * or replaced, and a description of the settings in force. Kept by the installer, which owns the reloader.
 */
public interface PolicyControls {

    /** Re-reads the policy file in force ({@code file} null or empty), or reads {@code file} instead; {@code via} says who asked. */
    Outcome reload(String file, String via);

    /** Every policy's settings and where each came from ({@code host} null or empty), or those of the policy governing {@code host}. */
    String describe(String host);

    /** Names of the policies that set their own mode (a switch of the agent's mode leaves them as they are); empty for none. */
    String ownModes();

    /** The agent-wide mode was switched at run time: {@code how} says by whom and when, for {@link #describe}. */
    void modeSwitched(String how);
}
