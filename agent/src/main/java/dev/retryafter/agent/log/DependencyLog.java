package dev.retryafter.agent.log;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The slf4j provider of the agent's relocated slf4j, which only its dependencies log to (Jedis, for the
 * fleet store): their lines go to the agent's log at debug level, under their loggers' names. The agent
 * says itself, once, what a failure means for the application (a Redis outage, say); a dependency's own
 * account of it is for debugging. Found through {@code META-INF/services}, as slf4j 2 finds a provider.
 */
public final class DependencyLog implements SLF4JServiceProvider {

    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();

    @Override
    public ILoggerFactory getLoggerFactory() {
        return Line::new;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {
    }

    /** One of a dependency's loggers. */
    private static final class Line extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;

        Line(String name) {
            this.name = name;
        }

        private static boolean on() {
            return AgentLog.logger().isDebugEnabled();
        }

        @Override
        public boolean isTraceEnabled() {
            return false;
        }

        @Override
        public boolean isDebugEnabled() {
            return on();
        }

        @Override
        public boolean isInfoEnabled() {
            return on();
        }

        @Override
        public boolean isWarnEnabled() {
            return on();
        }

        @Override
        public boolean isErrorEnabled() {
            return on();
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String message, Object[] arguments, Throwable thrown) {
            AgentLogger log = AgentLog.logger();
            String text = MessageFormatter.basicArrayFormat(message, arguments);
            if (thrown != null) {
                log.debug("{} {}: {}", level, name, text, thrown);
            } else {
                log.debug("{} {}: {}", level, name, text);
            }
        }
    }
}
